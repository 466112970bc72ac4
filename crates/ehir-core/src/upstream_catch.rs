//! Upstream ClangIR's structured catch handlers in ehir's form.
//!
//! Upstream writes a catch handler that begins the catch itself and ends it in a cleanup:
//! ```text
//! } catch all (%t : !cir.eh_token) {
//!   %c, %e = cir.begin_catch %t : !cir.eh_token -> (!cir.catch_token, !cir.ptr<!void>)
//!   cir.cleanup.scope { ... } cleanup eh { cir.end_catch %c : !cir.catch_token  cir.yield }
//!   cir.yield
//! }
//! ```
//! ehir's structured phase begins the catch when a handler is entered (`%e =
//! cir.catch_param : !cir.ptr<T>`, the handler's first op) and ends it when the handler
//! is left, normally or by an exception. The two agree when every `cir.end_catch` of the
//! handler sits where the handler is left: just before the terminator of the handler
//! region, or of the body or cleanup region of a `cir.cleanup.scope` (or the body of a
//! `cir.scope`) that itself sits so, as upstream nests them (a lifetime cleanup around
//! the catch). [`rewrite_structured_catches`] rewrites such handlers; any other placement
//! of `cir.end_catch` is reported as not supported yet (flatten-cfg flattens upstream's
//! handlers as written and needs no rewrite). [`expand_construct_catch_params`] first
//! makes `cir.construct_catch_param` the ops that build the catch parameter.

use crate::cursor::{CursorPosition, FuncCursor};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::entities::{Op, Region};
use crate::function::{Function, Phase};
use crate::ops::{CallFlags, CastKind, ExtraData, HandlerKey, OpKind};
use crate::symbols::SymbolTable;
use crate::types::TypeStore;

/// Whether `func` is structured and holds `cir.begin_catch` (upstream's catch handlers)
/// or `cir.construct_catch_param`.
pub fn has_structured_catches(func: &Function) -> bool {
    let is_upstream_catch = |kind: &OpKind| {
        matches!(
            kind,
            OpKind::BeginCatch | OpKind::ConstructCatchParam { .. }
        )
    };
    func.phase == Phase::Structured
        // A scan of the op table (placed or not) is much cheaper than the walk of the body,
        // and almost always finds nothing.
        && func.dfg.ops.values().any(|data| is_upstream_catch(&data.kind))
        && func
            .walk_ops()
            .into_iter()
            .any(|op| is_upstream_catch(func.dfg.kind(op)))
}

/// Expands each `cir.construct_catch_param` of a structured `func` into the ops that
/// construct the catch parameter, after the `cir.begin_catch` that follows it (which the
/// verifier requires):
/// ```text
/// cir.construct_catch_param non_trivial_copy %t to %p using @thunk : !cir.ptr<T>
/// %c, %e = cir.begin_catch %t : !cir.eh_token -> (!cir.catch_token, !cir.ptr<X>)
/// ```
/// becomes `%c, %e = cir.begin_catch ...`, `%o = cir.cast bitcast %e : !cir.ptr<X> ->
/// !cir.ptr<T>` (when X is not T) and `cir.try { cir.call @thunk(%p, %o) } terminate {
/// cir.unreachable }` (a copy constructor that throws terminates, as C++ wants);
/// `trivial_copy` loads the object and stores it to `%p`. The catch is begun before the
/// parameter is built, as ehir's own catch by value does (only `std::uncaught_exceptions()`
/// in the copy constructor can tell). Other kinds (`reference_to_pointer`) are reported
/// as not supported yet. Returns whether anything changed.
pub fn expand_construct_catch_params(
    func: &mut Function,
    symbols: &SymbolTable,
    types: &mut TypeStore,
) -> Result<bool, Diagnostics> {
    if func.phase != Phase::Structured {
        return Ok(false);
    }
    let constructs: Vec<Op> =
        func.ops_where(|kind| matches!(kind, OpKind::ConstructCatchParam { .. }));
    if constructs.is_empty() {
        return Ok(false);
    }
    let common = *types.common();
    let mut errors = Vec::new();
    for cc in constructs {
        let OpKind::ConstructCatchParam { kind, thunk } = *func.dfg.kind(cc) else {
            continue;
        };
        let loc = func.dfg.loc(cc);
        let unsupported = |what: String| {
            Diagnostic::error(
                loc,
                format!("not supported yet: 'cir.construct_catch_param' {what}"),
            )
        };
        let kind_name = symbols.get(kind);
        let (token, dest) = match func.dfg.operands(cc) {
            &[t, d] => (t, d),
            _ => continue,
        };
        let begin = func.layout.next_op(cc).filter(|&b| {
            matches!(func.dfg.kind(b), OpKind::BeginCatch)
                && func.dfg.operands(b).first() == Some(&token)
        });
        let Some(begin) = begin else {
            errors.push(unsupported(
                "without the 'cir.begin_catch' of its token right after it".into(),
            ));
            continue;
        };
        let Some(&exn) = func.dfg.results(begin).get(1) else {
            errors.push(unsupported(
                "before a 'cir.begin_catch' without the exception pointer result".into(),
            ));
            continue;
        };
        let dest_ty = func.dfg.value_type(dest);
        let Some(param_ty) = types.pointee(dest_ty) else {
            continue;
        };
        let copy = match kind_name {
            Some("non_trivial_copy") if thunk.expand().is_some() => true,
            Some("trivial_copy") => false,
            _ => {
                errors.push(unsupported(format!(
                    "of kind '{}'",
                    kind_name.unwrap_or("?")
                )));
                continue;
            }
        };
        let exn_ty = func.dfg.value_type(exn);
        let Some(after) = func.layout.next_op(begin) else {
            continue;
        };
        let mut at = FuncCursor::at(func, &common, CursorPosition::Before(after)).with_loc(loc);
        let object = if exn_ty == dest_ty {
            exn
        } else {
            at.cast(CastKind::Bitcast, exn, dest_ty)
        };
        if copy {
            let sig = types.func(vec![dest_ty, dest_ty], None, false);
            let handlers = at
                .func
                .dfg
                .make_extra(ExtraData::Handlers(vec![HandlerKey::Terminate]));
            let (_, blocks) = at.region_op_with(OpKind::Try { handlers }, &[], &[], 2);
            let (body, terminate) = (blocks[0], blocks[1]);
            let func = &mut *at.func;
            let mut inside = FuncCursor::at_end(func, &common, body).with_loc(loc);
            inside.call(
                thunk.expand(),
                sig,
                CallFlags::default(),
                &[dest, object],
                None,
            );
            inside.yield_values(&[]);
            FuncCursor::at_end(func, &common, terminate)
                .with_loc(loc)
                .unreachable();
        } else {
            let value = at.load(object, param_ty);
            at.store(value, dest);
        }
        func.layout.remove_op(cc);
    }
    if errors.is_empty() {
        Ok(true)
    } else {
        Err(Diagnostics(errors))
    }
}

