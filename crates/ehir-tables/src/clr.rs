//! CLR EH clauses for an MSVC-phase (funclet) function, following the LLILC notes' contract
//! with the CLR execution engine, and a check of its seven rules.
//!
//! - Code layout: the function's own blocks first (block order), then each funclet (a
//!   catchpad or cleanuppad and the blocks coloured with it), in the order its pad appears;
//!   catchswitch blocks hold no code. Every op is one unit of code, so a block covers
//!   `[start, end)` offsets.
//! - A pad protects the blocks whose invokes (`cir.try_call`, `cir.throw` with an unwind
//!   destination) have it on their unwind chain (the chain follows a cleanuppad's
//!   `cir.cleanupret` and a catchswitch's unwind destination).
//! - Clauses: each handler of a catchswitch is a `catch` clause (its TypeDescriptor, or
//!   `...`) and each cleanuppad a `fault` clause (it runs only on exceptions); the try
//!   range is each maximal run of protected code, the handler range the funclet's code. A
//!   pad whose protected code is not contiguous gets one clause per run, all but the first
//!   marked `duplicate` (rule 5).
//! - Clauses are sorted inner first, then by address (rule 7): by try end, then try start
//!   descending, then the pad's depth on the unwind chains.
//! - Checked: handlers are disjoint (1) and disjoint from the non-handler code (2), which
//!   is contiguous and first (6); overlapping try ranges nest (4) — two pads with the same
//!   range are allowed when one unwinds into the other (they nest by order); the order is
//!   inner first, then by address (7). C++ has no filter clauses (3 is vacuous).

use crate::TablesError;
use ehir_core::analysis::funclet_colors;
use ehir_core::{Block, Diagnostic, Function, ModuleCtx, Op, OpKind};
use std::collections::{BTreeMap, BTreeSet};

/// What a clause's handler does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseKind {
    /// `catch` of a type (TypeDescriptor symbol) or of everything (`None`).
    Catch(Option<String>),
    /// `fault`: runs when an exception leaves the try range.
    Fault,
}

/// One EH clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    pub kind: ClauseKind,
    pub try_start: u32,
    pub try_end: u32,
    pub handler_start: u32,
    pub handler_end: u32,
    /// Another run of a protected region already reported for the same handler.
    pub duplicate: bool,
    /// The catchpad or cleanuppad whose funclet is the handler.
    pub pad: Op,
}

/// The clauses of one function and the code layout they refer to.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ClrEh {
    /// Blocks in layout order with their `[start, end)` offsets.
    pub layout: Vec<(Block, u32, u32)>,
    /// End of the non-handler code.
    pub main_end: u32,
    pub clauses: Vec<Clause>,
}

fn error(func: &Function, op: Option<Op>, message: impl Into<String>) -> TablesError {
    let loc = op.map(|o| func.dfg.loc(o)).unwrap_or(func.loc);
    TablesError::Ir(Diagnostic::error(
        if loc == ehir_core::Loc::NONE {
            func.loc
        } else {
            loc
        },
        message,
    ))
}

/// The CLR EH clauses of an MSVC-phase function (`None`: no EH pads). The function is
/// verified first ([`TablesError::Input`]).
pub fn function_clauses(ctx: &ModuleCtx, func: &Function) -> Result<Option<ClrEh>, TablesError> {
    crate::verify_then(ctx, func, || verified_function_clauses(ctx, func))
}

