//! A check, before a run, that every op has the operands, results, successors and
//! regions the interpreter reads, so that executing unverified IR reports an error
//! instead of indexing out of bounds. The counts are the op table's
//! ([`ehir_core::ops::table`]).

use ehir_core::{Function, Module, OpKind};

/// `(operands, results, successors, regions)` an op needs at least: the least counts
/// its row of the op table allows (a missing list payload counts as an empty one).
fn minimum(func: &Function, kind: &OpKind) -> (usize, usize, usize, usize) {
    let extras = &func.dfg.extras;
    let successors = match kind.successor_count(func.phase, extras) {
        Ok(range) => range.min,
        Err(missing) => missing.base,
    };
    let regions = match kind.region_count(extras) {
        Ok(range) => range.min,
        Err(missing) => missing.base,
    };
    (
        kind.operand_count().min,
        kind.result_count().min,
        successors,
        regions,
    )
}

/// Every op of every defined function has the shape the interpreter needs; the first
/// violation is described.
pub fn check(module: &Module) -> Result<(), String> {
    for (_, func) in module.functions.iter() {
        if func.is_declaration() {
            continue;
        }
        for op in func.walk_ops() {
            let kind = func.dfg.kind(op);
            let (o, r, s, g) = minimum(func, kind);
            let dfg = &func.dfg;
            if dfg.operands(op).len() < o
                || dfg.results(op).len() < r
                || dfg.successors(op).len() < s
                || dfg.regions(op).len() < g
            {
                return Err(format!(
                    "malformed {} in @{}: it needs at least {o} operands, {r} results, {s} successors and {g} regions",
                    kind.name(),
                    module.ctx.name(func.name)
                ));
            }
        }
    }
    Ok(())
}
