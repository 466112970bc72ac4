//! `canonicalize` (`cir-opt -cir-canonicalize`): upstream ClangIR's cleanup-scope
//! canonicalizations on structured functions.
//!
//! - A `cir.cleanup.scope ... cleanup eh` whose body is only `cir.yield` is erased: nothing
//!   in it can throw, so its cleanup never runs.
//! - A `cir.cleanup.scope` whose cleanup region is only `cir.yield` (any kind) is replaced
//!   by its body, when the body is one block that ends in a plain `cir.yield`.
//!
//! Scopes are visited innermost first, so an inner scope that goes away can make its outer
//! scope canonicalizable in the same run.

use crate::manager::Pass;
use crate::pass::FunctionStep;
use ehir_core::{CleanupKind, Function, Module, Op, OpKind, Phase, Region};

/// `canonicalize`.
pub struct Canonicalize;

impl Pass for Canonicalize {
    fn name(&self) -> &'static str {
        "canonicalize"
    }
    fn function_step(&self, _: &Module) -> Option<FunctionStep<'_>> {
        Some(FunctionStep::on_definitions_in(
            Phase::Structured,
            |_, func| {
                canonicalize_cleanup_scopes(func);
                Ok(())
            },
        ))
    }
}

/// Applies the cleanup-scope canonicalizations to one structured function.
pub fn canonicalize_cleanup_scopes(func: &mut Function) {
    let scopes: Vec<Op> = func.ops_where(|kind| matches!(kind, OpKind::CleanupScope { .. }));
    // `walk_ops` lists an op before the ops nested in it: reversed, inner scopes first.
    for scope in scopes.into_iter().rev() {
        let OpKind::CleanupScope { kind } = *func.dfg.kind(scope) else {
            continue;
        };
        let (body, cleanup) = match func.dfg.regions(scope) {
            &[body, cleanup] => (body, cleanup),
            _ => continue,
        };
        if kind == CleanupKind::Eh && only_yield(func, body) {
            func.layout.remove_op(scope);
        } else if only_yield(func, cleanup) {
            inline_body(func, scope, body);
        }
    }
}

/// Whether `region` is one block holding only a `cir.yield` without operands.
fn only_yield(func: &Function, region: Region) -> bool {
    let mut blocks = func.layout.blocks(region);
    let (Some(block), None) = (blocks.next(), blocks.next()) else {
        return false;
    };
    let mut ops = func.layout.ops(block);
    matches!(
        (ops.next(), ops.next()),
        (Some(y), None) if is_plain_yield(func, y)
    )
}

fn is_plain_yield(func: &Function, op: Op) -> bool {
    matches!(func.dfg.kind(op), OpKind::Yield) && func.dfg.operands(op).is_empty()
}

/// Replaces `scope` by the ops of its one-block `body` (without the final `cir.yield`);
/// leaves it alone when the body has several blocks or ends otherwise.
fn inline_body(func: &mut Function, scope: Op, body: Region) {
    let mut blocks = func.layout.blocks(body);
    let (Some(block), None) = (blocks.next(), blocks.next()) else {
        return;
    };
    let ops: Vec<Op> = func.layout.ops(block).collect();
    let Some((&last, rest)) = ops.split_last() else {
        return;
    };
    if !is_plain_yield(func, last) {
        return;
    }
    for &op in rest {
        func.layout.remove_op(op);
        func.layout.insert_op_before(op, scope);
    }
    func.layout.remove_op(scope);
}
