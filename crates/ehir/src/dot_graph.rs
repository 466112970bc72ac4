//! Graphviz pictures of EH control flow: the `.dot` text of a module's functions at
//! whatever phase they are in (`ehir dot` lowers first, then calls [`module_dot`]).
//!
//! One cluster per function (`cluster_fN`, labelled `@name`); one node per block
//! (`fN_bbM`, numbered as the printer numbers blocks), listing its ops as the printer
//! writes them (ops with regions show their head only; blocks longer than
//! [`DotOptions::max_ops`] keep their first and last ops around a `... N more ops` line).
//!
//! - Nodes carry `class="block KIND..."`, with KIND among `entry`, `landingpad` (starts with
//!   `cir.eh.landingpad` or `cir.eh.initiate`), `dispatch` (`cir.eh.dispatch`,
//!   `cir.catchswitch`, Itanium's `cir.eh.typeid` selector tests), `catch` (`cir.begin_catch`, `cir.catchpad`, `__cxa_begin_catch`),
//!   `cleanup` (`cir.begin_cleanup`, `cir.cleanuppad`) and `terminate` (`cir.eh.terminate`
//!   or a call to a `...terminate...` function); the first EH kind of the list
//!   `terminate, landingpad, dispatch, catch, cleanup` picks the fill colour.
//! - Edges carry `class="normal"` (solid), `class="unwind"` (dashed: a `cir.try_call`'s
//!   or `cir.throw`'s unwind successor, a `cir.catchswitch`/`cir.cleanupret` unwind
//!   destination, a dispatch's `unwind` key), `class="dispatch"` (labelled with the
//!   dispatch key or `handler`), `class="case"` (a `cir.switch.flat` edge labelled
//!   `case N`/`default`) or `class="region"` (dotted, from the block of an op with regions
//!   to each region's entry block).
//! - Regions of ops (structured phase) are nested clusters `class="region KIND"` labelled
//!   with the op and the region's role (`cir.try: catch all`, `cir.cleanup.scope: cleanup
//!   eh`, ...). At the MSVC phase, the blocks of each funclet are a coloured cluster
//!   `class="funclet"` named by its pad (`funclet ^bb3: cir.cleanuppad`).
//! - Each function's cluster opens with a comment counting its nodes and edges by kind,
//!   e.g. `// @f: 11 blocks, 13 edges (9 normal, 4 unwind, 0 dispatch, 0 case, 0 region)`.
//!
//! The output depends only on the module (no hash map is iterated), so the same input
//! gives byte-identical text. Walks use explicit stacks, not host recursion.

use ehir_core::printer::{Names, RegionWalkFrame, function_to_string, write_attr};
use ehir_core::{
    Block, EntityRef, Function, HandlerKey, Item, Module, ModuleCtx, Op, OpKind, Phase, Region,
    SecondaryMap,
};
use std::fmt::Write;

/// Limits on how much of each block a node shows.
#[derive(Copy, Clone, Debug)]
pub struct DotOptions {
    /// Blocks with more ops show the first and last `max_ops / 2` around a count.
    pub max_ops: usize,
    /// Longer op lines are cut with `...`.
    pub max_line_chars: usize,
}

impl Default for DotOptions {
    fn default() -> Self {
        DotOptions {
            max_ops: 16,
            max_line_chars: 96,
        }
    }
}

/// Indentation of the text stops growing at this nesting depth (deep nesting would make
/// the text quadratic in size).
const MAX_INDENT: usize = 16;

/// The indentation of a line at `depth`.
fn indent(depth: usize) -> String {
    "  ".repeat(depth.min(MAX_INDENT))
}

/// Fill colours of funclet clusters, used in turn.
const FUNCLET_COLOURS: [&str; 6] = [
    "#e7f5ff", "#ebfbee", "#fff9db", "#f3f0ff", "#fff0f6", "#e6fcf5",
];