/// [`function_clauses`] of a function already verified.
pub(crate) fn verified_function_clauses(
    ctx: &ModuleCtx,
    func: &Function,
) -> Result<Option<ClrEh>, TablesError> {
    let Some(body) = func.body else {
        return Ok(None);
    };
    let blocks: Vec<Block> = func.layout.blocks(body).collect();
    let first_pad = |b: Block| {
        func.layout.first_op(b).filter(|&op| {
            matches!(
                func.dfg.kind(op),
                OpKind::CatchSwitch { .. } | OpKind::CatchPad { .. } | OpKind::CleanupPad
            )
        })
    };
    if !blocks.iter().any(|&b| first_pad(b).is_some()) {
        return Ok(None);
    }
    let colors = funclet_colors(func);
    for &b in &blocks {
        if colors[b].len() > 1 {
            return Err(error(
                func,
                func.layout.first_op(b),
                "a block belongs to two funclets; the CLR needs each handler's code apart",
            ));
        }
    }
    let color = |b: Block| colors[b].first().copied().flatten();
    // Layout: own code, then each funclet (catchswitch blocks hold no code).
    let mut funclets: Vec<Op> = Vec::new();
    let mut placed_funclets: BTreeSet<Op> = BTreeSet::new();
    for &b in &blocks {
        if let Some(p) = color(b)
            && !matches!(func.dfg.kind(p), OpKind::CatchSwitch { .. })
            && placed_funclets.insert(p)
        {
            funclets.push(p);
        }
    }
    let mut layout: Vec<(Block, u32, u32)> = Vec::new();
    let place = |b: Block, layout: &mut Vec<(Block, u32, u32)>| {
        let start = layout.last().map(|l| l.2).unwrap_or(0);
        let n = func.layout.ops(b).count() as u32;
        layout.push((b, start, start + n));
    };
    for &b in &blocks {
        // Unreachable blocks (no colour) hold no code.
        if !colors[b].is_empty() && color(b).is_none() {
            place(b, &mut layout);
        }
    }
    let main_end = layout.last().map(|l| l.2).unwrap_or(0);
    let mut funclet_blocks: BTreeMap<Op, Vec<Block>> = BTreeMap::new();
    for &b in &blocks {
        if let Some(p) = color(b) {
            funclet_blocks.entry(p).or_default().push(b);
        }
    }
    let mut handler_range: BTreeMap<Op, (u32, u32)> = BTreeMap::new();
    for &p in &funclets {
        let start = layout.last().map(|l| l.2).unwrap_or(0);
        for &b in funclet_blocks.get(&p).into_iter().flatten() {
            place(b, &mut layout);
        }
        let end = layout.last().map(|l| l.2).unwrap_or(0);
        handler_range.insert(p, (start, end));
    }
    // The unwind destination of each cleanuppad (its first cir.cleanupret).
    let mut cleanupret_dest: BTreeMap<Op, Option<Block>> = BTreeMap::new();
    for &b in &blocks {
        if let Some(term) = func.layout.last_op(b)
            && matches!(func.dfg.kind(term), OpKind::CleanupRet)
            && let Some(&token) = func.dfg.operands(term).first()
            && let ehir_core::ValueDef::Result(pad, 0) = func.dfg.value_def(token)
        {
            cleanupret_dest
                .entry(pad)
                .or_insert_with(|| func.dfg.successor_blocks(term).next());
        }
    }
    // The next pad after a pad on an unwind chain.
    let next_pad = |pad: Op| -> Option<Op> {
        let dest = match func.dfg.kind(pad) {
            OpKind::CatchSwitch {
                unwind_to_caller: false,
            } => func.dfg.successor_blocks(pad).last(),
            OpKind::CleanupPad => cleanupret_dest.get(&pad).copied().flatten(),
            _ => None,
        }?;
        first_pad(dest)
    };
    // The pad each block's invoke unwinds to.
    let raise_dest = |b: Block| -> Option<Op> {
        let term = func.layout.last_op(b)?;
        let dest = match func.dfg.kind(term) {
            OpKind::TryCall { .. } => func.dfg.successor_blocks(term).nth(1),
            OpKind::Throw { .. } => func.dfg.successor_blocks(term).next(),
            _ => None,
        }?;
        first_pad(dest)
    };
    // raised_before[k]: blocks that can raise before layout position k.
    let mut raised_before = vec![0usize; layout.len() + 1];
    for (k, &(b, _, _)) in layout.iter().enumerate() {
        raised_before[k + 1] = raised_before[k] + usize::from(raise_dest(b).is_some());
    }
    // Protected runs of each pad: the blocks whose invoke unwinds to it, and the runs of
    // the pads that unwind into it (their code is inside this pad's try), merged where
    // only blocks of the same funclet that cannot raise lie between. Pads are visited
    // after every pad that unwinds into them; each run is (start, end, first layout
    // index, last layout index).
    type Run = (u32, u32, usize, usize);
    let mut direct: BTreeMap<Op, Vec<Run>> = BTreeMap::new();
    for (i, &(b, start, end)) in layout.iter().enumerate() {
        if let Some(p) = raise_dest(b) {
            direct.entry(p).or_default().push((start, end, i, i));
        }
    }
    let mut pads: Vec<Op> = Vec::new();
    for &b in &blocks {
        if let Some(p) = first_pad(b)
            && matches!(
                func.dfg.kind(p),
                OpKind::CatchSwitch { .. } | OpKind::CleanupPad
            )
        {
            pads.push(p);
        }
    }
    let mut into: BTreeMap<Op, Vec<Op>> = BTreeMap::new();
    let mut pending: BTreeMap<Op, usize> = BTreeMap::new();
    for &p in &pads {
        pending.entry(p).or_insert(0);
        if let Some(n) = next_pad(p) {
            into.entry(n).or_default().push(p);
            *pending.entry(n).or_insert(0) += 1;
        }
    }
    let mut ready: Vec<Op> = pads.iter().copied().filter(|p| pending[p] == 0).collect();
    let mut runs: BTreeMap<Op, Vec<Run>> = BTreeMap::new();
    let mut depth: BTreeMap<Op, usize> = BTreeMap::new();
    while let Some(p) = ready.pop() {
        let mut all: Vec<Run> = direct.remove(&p).unwrap_or_default();
        let mut d = if all.is_empty() { usize::MAX } else { 0 };
        for q in into.get(&p).into_iter().flatten() {
            all.extend(runs.get(q).into_iter().flatten().copied());
            if let Some(&dq) = depth.get(q)
                && dq != usize::MAX
            {
                d = d.min(dq + 1);
            }
        }
        all.sort();
        let mut merged: Vec<Run> = Vec::with_capacity(all.len());
        for r in all {
            match merged.last_mut() {
                // Funclets are contiguous in the layout, so the same colour at both ends
                // means nothing of another funclet lies between.
                Some(last)
                    if r.2 <= last.3
                        || (color(layout[last.3].0) == color(layout[r.2].0)
                            && raised_before[r.2] == raised_before[last.3 + 1]) =>
                {
                    last.1 = last.1.max(r.1);
                    last.3 = last.3.max(r.3);
                }
                _ => merged.push(r),
            }
        }
        runs.insert(p, merged);
        depth.insert(p, d);
        if let Some(n) = next_pad(p)
            && let Some(c) = pending.get_mut(&n)
        {
            *c -= 1;
            if *c == 0 {
                ready.push(n);
            }
        }
    }
    if runs.len() < pads.len() {
        return Err(error(func, None, "EH pads unwind to each other in a cycle"));
    }
    runs.retain(|_, r| !r.is_empty());
    // Clauses.
    let mut clauses = Vec::new();
    let mut order_key: BTreeMap<usize, usize> = BTreeMap::new();
    for (pad, pad_runs) in &runs {
        let handlers: Vec<(ClauseKind, Op)> = match func.dfg.kind(*pad) {
            OpKind::CatchSwitch { unwind_to_caller } => {
                let succs: Vec<Block> = func.dfg.successor_blocks(*pad).collect();
                let n = if *unwind_to_caller {
                    succs.len()
                } else {
                    succs.len().saturating_sub(1)
                };
                let mut v = Vec::new();
                for &h in &succs[..n] {
                    let Some(cp) = func.layout.first_op(h) else {
                        continue;
                    };
                    if let OpKind::CatchPad { type_desc, .. } = func.dfg.kind(cp) {
                        let name = type_desc.expand().map(|s| ctx.name(s).to_string());
                        v.push((ClauseKind::Catch(name), cp));
                    }
                }
                v
            }
            OpKind::CleanupPad => vec![(ClauseKind::Fault, *pad)],
            _ => Vec::new(),
        };
        for (kind, handler_pad) in handlers {
            let Some(&(hs, he)) = handler_range.get(&handler_pad) else {
                continue;
            };
            for (i, &(ts, te, _, _)) in pad_runs.iter().filter(|r| r.1 > r.0).enumerate() {
                order_key.insert(clauses.len(), depth.get(pad).copied().unwrap_or(usize::MAX));
                clauses.push(Clause {
                    kind: kind.clone(),
                    try_start: ts,
                    try_end: te,
                    handler_start: hs,
                    handler_end: he,
                    duplicate: i > 0,
                    pad: handler_pad,
                });
            }
        }
    }
    let mut indexed: Vec<(usize, Clause)> = clauses.into_iter().enumerate().collect();
    indexed.sort_by(|(ia, a), (ib, b)| {
        (
            a.try_end,
            std::cmp::Reverse(a.try_start),
            order_key[ia],
            a.handler_start,
        )
            .cmp(&(
                b.try_end,
                std::cmp::Reverse(b.try_start),
                order_key[ib],
                b.handler_start,
            ))
    });
    let clauses: Vec<Clause> = indexed.into_iter().map(|(_, c)| c).collect();
    Ok(Some(ClrEh {
        layout,
        main_end,
        clauses,
    }))
}