/// Rewrites upstream's catch handlers of a structured `func` (see the module
/// documentation) into `cir.catch_param` handlers; `void_ptr` is `!cir.ptr<!void>`, the
/// parameter's type when `cir.begin_catch` has no exception-pointer result. Returns
/// whether anything changed; on an unsupported placement of `cir.end_catch` nothing is
/// changed.
pub fn rewrite_structured_catches(
    func: &mut Function,
    void_ptr: crate::entities::Type,
) -> Result<bool, Diagnostics> {
    if func.phase != Phase::Structured {
        return Ok(false);
    }
    let ops = func.walk_ops();
    let begins: Vec<Op> = ops
        .iter()
        .copied()
        .filter(|&op| matches!(func.dfg.kind(op), OpKind::BeginCatch))
        .collect();
    if begins.is_empty() {
        return Ok(false);
    }
    let mut errors = Vec::new();
    let mut ends: Vec<Op> = Vec::new();
    for &begin in &begins {
        let Some(handler) = func
            .dfg
            .operands(begin)
            .first()
            .and_then(|&t| handler_of(func, t))
        else {
            continue;
        };
        let Some(&token) = func.dfg.results(begin).first() else {
            continue;
        };
        for &user in &ops {
            if !func.dfg.operands(user).contains(&token)
                && !func
                    .dfg
                    .successors(user)
                    .iter()
                    .any(|&s| func.dfg.successor_args(s).contains(&token))
            {
                continue;
            }
            let is_end = matches!(func.dfg.kind(user), OpKind::EndCatch);
            if is_end && at_handler_exit(func, user, handler) {
                ends.push(user);
            } else {
                errors.push(Diagnostic::error(
                    func.dfg.loc(user),
                    format!(
                        "not supported yet: '{}' of a catch token before the end of its catch handler (upstream's structured catch form)",
                        func.dfg.kind(user).name()
                    ),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    for end in ends {
        func.layout.remove_op(end);
    }
    for begin in begins {
        let results = func.dfg.results(begin).to_vec();
        let ty = results.get(1).map_or(void_ptr, |&e| func.dfg.value_type(e));
        let loc = func.dfg.loc(begin);
        let param = func
            .dfg
            .make_op(OpKind::CatchParam, &[], &[ty], &[], 0, loc);
        // ehir's catch begins as the handler is entered: the parameter comes first.
        let entry = func
            .dfg
            .operands(begin)
            .first()
            .and_then(|&t| handler_of(func, t))
            .and_then(|h| func.layout.entry_block(h));
        match entry {
            Some(entry) => func.layout.prepend_op(param, entry),
            None => func.layout.insert_op_before(param, begin),
        }
        func.layout.remove_op(begin);
        if let Some(&exn) = results.get(1) {
            let new = func.dfg.result(param);
            let all = func.walk_ops();
            func.dfg.replace_uses_in(&all, exn, new);
        }
    }
    Ok(true)
}

/// The region that holds `op`.
fn op_region(func: &Function, op: Op) -> Option<Region> {
    func.layout
        .op_block(op)
        .and_then(|b| func.layout.block_region(b))
}

/// Whether `op` sits where the catch handler `handler` is left: it is followed only by the
/// terminator of a one-block region that is the handler itself, or the body or cleanup of
/// a `cir.cleanup.scope` or the body of a `cir.scope` that sits so in turn.
fn at_handler_exit(func: &Function, op: Op, handler: Region) -> bool {
    let before_terminator = |op: Op| {
        func.layout
            .next_op(op)
            .is_some_and(|next| func.is_terminator(next) && func.layout.next_op(next).is_none())
    };
    let mut op = op;
    loop {
        let Some(region) = op_region(func, op) else {
            return false;
        };
        let one_block = func.layout.blocks(region).nth(1).is_none();
        if !(one_block && before_terminator(op)) {
            return false;
        }
        if region == handler {
            return true;
        }
        match func.dfg.region_parent(region) {
            Some(parent)
                if matches!(
                    func.dfg.kind(parent),
                    OpKind::CleanupScope { .. } | OpKind::Scope
                ) =>
            {
                op = parent;
            }
            _ => return false,
        }
    }
}

/// The catch handler region whose entry block takes `token` as a parameter.
fn handler_of(func: &Function, token: crate::entities::Value) -> Option<Region> {
    match func.dfg.value_def(token) {
        crate::dfg::ValueDef::Param(block, _) => func.layout.block_region(block),
        _ => None,
    }
}
