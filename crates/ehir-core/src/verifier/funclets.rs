//! MSVC funclet rules: pad placement and parents, catchswitch handlers, `cir.catchret` /
//! `cir.cleanupret` tokens, funclet colouring ([`crate::analysis::funclet_colors`]), and the funclet
//! transition rules of LLVM's exception-handling document (an unwind edge exits pads and
//! enters exactly one whose parent is the innermost pad left; every exit of a pad shares
//! one unwind destination; pad unwind destinations form no cycle).

use super::FuncVerifier;
use super::dominance::EdgeKind;
use crate::analysis::{BlockGraph, block_pad, funclet_colors, is_pad, pad_of_token, pad_parent};
use crate::dfg::{DataFlowGraph, ValueDef};
use crate::diagnostics::Diagnostic;
use crate::entities::{Block, Op, Value};
use crate::function::Phase;
use crate::ops::OpKind;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// Where an unwind edge goes: a block, or the caller.
type Dest = Option<Block>;

impl BlockGraph for FuncVerifier<'_> {
    fn dfg(&self) -> &DataFlowGraph {
        self.dfg
    }

    fn entry(&self) -> Option<Block> {
        self.index
            .regions
            .first()
            .and_then(|&r| self.index.entry_block(r))
    }

    fn first_op(&self, block: Block) -> Option<Op> {
        self.index.first_op(block)
    }

    fn last_op(&self, block: Block) -> Option<Op> {
        self.index.last_op(block)
    }

    fn successors_into(&self, block: Block, out: &mut Vec<Block>) {
        out.extend(self.cfg.succs(block).iter().map(|edge| edge.to));
    }

    fn value_def(&self, value: Value) -> Option<ValueDef> {
        self.index.value_site(self.dfg, value)
    }
}