/// How a clause is printed: `catch TYPE`, `catch ...` or `fault`.
fn clause_type(clause: &Clause) -> String {
    match &clause.kind {
        ClauseKind::Fault => "fault".to_string(),
        ClauseKind::Catch(None) => "catch ...".to_string(),
        ClauseKind::Catch(Some(name)) => format!("catch {name}"),
    }
}

/// Checks the CLR's rules on a clause table; returns the violations.
pub fn check_rules(eh: &ClrEh) -> Vec<String> {
    let mut problems = Vec::new();
    let handlers: Vec<(u32, u32, Op)> = {
        let mut v: Vec<(u32, u32, Op)> = eh
            .clauses
            .iter()
            .map(|c| (c.handler_start, c.handler_end, c.pad))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    // 1: handlers disjoint.
    for w in handlers.windows(2) {
        if w[0].1 > w[1].0 {
            problems.push(format!(
                "rule 1: handlers [{}, {}) and [{}, {}) overlap",
                w[0].0, w[0].1, w[1].0, w[1].1
            ));
        }
    }
    // 2 and 6: handlers after all non-handler code, which starts at 0.
    for &(s, e, _) in &handlers {
        if s < eh.main_end {
            problems.push(format!(
                "rule 2/6: handler [{s}, {e}) overlaps or precedes non-handler code [0, {})",
                eh.main_end
            ));
        }
    }
    // 4: overlapping try ranges nest: a sweep over the distinct ranges sorted by start
    // (longer first), with the stack of ranges still open.
    let mut ranges: Vec<(u32, u32)> = eh
        .clauses
        .iter()
        .map(|c| (c.try_start, c.try_end))
        .filter(|r| r.1 > r.0)
        .collect();
    ranges.sort_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
    ranges.dedup();
    let mut open: Vec<(u32, u32)> = Vec::new();
    for (s, e) in ranges {
        while open.last().is_some_and(|&(_, oe)| oe <= s) {
            open.pop();
        }
        if let Some(&(os, oe)) = open.last()
            && e > oe
        {
            problems.push(format!(
                "rule 4: try ranges [{os}, {oe}) and [{s}, {e}) overlap without nesting"
            ));
        }
        open.push((s, e));
    }
    // 5: one non-duplicate clause per (handler, try) pair.
    let mut firsts: BTreeMap<(Op, u32, u32), usize> = BTreeMap::new();
    for c in eh.clauses.iter().filter(|c| !c.duplicate) {
        *firsts
            .entry((c.pad, c.handler_start, c.handler_end))
            .or_default() += 1;
    }
    for ((_, s, e), n) in firsts {
        if n > 1 {
            problems.push(format!(
                "rule 5: handler [{s}, {e}) has {n} clauses not marked duplicate"
            ));
        }
    }
    // 7: inner before outer, lower address first. With nested or disjoint ranges (rule
    // 4), that order is the one by end, then start from the last.
    for w in eh.clauses.windows(2) {
        let key = |c: &Clause| (c.try_end, std::cmp::Reverse(c.try_start));
        if key(&w[1]) < key(&w[0]) {
            problems.push(format!(
                "rule 7: clause with try [{}, {}) must precede the one with try [{}, {})",
                w[1].try_start, w[1].try_end, w[0].try_start, w[0].try_end
            ));
        }
    }
    problems
}

/// Renders a clause table as text (see the crate docs for the format).
pub fn render(ctx: &ModuleCtx, func: &Function, eh: &ClrEh) -> String {
    use std::fmt::Write;
    let summary = format!(
        "{} clauses, code [0, {}), handlers from {}",
        eh.clauses.len(),
        eh.layout.last().map(|l| l.2).unwrap_or(0),
        eh.main_end
    );
    crate::render_function_table(ctx, func, &summary, |names, out| {
        out.push_str("  layout:");
        for (b, s, e) in &eh.layout {
            let _ = write!(out, " {}[{s}, {e})", names.block(*b));
        }
        out.push('\n');
        out.push_str("  clauses:\n");
        for c in &eh.clauses {
            let handler_block = func
                .layout
                .op_block(c.pad)
                .map(|b| names.block(b))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {}: try [{}, {}) handler [{}, {}) at {}{}",
                clause_type(c),
                c.try_start,
                c.try_end,
                c.handler_start,
                c.handler_end,
                handler_block,
                if c.duplicate { " duplicate" } else { "" }
            );
        }
        let problems = check_rules(eh);
        if problems.is_empty() {
            out.push_str("  rules: ok\n");
        } else {
            for p in problems {
                let _ = writeln!(out, "  violation: {p}");
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ehir_core::EntityRef;

    fn clause(try_range: (u32, u32), handler: (u32, u32), pad: usize, duplicate: bool) -> Clause {
        Clause {
            kind: ClauseKind::Fault,
            try_start: try_range.0,
            try_end: try_range.1,
            handler_start: handler.0,
            handler_end: handler.1,
            duplicate,
            pad: Op::new(pad),
        }
    }

    fn table(clauses: Vec<Clause>) -> ClrEh {
        ClrEh {
            layout: Vec::new(),
            main_end: 10,
            clauses,
        }
    }

    #[test]
    fn well_formed_tables_pass() {
        let eh = table(vec![
            clause((2, 4), (10, 12), 0, false),
            clause((0, 6), (12, 14), 1, false),
            clause((10, 12), (12, 14), 1, true),
        ]);
        assert_eq!(check_rules(&eh), Vec::<String>::new());
    }

    #[test]
    fn each_rule_is_checked() {
        // (what the table does wrong, its clauses as (try, handler, pad, duplicate), the
        // rule it breaks)
        type Row = (u32, u32, u32, u32, usize, bool);
        let cases: &[(&str, &[Row], &str)] = &[
            (
                "crossing try ranges",
                &[(0, 4, 10, 12, 0, false), (2, 6, 12, 14, 1, false)],
                "rule 4",
            ),
            (
                "outer before inner",
                &[(0, 6, 12, 14, 1, false), (2, 4, 10, 12, 0, false)],
                "rule 7",
            ),
            (
                "higher address before lower",
                &[(4, 6, 12, 14, 1, false), (0, 2, 10, 12, 0, false)],
                "rule 7",
            ),
            (
                "a handler inside the non-handler code",
                &[(0, 2, 8, 11, 0, false)],
                "rule 2/6",
            ),
            (
                "overlapping handlers",
                &[(0, 2, 10, 13, 0, false), (0, 4, 12, 14, 1, false)],
                "rule 1",
            ),
            (
                "the same handler twice without `duplicate`",
                &[(0, 2, 10, 12, 0, false), (4, 6, 10, 12, 0, false)],
                "rule 5",
            ),
        ];
        for &(what, rows, rule) in cases {
            let eh = table(
                rows.iter()
                    .map(|&(try_start, try_end, start, end, pad, duplicate)| {
                        clause((try_start, try_end), (start, end), pad, duplicate)
                    })
                    .collect(),
            );
            let problems = check_rules(&eh);
            assert!(
                problems.iter().any(|p| p.starts_with(rule)),
                "{what}: expected {rule}, got {problems:?}"
            );
        }
    }
}