/// The `.dot` text of the function definitions of `module` (only the one named `only`
/// when given; `None` when there is no such definition).
pub fn module_dot(module: &Module, only: Option<&str>, options: DotOptions) -> Option<String> {
    let mut out = String::from("digraph ehir {\n");
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=9];\n");
    let mut found = false;
    let mut index = 0usize;
    for item in &module.items {
        let Item::Function(id) = *item else { continue };
        let func = &module.functions[id];
        if func.is_declaration() {
            continue;
        }
        let name = module.ctx.name(func.name);
        if only.is_some_and(|n| n.trim_start_matches('@') != name) {
            continue;
        }
        found = true;
        function_dot(&mut out, &module.ctx, func, index, options);
        index += 1;
    }
    out.push_str("}\n");
    (found || only.is_none()).then_some(out)
}

/// The kinds of edge, in the order the per-function comment counts them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum EdgeKind {
    Normal,
    Unwind,
    Dispatch,
    Case,
    Region,
}

impl EdgeKind {
    fn class(self) -> &'static str {
        match self {
            EdgeKind::Normal => "normal",
            EdgeKind::Unwind => "unwind",
            EdgeKind::Dispatch => "dispatch",
            EdgeKind::Case => "case",
            EdgeKind::Region => "region",
        }
    }

    fn style(self) -> &'static str {
        match self {
            EdgeKind::Unwind => ", style=dashed, color=\"#c92a2a\"",
            EdgeKind::Region => ", style=dotted, arrowhead=empty",
            _ => "",
        }
    }

    const ALL: [EdgeKind; 5] = [
        EdgeKind::Normal,
        EdgeKind::Unwind,
        EdgeKind::Dispatch,
        EdgeKind::Case,
        EdgeKind::Region,
    ];
}

/// One edge of the picture.
struct Edge {
    from: Block,
    to: Block,
    kind: EdgeKind,
    label: String,
}

/// EH roles of a block, in the priority order that picks the fill colour.
const BLOCK_KINDS: [(&str, &str); 5] = [
    ("terminate", "#ffa8a8"),
    ("landingpad", "#ffd8a8"),
    ("dispatch", "#ffec99"),
    ("catch", "#b2f2bb"),
    ("cleanup", "#a5d8ff"),
];

/// The EH roles of a block (see the module docs).
fn block_kinds(ctx: &ModuleCtx, func: &Function, block: Block) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    let first = func.layout.first_op(block);
    for op in func.layout.ops(block) {
        let kind = func.dfg.kind(op);
        let role = match kind {
            OpKind::EhLandingPad { .. } | OpKind::EhInitiate { .. } if Some(op) == first => {
                "landingpad"
            }
            OpKind::EhDispatch { .. } | OpKind::CatchSwitch { .. } | OpKind::EhTypeId { .. } => {
                "dispatch"
            }
            OpKind::BeginCatch | OpKind::CatchPad { .. } => "catch",
            OpKind::BeginCleanup | OpKind::CleanupPad => "cleanup",
            OpKind::EhTerminate | OpKind::EhUnexpected => "terminate",
            _ => match kind.callee().map(|c| ctx.name(c)) {
                Some("__cxa_begin_catch") => "catch",
                Some(name) if name.contains("terminate") => "terminate",
                _ => continue,
            },
        };
        if !kinds.contains(&role) {
            kinds.push(role);
        }
    }
    kinds.sort_by_key(|k| BLOCK_KINDS.iter().position(|(n, _)| n == k));
    kinds
}

