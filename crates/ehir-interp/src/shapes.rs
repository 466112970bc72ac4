//! A check, before a run, that every op has the operands, results, successors and
//! regions the interpreter reads, so that executing unverified IR reports an error
//! instead of indexing out of bounds.

use ehir_core::{ExtraData, Function, Module, OpKind};

/// `(operands, results, successors, regions)` an op needs at least.
fn minimum(func: &Function, kind: &OpKind) -> (usize, usize, usize, usize) {
    use OpKind::*;
    match *kind {
        Const { .. }
        | Alloca { .. }
        | GetGlobal { .. }
        | AllocException { .. }
        | EhInitiate { .. }
        | EhTypeId { .. }
        | BlockAddress { .. }
        | CleanupPad
        | CatchPad { .. }
        | BeginCleanup
        | BeginCatch
        | CatchParam => (0, 1, 0, 0),
        Load { .. } | Unary(_) | Cast(_) | GetMember { .. } => (1, 1, 0, 0),
        BaseClassAddr { .. } | DerivedClassAddr { .. } => (1, 1, 0, 0),
        Store { .. } => (2, 0, 0, 0),
        Binary(_) | Cmp(_) | PtrStride => (2, 1, 0, 0),
        Select => (3, 1, 0, 0),
        Br => (0, 0, 1, 0),
        BrCond => (1, 0, 2, 0),
        SwitchFlat { cases } => {
            let n = match func.dfg.extra(cases) {
                ExtraData::Cases(c) => c.len(),
                _ => 0,
            };
            (1, 0, n + 1, 0)
        }
        IndirectBr | ResumeFlat | CleanupRet | EndCleanup | EndCatch | FreeException => {
            (1, 0, 0, 0)
        }
        TryCall { callee, .. } => (usize::from(callee.is_none()), 0, 2, 0),
        CatchSwitch { unwind_to_caller } => (0, 0, usize::from(!unwind_to_caller), 0),
        CatchRet => (1, 0, 1, 0),
        Scope | Case { .. } | Switch | ArrayCtor | ArrayDtor => (0, 0, 0, 1),
        If => (1, 0, 0, 1),
        While | DoWhile => (0, 0, 0, 2),
        For => (0, 0, 0, 3),
        Ternary => (1, 0, 0, 2),
        CleanupScope { .. } => (0, 0, 0, 2),
        Try { handlers } => (0, 0, 0, 1 + func.dfg.handlers(handlers).len()),
        Call { callee, .. } => (usize::from(callee.is_none()), 0, 0, 0),
        EhDispatch { keys } => (0, 0, func.dfg.handlers(keys).len(), 0),
        _ => (0, 0, 0, 0),
    }
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