impl FuncVerifier<'_> {
    fn dest_str(&self, dest: Dest) -> String {
        match dest {
            Some(b) => self.index.block_name(b),
            None => "the caller".to_string(),
        }
    }

    pub(crate) fn check_funclets(&self) {
        if self.func.phase != Phase::Msvc {
            return;
        }
        let mut has_pad = false;
        for &op in &self.index.ops {
            let kind = *self.dfg.kind(op);
            if is_pad(&kind) {
                has_pad = true;
                self.check_pad(op);
            }
            match kind {
                OpKind::CatchRet | OpKind::CleanupRet => {
                    let catch = matches!(kind, OpKind::CatchRet);
                    let common = self.ctx.types.common();
                    let want = if catch {
                        common.catch_token
                    } else {
                        common.cleanup_token
                    };
                    let Some(&token) = self.dfg.operands(op).first() else {
                        continue;
                    };
                    // A token of the wrong type is reported by the type checks.
                    if self.valid_type(token) != Some(want) {
                        continue;
                    }
                    let ok = pad_of_token(self, token).is_some_and(|p| {
                        if catch {
                            matches!(self.dfg.kind(p), OpKind::CatchPad { .. })
                        } else {
                            matches!(self.dfg.kind(p), OpKind::CleanupPad)
                        }
                    });
                    if !ok {
                        self.op_error(
                            op,
                            if catch {
                                "'cir.catchret from' must take a 'cir.catchpad' token"
                            } else {
                                "'cir.cleanupret from' must take a 'cir.cleanuppad' token"
                            },
                        );
                    }
                }
                _ => {}
            }
        }
        if has_pad {
            self.check_personality("EH pads");
        }
        self.check_unwind_targets();
        let colors = funclet_colors(self);
        self.check_colors(&colors);
        self.check_transitions(&colors);
    }

    /// Placement, parent and predecessors of one pad.
    fn check_pad(&self, pad: Op) {
        let name = self.op_name(pad);
        let block = self.index.op_block[pad].expect("placed");
        if self.index.op_pos[pad] != 0 {
            self.op_error(pad, format!("'{name}' must be the first op of its block"));
            return;
        }
        let preds = self.cfg.preds(block);
        match *self.dfg.kind(pad) {
            OpKind::CatchPad { .. } => {
                let switch = self
                    .dfg
                    .operands(pad)
                    .first()
                    .and_then(|&v| pad_of_token(self, v))
                    .filter(|&p| matches!(self.dfg.kind(p), OpKind::CatchSwitch { .. }));
                let Some(switch) = switch else {
                    self.op_error(pad, "'cir.catchpad' must be within a 'cir.catchswitch'");
                    return;
                };
                let only_from_switch = !preds.is_empty()
                    && preds
                        .iter()
                        .all(|e| e.op == switch && e.kind == EdgeKind::Handler);
                if !only_from_switch {
                    self.error_with_note(
                        self.dfg.loc(pad),
                        format!(
                            "{} begins with 'cir.catchpad', so only the handler list of its 'cir.catchswitch' may reach it",
                            self.index.block_name(block)
                        ),
                        self.dfg.loc(switch),
                        "catchswitch defined here",
                    );
                }
            }
            _ => {
                if let Some(&parent) = self.dfg.operands(pad).first() {
                    let ok = pad_of_token(self, parent).is_some_and(|p| {
                        matches!(
                            self.dfg.kind(p),
                            OpKind::CatchPad { .. } | OpKind::CleanupPad
                        )
                    });
                    if !ok {
                        self.op_error(
                            pad,
                            format!(
                                "'{name}' must be within 'none' or a 'cir.catchpad'/'cir.cleanuppad' token"
                            ),
                        );
                    }
                }
                self.check_only_unwind_edges_enter(pad, name, block);
            }
        }
    }

    /// Unwind edges enter a catchswitch or cleanuppad block; catchswitch handlers enter a
    /// catchpad within that catchswitch.
    fn check_unwind_targets(&self) {
        for &block in &self.index.blocks {
            for edge in self.cfg.succs(block) {
                let first = self.index.first_op(edge.to).map(|f| *self.dfg.kind(f));
                let name = self.op_name(edge.op);
                match edge.kind {
                    EdgeKind::Unwind
                        if !matches!(
                            first,
                            Some(OpKind::CatchSwitch { .. } | OpKind::CleanupPad)
                        ) =>
                    {
                        self.error_with_note(
                            self.dfg.loc(edge.op),
                            format!(
                                "the unwind destination {} of '{name}' must begin with 'cir.catchswitch' or 'cir.cleanuppad'",
                                self.index.block_name(edge.to)
                            ),
                            self.block_loc(edge.to),
                            "block defined here",
                        );
                    }
                    EdgeKind::Handler => {
                        let within_this = self.index.first_op(edge.to).is_some_and(|f| {
                            matches!(self.dfg.kind(f), OpKind::CatchPad { .. })
                                && self
                                    .dfg
                                    .operands(f)
                                    .first()
                                    .and_then(|&v| pad_of_token(self, v))
                                    == Some(edge.op)
                        });
                        if !within_this {
                            self.error_with_note(
                                self.dfg.loc(edge.op),
                                format!(
                                    "the handler {} of 'cir.catchswitch' must begin with a 'cir.catchpad' within this catchswitch",
                                    self.index.block_name(edge.to)
                                ),
                                self.block_loc(edge.to),
                                "block defined here",
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Every block is in one funclet; rets are in the funclet of their pad; `cir.return`
    /// is in the function's own code.
    fn check_colors(&self, colors: &SecondaryMap<Block, Vec<Option<Op>>>) {
        for &block in &self.index.blocks {
            let cs = &colors[block];
            if cs.len() > 1 {
                let mut d = Diagnostic::error(
                    self.block_loc(block),
                    format!(
                        "{} belongs to {} funclets; each block must belong to exactly one",
                        self.index.block_name(block),
                        cs.len()
                    ),
                );
                for c in cs {
                    d = match c {
                        Some(pad) => d.with_note(self.dfg.loc(*pad), "funclet of this pad"),
                        None => d.with_note(self.func.loc, "the function's own code"),
                    };
                }
                self.error(d);
            }
            let Some(&color) = cs.first() else {
                continue;
            };
            let Some(term) = self.index.last_op(block) else {
                continue;
            };
            let pad = self
                .dfg
                .operands(term)
                .first()
                .and_then(|&v| pad_of_token(self, v));
            let pad_matches = match (self.dfg.kind(term), pad) {
                (OpKind::CatchRet, Some(p)) => matches!(self.dfg.kind(p), OpKind::CatchPad { .. }),
                (OpKind::CleanupRet, Some(p)) => matches!(self.dfg.kind(p), OpKind::CleanupPad),
                _ => false,
            };
            match self.dfg.kind(term) {
                OpKind::CatchRet | OpKind::CleanupRet if pad_matches && pad != color => {
                    self.error_with_note(
                        self.dfg.loc(term),
                        format!(
                            "'{}' must be inside the funclet of the pad it returns from",
                            self.op_name(term)
                        ),
                        self.dfg.loc(pad.expect("checked")),
                        "pad defined here",
                    );
                }
                OpKind::Return if color.is_some() => {
                    self.error_with_note(
                        self.dfg.loc(term),
                        "'cir.return' cannot leave a funclet; return from the function's own code after 'cir.catchret'/'cir.cleanupret'",
                        self.dfg.loc(color.expect("checked")),
                        "funclet entered here",
                    );
                }
                _ => {}
            }
        }
    }

    /// LLVM's funclet transition rules for every unwind edge, shared unwind destinations of
    /// each pad, and no cycles among pad unwind destinations.
    fn check_transitions(&self, colors: &SecondaryMap<Block, Vec<Option<Op>>>) {
        let mut exits: BTreeMap<Op, Vec<(Dest, Op)>> = BTreeMap::new();
        for &op in &self.index.ops {
            let kind = *self.dfg.kind(op);
            let name = kind.name();
            let block = self.index.op_block[op].expect("placed");
            // (source pad, destination) of this op's unwind edge, if it has one.
            let (from, dest): (Option<Op>, Dest) = match kind {
                OpKind::TryCall { .. } | OpKind::Throw { .. } => {
                    let Some(edge) = self
                        .cfg
                        .succs(block)
                        .iter()
                        .find(|e| e.op == op && e.kind == EdgeKind::Unwind)
                    else {
                        continue;
                    };
                    (colors[block].first().copied().flatten(), Some(edge.to))
                }
                OpKind::CleanupRet => {
                    let Some(pad) = self
                        .dfg
                        .operands(op)
                        .first()
                        .and_then(|&v| pad_of_token(self, v))
                    else {
                        continue;
                    };
                    if !matches!(self.dfg.kind(pad), OpKind::CleanupPad) {
                        continue;
                    }
                    match self
                        .cfg
                        .succs(block)
                        .iter()
                        .find(|e| e.kind == EdgeKind::Unwind)
                    {
                        Some(edge) => (Some(pad), Some(edge.to)),
                        None if self.dfg.successors(op).is_empty() => {
                            // Unwinds to the caller: exits every pad up to the root.
                            let mut cur = Some(pad);
                            let mut seen = Vec::new();
                            while let Some(p) = cur {
                                if seen.contains(&p) {
                                    break;
                                }
                                seen.push(p);
                                exits.entry(p).or_default().push((None, op));
                                cur = pad_parent(self, p);
                            }
                            continue;
                        }
                        None => continue,
                    }
                }
                OpKind::CatchSwitch { unwind_to_caller } => {
                    if unwind_to_caller {
                        // Exits only itself: a nested catchswitch that unwinds to the
                        // caller does not constrain the pads around it.
                        exits.entry(op).or_default().push((None, op));
                        continue;
                    }
                    match self
                        .cfg
                        .succs(block)
                        .iter()
                        .find(|e| e.kind == EdgeKind::Unwind)
                    {
                        Some(edge) => (Some(op), Some(edge.to)),
                        None => continue,
                    }
                }
                _ => continue,
            };
            let dest_block = dest.expect("edges above have a destination");
            let Some(to_pad) = block_pad(self, dest_block) else {
                continue; // reported by check_unwind_targets
            };
            if matches!(self.dfg.kind(to_pad), OpKind::CatchPad { .. }) {
                continue; // likewise
            }
            let to_parent = pad_parent(self, to_pad);
            if matches!(kind, OpKind::CleanupRet) && to_parent == from {
                self.op_error(
                    op,
                    format!(
                        "'cir.cleanupret' must exit its cleanup, but {} is nested inside it",
                        self.index.block_name(dest_block)
                    ),
                );
                continue;
            }
            // An error at the edge's op with a note at the destination's pad.
            let at_pad = |message: String| {
                self.error_with_note(
                    self.dfg.loc(op),
                    message,
                    self.dfg.loc(to_pad),
                    "pad defined here",
                )
            };
            let mut cur = from;
            let mut seen: Vec<Op> = Vec::new();
            loop {
                if cur == Some(to_pad) {
                    at_pad(format!(
                        "'{name}' unwinds to {}, whose pad it is inside: an EH pad cannot handle exceptions raised within it",
                        self.index.block_name(dest_block)
                    ));
                    break;
                }
                if cur == to_parent {
                    break;
                }
                match cur {
                    None => {
                        at_pad(format!(
                            "the unwind edge of '{name}' enters {}, whose pad's parent is not a funclet this edge unwinds out of",
                            self.index.block_name(dest_block)
                        ));
                        break;
                    }
                    Some(p) => {
                        if seen.contains(&p) {
                            self.op_error(
                                op,
                                "the pads this edge unwinds out of are nested in a cycle",
                            );
                            break;
                        }
                        seen.push(p);
                        exits.entry(p).or_default().push((dest, op));
                        cur = pad_parent(self, p);
                    }
                }
            }
        }
        // Every exit of a pad goes to the same place.
        let mut unwind_dest: BTreeMap<Op, Op> = BTreeMap::new();
        for (&pad, list) in &exits {
            let (first_dest, first_op) = list[0];
            if let Some(&(dest, op)) = list.iter().find(|(d, _)| *d != first_dest) {
                self.error(
                    Diagnostic::error(
                        self.dfg.loc(op),
                        format!(
                            "'{}' unwinds to {} out of the pad defined here, but another exit of that pad unwinds to {}; all unwind edges out of a pad must share one destination",
                            self.op_name(op),
                            self.dest_str(dest),
                            self.dest_str(first_dest)
                        ),
                    )
                    .with_note(self.dfg.loc(pad), "pad defined here")
                    .with_note(self.dfg.loc(first_op), "other exit here"),
                );
                continue;
            }
            if let Some(b) = first_dest
                && let Some(to) = block_pad(self, b)
            {
                unwind_dest.insert(pad, to);
            }
        }
        // No cycle among pad unwind destinations.
        let mut state: BTreeMap<Op, u8> = BTreeMap::new();
        for &start in unwind_dest.keys() {
            if state.contains_key(&start) {
                continue;
            }
            let mut path = Vec::new();
            let mut cur = start;
            loop {
                match state.get(&cur) {
                    Some(1) => {
                        // `path` ends with the cycle that leads back to `cur`.
                        let start = path.iter().position(|&p| p == cur).unwrap_or(0);
                        let mut d = Diagnostic::error(
                            self.dfg.loc(cur),
                            "EH pads unwind to each other in a cycle: a pad's unwind destination leads back to it",
                        );
                        for &p in &path[start + 1..] {
                            d = d.with_note(self.dfg.loc(p), "next pad in the cycle");
                        }
                        self.error(d);
                        break;
                    }
                    Some(_) => break,
                    None => {}
                }
                state.insert(cur, 1);
                path.push(cur);
                match unwind_dest.get(&cur) {
                    Some(&next) => cur = next,
                    None => break,
                }
            }
            for p in path {
                state.insert(p, 2);
            }
        }
    }
}