/// The role of region `index` of `op`, for its cluster label and class.
fn region_role(ctx: &ModuleCtx, func: &Function, op: Op, index: usize) -> (String, &'static str) {
    let dfg = &func.dfg;
    let name = dfg.kind(op).name();
    let (role, class) = match *dfg.kind(op) {
        OpKind::CleanupScope { kind } => match index {
            0 => ("body".to_string(), "cleanup-scope"),
            _ => (format!("cleanup {}", kind.name()), "cleanup"),
        },
        OpKind::Try { handlers } => match index {
            0 => ("body".to_string(), "try"),
            _ => {
                let role = match dfg.handlers(handlers).get(index - 1) {
                    Some(HandlerKey::Catch(attr)) => {
                        let mut text = Vec::new();
                        let _ = write_attr(&mut text, ctx, *attr);
                        format!("catch [type {}]", String::from_utf8_lossy(&text))
                    }
                    Some(HandlerKey::CatchAll) => "catch all".to_string(),
                    Some(HandlerKey::Unwind) => "unwind".to_string(),
                    Some(HandlerKey::Filter(_)) => "filter".to_string(),
                    Some(HandlerKey::Terminate) => "terminate".to_string(),
                    None => "handler".to_string(),
                };
                (role, "handler")
            }
        },
        OpKind::ArrayCtor if index == 1 => ("cleanup".to_string(), "cleanup"),
        OpKind::If => (
            if index == 0 { "then" } else { "else" }.to_string(),
            "region",
        ),
        OpKind::Scope => ("scope".to_string(), "scope"),
        OpKind::While | OpKind::DoWhile | OpKind::For => {
            let roles: &[&str] = match dfg.kind(op) {
                OpKind::While => &["cond", "body"],
                OpKind::DoWhile => &["body", "cond"],
                _ => &["cond", "body", "step"],
            };
            let role = roles.get(index).copied().unwrap_or("region");
            (role.to_string(), "loop")
        }
        _ => (format!("region {index}"), "other"),
    };
    (format!("{name}: {role}"), class)
}

/// The key of a dispatch edge.
fn dispatch_label(ctx: &ModuleCtx, key: &HandlerKey) -> String {
    match key {
        HandlerKey::Catch(attr) => {
            let mut text = Vec::new();
            let _ = write_attr(&mut text, ctx, *attr);
            let text = String::from_utf8_lossy(&text);
            // `#cir.global_view<@_ZTIi> : !u32i` is shown as its typeinfo, `@_ZTIi`.
            let symbol = text
                .split_once("<@")
                .and_then(|(_, rest)| rest.split_once('>'))
                .map(|(name, _)| format!("@{name}"));
            format!("catch {}", symbol.unwrap_or_else(|| text.into_owned()))
        }
        HandlerKey::CatchAll => "catch_all".to_string(),
        HandlerKey::Unwind => "unwind".to_string(),
        HandlerKey::Filter(_) => "filter".to_string(),
        HandlerKey::Terminate => "terminate".to_string(),
    }
}

/// The edges leaving `block` (through its terminator or any op with successors).
fn block_edges(ctx: &ModuleCtx, func: &Function, block: Block, edges: &mut Vec<Edge>) {
    let dfg = &func.dfg;
    for op in func.layout.ops(block) {
        let targets: Vec<Block> = dfg.successor_blocks(op).collect();
        let mut push = |to: Block, kind: EdgeKind, label: String| {
            edges.push(Edge {
                from: block,
                to,
                kind,
                label,
            })
        };
        match *dfg.kind(op) {
            OpKind::TryCall { .. } => {
                for (i, &to) in targets.iter().enumerate() {
                    if i == 1 {
                        push(to, EdgeKind::Unwind, "unwind".into());
                    } else {
                        push(to, EdgeKind::Normal, String::new());
                    }
                }
            }
            OpKind::Throw { .. } | OpKind::CleanupRet => {
                for &to in &targets {
                    push(to, EdgeKind::Unwind, "unwind".into());
                }
            }
            OpKind::CatchSwitch { unwind_to_caller } => {
                let handlers = if unwind_to_caller {
                    targets.len()
                } else {
                    targets.len().saturating_sub(1)
                };
                for (i, &to) in targets.iter().enumerate() {
                    if i < handlers {
                        push(to, EdgeKind::Dispatch, "handler".into());
                    } else {
                        push(to, EdgeKind::Unwind, "unwind".into());
                    }
                }
            }
            OpKind::EhDispatch { keys } => {
                let keys = dfg.handlers(keys);
                for (i, &to) in targets.iter().enumerate() {
                    match keys.get(i) {
                        Some(HandlerKey::Unwind) => push(to, EdgeKind::Unwind, "unwind".into()),
                        Some(key) => push(to, EdgeKind::Dispatch, dispatch_label(ctx, key)),
                        None => push(to, EdgeKind::Dispatch, String::new()),
                    }
                }
            }
            OpKind::SwitchFlat { cases } => {
                let values: &[i128] = match dfg.extra(cases) {
                    ehir_core::ExtraData::Cases(v) => v,
                    _ => &[],
                };
                for (i, &to) in targets.iter().enumerate() {
                    let label = match i {
                        0 => "default".to_string(),
                        _ => match values.get(i - 1) {
                            Some(v) => format!("case {v}"),
                            None => "case ?".to_string(),
                        },
                    };
                    push(to, EdgeKind::Case, label);
                }
            }
            OpKind::BrCond => {
                for (i, &to) in targets.iter().enumerate() {
                    let label = if i == 0 { "true" } else { "false" };
                    push(to, EdgeKind::Normal, label.into());
                }
            }
            OpKind::CatchRet => {
                for &to in &targets {
                    push(to, EdgeKind::Normal, "catchret".into());
                }
            }
            _ => {
                for &to in &targets {
                    push(to, EdgeKind::Normal, String::new());
                }
            }
        }
        for &region in dfg.regions(op) {
            if let Some(entry) = func.layout.entry_block(region) {
                push_region_edge(edges, block, entry);
            }
        }
    }
}

fn push_region_edge(edges: &mut Vec<Edge>, from: Block, to: Block) {
    edges.push(Edge {
        from,
        to,
        kind: EdgeKind::Region,
        label: String::new(),
    });
}

/// The printed text of every op (see [`op_texts`]); kind names when the printed text does
/// not have the expected shape.
struct OpTexts {
    texts: SecondaryMap<Op, String>,
}

impl OpTexts {
    fn get(&self, func: &Function, op: Op) -> String {
        match self.texts.get(op) {
            Some(t) if !t.is_empty() => t.clone(),
            _ => func.dfg.kind(op).name().to_string(),
        }
    }
}

/// Splits the printer's text of `func` into the text of each op: lines are matched to
/// blocks and ops by walking the body in the printer's order (a label line for each block
/// that shows one, a head line per op, continuation lines of multi-line ops, one closing
/// line per region). Ops with regions keep their head, with `...}` for the regions;
/// multi-line ops (`cir.eh.dispatch`, `cir.switch.flat`) keep their lines.
fn op_texts(ctx: &ModuleCtx, func: &Function) -> OpTexts {
    let mut texts: SecondaryMap<Op, String> = SecondaryMap::new();
    let printed = function_to_string(ctx, func);
    let lines: Vec<&str> = printed.lines().collect();
    let (Some(body), true) = (func.body, lines.len() >= 2) else {
        return OpTexts { texts };
    };
    let body_lines = &lines[1..lines.len() - 1];
    // The printer indents with spaces; counting bytes keeps deep nesting cheap.
    let indent = |line: &str| line.bytes().take_while(|&b| b == b' ').count();
    let mut at = 0usize;
    let mut stack = vec![RegionWalkFrame::new(func, body, 1, None)];
    let mut consistent = true;
    while let Some(top) = stack.last_mut() {
        if let Some(op) = top.next_op {
            top.next_op = func.layout.next_op(op);
            let depth = top.depth;
            let Some(head) = body_lines.get(at) else {
                consistent = false;
                break;
            };
            at += 1;
            let mut text = head[indent(head)..].trim_end().to_string();
            let regions = func.dfg.regions(op);
            if let Some(&first) = regions.first() {
                if let Some(stripped) = text.strip_suffix(" {") {
                    text = format!("{stripped} {{...}}");
                }
                texts[op] = text;
                stack.push(RegionWalkFrame::new(func, first, depth + 1, Some((op, 0))));
                continue;
            }
            while let Some(next) = body_lines.get(at) {
                let level = indent(next);
                let closing = next[level..].starts_with([']', ')', '}']);
                if level > 2 * depth || (level == 2 * depth && closing) {
                    // Continuation lines keep their indentation relative to the op.
                    text.push('\n');
                    text.push_str(&next[(2 * depth).min(level)..]);
                    at += 1;
                } else {
                    break;
                }
            }
            texts[op] = text;
            continue;
        }
        if let Some(b) = top.next_block {
            top.next_block = func.layout.next_block(b);
            top.next_op = func.layout.first_op(b);
            if top.shows_label(func, b) {
                at += 1;
            }
            continue;
        }
        let done = stack.pop().expect("non-empty stack");
        if let Some((op, index)) = done.owner {
            // The `} ... {` or final `}` line.
            at += 1;
            if let Some(&next) = func.dfg.regions(op).get(index + 1) {
                stack.push(RegionWalkFrame::new(
                    func,
                    next,
                    done.depth,
                    Some((op, index + 1)),
                ));
            }
        }
    }
    if !consistent || at != body_lines.len() {
        texts = SecondaryMap::new();
    }
    OpTexts { texts }
}

/// Escapes text for a double-quoted Graphviz string.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\l"),
            _ => out.push(ch),
        }
    }
    out
}

/// Cuts a line to `max` characters.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{cut}...")
}

/// What the picture needs of one function, computed once.
struct FunctionPicture<'a> {
    ctx: &'a ModuleCtx,
    func: &'a Function,
    names: Names,
    texts: OpTexts,
    prefix: String,
    options: DotOptions,
}

impl FunctionPicture<'_> {
    fn node_id(&self, block: Block) -> String {
        format!(
            "{}_{}",
            self.prefix,
            self.names.block(block).trim_start_matches('^')
        )
    }

    fn node(&self, out: &mut String, block: Block, depth: usize) {
        let func = self.func;
        let mut kinds = block_kinds(self.ctx, func, block);
        let mut label = self.names.block(block);
        if func.entry_block() == Some(block) {
            kinds.insert(0, "entry");
            label.push_str(" (entry)");
        }
        let eh_kinds: Vec<&str> = kinds.iter().copied().filter(|k| *k != "entry").collect();
        if !eh_kinds.is_empty() {
            let _ = write!(label, " [{}]", eh_kinds.join(", "));
        }
        label.push('\n');
        let ops: Vec<Op> = func.layout.ops(block).collect();
        let max = self.options.max_ops.max(2);
        let line = |op: Op| {
            let text = self.texts.get(func, op);
            let lines: Vec<String> = text
                .lines()
                .map(|l| shorten(l, self.options.max_line_chars))
                .collect();
            lines.join("\n")
        };
        if ops.len() > max {
            let keep = max / 2;
            for &op in &ops[..keep] {
                label.push_str(&line(op));
                label.push('\n');
            }
            let _ = writeln!(label, "... {} more ops", ops.len() - 2 * keep);
            for &op in &ops[ops.len() - keep..] {
                label.push_str(&line(op));
                label.push('\n');
            }
        } else {
            for &op in &ops {
                label.push_str(&line(op));
                label.push('\n');
            }
        }
        let mut class = String::from("block");
        for k in &kinds {
            class.push(' ');
            class.push_str(k);
        }
        let style = match eh_kinds.first() {
            None => String::new(),
            Some(first) => {
                let colour = BLOCK_KINDS
                    .iter()
                    .find(|(n, _)| n == first)
                    .map_or("#ffffff", |(_, c)| c);
                let style = match *first {
                    "catch" | "cleanup" => "filled,rounded",
                    _ => "filled",
                };
                let extra = if *first == "dispatch" {
                    ", peripheries=2"
                } else {
                    ""
                };
                format!(", style=\"{style}\", fillcolor=\"{colour}\"{extra}")
            }
        };
        let _ = writeln!(
            out,
            "{}{} [class=\"{class}\", label=\"{}\"{style}];",
            indent(depth),
            self.node_id(block),
            escape(&label)
        );
    }
}

/// Appends the cluster of one function definition.
fn function_dot(
    out: &mut String,
    ctx: &ModuleCtx,
    func: &Function,
    index: usize,
    options: DotOptions,
) {
    let Some(body) = func.body else { return };
    let picture = FunctionPicture {
        ctx,
        func,
        names: Names::with_unique_blocks(func),
        texts: op_texts(ctx, func),
        prefix: format!("f{index}"),
        options,
    };
    let name = ctx.name(func.name);
    let blocks = func.walk_blocks();
    let mut edges = Vec::new();
    for &b in &blocks {
        block_edges(ctx, func, b, &mut edges);
    }
    let mut counts = String::new();
    for kind in EdgeKind::ALL {
        let n = edges.iter().filter(|e| e.kind == kind).count();
        if !counts.is_empty() {
            counts.push_str(", ");
        }
        let _ = write!(counts, "{n} {}", kind.class());
    }
    let _ = writeln!(
        out,
        "  // @{name}: {} blocks, {} edges ({counts})",
        blocks.len(),
        edges.len()
    );
    let _ = writeln!(out, "  subgraph cluster_f{index} {{");
    let _ = writeln!(
        out,
        "    class=\"function\"; label=\"@{} ({})\"; labeljust=l;",
        escape(name),
        func.phase.name()
    );
    if func.phase == Phase::Msvc {
        funclet_clusters(out, &picture, body);
    } else {
        region_clusters(out, &picture, body);
    }
    for edge in &edges {
        let label = if edge.label.is_empty() {
            String::new()
        } else {
            format!(", label=\"{}\"", escape(&edge.label))
        };
        let _ = writeln!(
            out,
            "    {} -> {} [class=\"{}\"{label}{}];",
            picture.node_id(edge.from),
            picture.node_id(edge.to),
            edge.kind.class(),
            edge.kind.style()
        );
    }
    out.push_str("  }\n");
}

/// Nodes of the body, with the regions of ops as nested clusters.
fn region_clusters(out: &mut String, picture: &FunctionPicture, body: Region) {
    let func = picture.func;
    enum Work {
        Block(Block, usize),
        Open(Op, usize, Region, usize),
        Close(usize),
    }
    let mut work: Vec<Work> = func
        .layout
        .blocks(body)
        .map(|b| Work::Block(b, 2))
        .collect::<Vec<_>>();
    work.reverse();
    while let Some(item) = work.pop() {
        match item {
            Work::Block(block, depth) => {
                picture.node(out, block, depth);
                let mut nested = Vec::new();
                for op in func.layout.ops(block) {
                    for (i, &r) in func.dfg.regions(op).iter().enumerate() {
                        nested.push(Work::Open(op, i, r, depth));
                    }
                }
                work.extend(nested.into_iter().rev());
            }
            Work::Open(op, index, region, depth) => {
                let (label, class) = region_role(picture.ctx, func, op, index);
                let pad = indent(depth);
                let _ = writeln!(
                    out,
                    "{pad}subgraph cluster_{}_r{} {{",
                    picture.prefix,
                    region.index()
                );
                let _ = writeln!(
                    out,
                    "{pad}  class=\"region {class}\"; label=\"{}\"; labeljust=l; style=rounded;",
                    escape(&label)
                );
                work.push(Work::Close(depth));
                let blocks: Vec<Block> = func.layout.blocks(region).collect();
                work.extend(blocks.into_iter().rev().map(|b| Work::Block(b, depth + 1)));
            }
            Work::Close(depth) => {
                let _ = writeln!(out, "{}}}", indent(depth));
            }
        }
    }
}

/// Nodes of an MSVC-phase body: the parent function's blocks, then one coloured cluster
/// per funclet (blocks grouped by their pad, in layout order of first appearance).
fn funclet_clusters(out: &mut String, picture: &FunctionPicture, body: Region) {
    let func = picture.func;
    let colors = ehir_core::analysis::funclet_colors(func);
    let mut funclets: Vec<(Op, Vec<Block>)> = Vec::new();
    for block in func.layout.blocks(body) {
        let pad = colors.get(block).and_then(|c| c.first().copied().flatten());
        match pad {
            None => picture.node(out, block, 2),
            Some(pad) => match funclets.iter_mut().find(|(p, _)| *p == pad) {
                Some((_, blocks)) => blocks.push(block),
                None => funclets.push((pad, vec![block])),
            },
        }
    }
    for (i, (pad, blocks)) in funclets.iter().enumerate() {
        let pad_block = func
            .layout
            .op_block(*pad)
            .map(|b| picture.names.block(b))
            .unwrap_or_default();
        let kind = func.dfg.kind(*pad).name();
        let colour = FUNCLET_COLOURS[i % FUNCLET_COLOURS.len()];
        let _ = writeln!(out, "    subgraph cluster_{}_funclet{i} {{", picture.prefix);
        let _ = writeln!(
            out,
            "      class=\"funclet\"; label=\"funclet {pad_block}: {kind}\"; labeljust=l; style=filled; fillcolor=\"{colour}\";"
        );
        for &block in blocks {
            picture.node(out, block, 3);
        }
        out.push_str("    }\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn labels_escape_quotes_backslashes_and_end_lines_left() {
        assert_eq!(escape("a \"b\" \\c\nd"), "a \\\"b\\\" \\\\c\\ld");
        assert_eq!(shorten("abcdef", 5), "ab...");
        assert_eq!(shorten("abc", 5), "abc");
    }

    /// The printed text of every op of every seed listing, at every phase it lowers to,
    /// is found by [`op_texts`] (the split follows the printer's layout), and pictures
    /// are the same when drawn twice.
    #[test]
    fn every_op_of_the_seed_listings_gets_its_printed_text() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/seeds/listings");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("seed listings")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cir"))
            .collect();
        files.sort();
        let mut checked = 0;
        for file in files {
            let name = file.display().to_string();
            let text = std::fs::read_to_string(&file).expect("readable");
            let Ok(module) = ehir_reader::parse_module(&name, &text) else {
                continue;
            };
            if ehir_core::verifier::verify_module(&module).is_err() {
                continue;
            }
            for phase in [Phase::Structured, Phase::Flat, Phase::Msvc] {
                let mut lowered = module.clone();
                if ehir_passes::lower_to(&mut lowered, phase).is_err() {
                    continue;
                }
                for func in lowered.functions.values() {
                    let texts = op_texts(&lowered.ctx, func);
                    for op in func.walk_ops() {
                        let t = texts.texts.get(op).cloned().unwrap_or_default();
                        assert!(!t.is_empty(), "{name} at {phase:?}: an op without text");
                        assert!(
                            t.contains(func.dfg.kind(op).name()),
                            "{name} at {phase:?}: '{t}' is not a {}",
                            func.dfg.kind(op).name()
                        );
                    }
                }
                let first = module_dot(&lowered, None, DotOptions::default());
                let second = module_dot(&lowered, None, DotOptions::default());
                assert_eq!(first, second, "{name}: not deterministic");
                checked += 1;
            }
        }
        assert!(checked >= 40, "only {checked} seed pictures checked");
    }
}
