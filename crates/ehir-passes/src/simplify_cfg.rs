//! `simplify-cfg`: control flow clean-up of flat, Itanium and MSVC functions. Rewrites, in
//! this order, on the function body:
//! 1. *Unreachable blocks*: blocks the entry block does not reach are removed
//!    ([`remove_unreachable_blocks`]).
//! 2. *Forwarding blocks*: an edge without arguments into a block that holds only a
//!    `cir.br` (not the entry block, no block parameters) goes straight to where the
//!    forwarding chain ends, with the arguments of the chain's last `cir.br`
//!    ([`forward_branches`]). An edge keeps its target when the redirected edge would
//!    pass a result of its own terminator (a `cir.try_call`'s results exist only past its
//!    edge), when a `cir.eh.dispatch` key would need arguments, and when the final block
//!    begins with an op that only an unwind or handler edge may reach. Forwarders on a
//!    cycle stay. Blocks that no longer have predecessors are then removed (step 1 again).
//! 3. *Straight-line merging*: a block whose terminator is a `cir.br` without arguments to
//!    a block with no other predecessor and no parameters absorbs that block
//!    ([`merge_straight_line_blocks`]). The entry block is never absorbed, and neither is
//!    a block whose first op must stay first ([`must_begin_block`]: `cir.eh.initiate`,
//!    `cir.eh.landingpad`, the MSVC pads, `cir.label`).
//!
//! Structured functions are left alone: their nested regions are not a control flow graph
//! of their own (`cir.goto` reaches a `cir.label` without an edge).
//!
//! The MSVC EH ABI lowering calls [`remove_unreachable_blocks`] and
//! [`merge_straight_line_blocks`] on the blocks its rewrites leave behind. The Itanium
//! lowering leaves them, as upstream's does; ehir's pipeline ([`crate::lower_to`]) then
//! runs [`RemoveUnreachableBlocks`], step 1 alone.

use crate::manager::Pass;
use crate::pass::FunctionStep;
use ehir_core::analysis::{predecessor_counts, reachable_blocks};
use ehir_core::{
    Block, Function, Module, Op, OpKind, Phase, Region, SecondaryMap, Successor, Value, ValueDef,
};

/// The `simplify-cfg` pass.
pub struct SimplifyCfg;

impl Pass for SimplifyCfg {
    fn name(&self) -> &'static str {
        "simplify-cfg"
    }

    fn function_step(&self, _: &Module) -> Option<FunctionStep<'_>> {
        Some(FunctionStep {
            phase: None,
            body: Box::new(|_, func| {
                simplify_function(func);
                Ok(())
            }),
            declares_callees: false,
            compacts: true,
        })
    }
}

/// Step 1 of `simplify-cfg` alone ([`remove_unreachable_blocks`] on flat, Itanium and
/// MSVC functions): what [`crate::lower_to`] runs after the Itanium EH lowering, whose
/// rewrites can leave blocks unreachable (a dispatch's `unwind` destination behind an
/// empty filter, the cleanups a `noexcept` boundary skips).
pub struct RemoveUnreachableBlocks;

impl Pass for RemoveUnreachableBlocks {
    fn name(&self) -> &'static str {
        "remove-unreachable-blocks"
    }

    fn function_step(&self, _: &Module) -> Option<FunctionStep<'_>> {
        Some(FunctionStep {
            phase: None,
            body: Box::new(|_, func| {
                if func.phase != Phase::Structured
                    && let Some(body) = func.body
                {
                    remove_unreachable_blocks(func, body);
                }
                Ok(())
            }),
            declares_callees: false,
            compacts: true,
        })
    }
}

/// Runs every rewrite of `simplify-cfg` on one function (nothing on declarations and
/// structured functions).
pub fn simplify_function(func: &mut Function) {
    if func.phase == Phase::Structured {
        return;
    }
    let Some(body) = func.body else {
        return;
    };
    remove_unreachable_blocks(func, body);
    if forward_branches(func, body) {
        remove_unreachable_blocks(func, body);
    }
    merge_straight_line_blocks(func, body);
}

/// Whether an op must be the first op of its block: the target of an unwind edge
/// (`cir.eh.initiate`, `cir.eh.landingpad`), an MSVC pad, or a `cir.label`.
pub fn must_begin_block(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::EhInitiate { .. }
            | OpKind::EhLandingPad { .. }
            | OpKind::CatchSwitch { .. }
            | OpKind::CatchPad { .. }
            | OpKind::CleanupPad
            | OpKind::Label { .. }
    )
}

/// Removes the blocks of `region` that its entry block does not reach.
pub fn remove_unreachable_blocks(func: &mut Function, region: Region) {
    let blocks: Vec<Block> = func.layout.blocks(region).collect();
    let Some(&entry) = blocks.first() else {
        return;
    };
    let reachable = reachable_blocks(func, entry);
    for block in blocks {
        if !reachable[block] {
            func.layout.remove_block(block);
        }
    }
}

/// Where an edge into a forwarding block ends up: the final block and the arguments of
/// the last `cir.br` of the chain.
#[derive(Clone)]
struct ForwardTarget {
    block: Block,
    args: Vec<Value>,
}

/// What the walk along a forwarding chain found for one forwarding block.
#[derive(Clone, Default)]
enum ChainEnd {
    /// Not walked yet.
    #[default]
    Unknown,
    /// The chain runs into a cycle of forwarders: edges into it stay.
    Cycle,
    /// The chain ends here.
    Target(ForwardTarget),
}

/// Redirects edges into forwarding blocks of `region` (blocks that only branch on) to the
/// end of the forwarding chain. Returns whether any edge changed.
pub fn forward_branches(func: &mut Function, region: Region) -> bool {
    let blocks: Vec<Block> = func.layout.blocks(region).collect();
    let Some(&entry) = blocks.first() else {
        return false;
    };
    // The `cir.br` edge of each forwarding block.
    let mut forward: SecondaryMap<Block, Option<Successor>> = SecondaryMap::new();
    let mut any_forwarder = false;
    for &block in &blocks {
        if block == entry || !func.dfg.block_params(block).is_empty() {
            continue;
        }
        let (Some(first), Some(last)) = (func.layout.first_op(block), func.layout.last_op(block))
        else {
            continue;
        };
        if first == last
            && matches!(func.dfg.kind(first), OpKind::Br)
            && let Some(&edge) = func.dfg.successors(first).first()
        {
            forward[block] = Some(edge);
            any_forwarder = true;
        }
    }
    if !any_forwarder {
        return false;
    }
    // The end of each forwarding chain, memoized so that long chains cost linear time;
    // blocks on a cycle of forwarders resolve to nothing and stay as they are.
    let mut resolved: SecondaryMap<Block, ChainEnd> = SecondaryMap::new();
    // The walk that last visited each block, to detect cycles without a set per walk.
    let mut visited_by: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut path = Vec::new();
    for (walk, &start) in blocks.iter().enumerate() {
        let walk = walk as u32 + 1;
        if forward[start].is_none() || !matches!(resolved[start], ChainEnd::Unknown) {
            continue;
        }
        path.clear();
        let mut current = start;
        let result = loop {
            if !matches!(resolved[current], ChainEnd::Unknown) {
                break resolved[current].clone();
            }
            let Some(edge) = forward[current] else {
                unreachable!("only forwarders are walked");
            };
            if visited_by[current] == walk {
                break ChainEnd::Cycle;
            }
            visited_by[current] = walk;
            path.push(current);
            let next = func.dfg.successor_block(edge);
            if forward[next].is_none() {
                break ChainEnd::Target(ForwardTarget {
                    block: next,
                    args: func.dfg.successor_args(edge).to_vec(),
                });
            }
            current = next;
        };
        for &block in &path {
            resolved[block] = result.clone();
        }
    }
    let mut changed = false;
    for &block in &blocks {
        let Some(term) = func.layout.last_op(block) else {
            continue;
        };
        let is_dispatch = matches!(func.dfg.kind(term), OpKind::EhDispatch { .. });
        let edges: Vec<Successor> = func.dfg.successors(term).to_vec();
        for edge in edges {
            if !func.dfg.successor_args(edge).is_empty() {
                continue;
            }
            let target = func.dfg.successor_block(edge);
            let ChainEnd::Target(end) = resolved[target].clone() else {
                continue;
            };
            if is_dispatch && (!end.args.is_empty() || !func.dfg.block_params(end.block).is_empty())
            {
                continue;
            }
            if func
                .layout
                .first_op(end.block)
                .is_some_and(|first| must_begin_block(func.dfg.kind(first)))
            {
                continue;
            }
            if passes_own_result(func, term, &end.args) {
                continue;
            }
            func.dfg.set_successor(edge, end.block, &end.args);
            changed = true;
        }
    }
    changed
}

/// Whether one of `args` is a result of `term` (which an edge of `term` cannot pass).
fn passes_own_result(func: &Function, term: Op, args: &[Value]) -> bool {
    args.iter()
        .any(|&arg| matches!(func.dfg.value_def(arg), ValueDef::Result(op, _) if op == term))
}

/// Appends each block of `region` to its only predecessor when that predecessor ends with
/// a `cir.br` without arguments to it (see the module documentation for the blocks that
/// are never absorbed). Chains are appended to their first block, so every op moves once.
pub fn merge_straight_line_blocks(func: &mut Function, region: Region) {
    let blocks: Vec<Block> = func.layout.blocks(region).collect();
    let Some(&entry) = blocks.first() else {
        return;
    };
    let predecessors = predecessor_counts(func, &blocks);
    // The block that `block`'s terminator would absorb, if any.
    let absorbable = |func: &Function, block: Block| -> Option<Block> {
        let term = func.layout.last_op(block)?;
        if !matches!(func.dfg.kind(term), OpKind::Br) {
            return None;
        }
        let &edge = func.dfg.successors(term).first()?;
        let next = func.dfg.successor_block(edge);
        let mergeable = next != block
            && next != entry
            && predecessors[next] == 1
            && func.dfg.successor_args(edge).is_empty()
            && func.dfg.block_params(next).is_empty()
            && !func
                .layout
                .first_op(next)
                .is_some_and(|first| must_begin_block(func.dfg.kind(first)));
        mergeable.then_some(next)
    };
    // Blocks some other block absorbs are not the head of a chain.
    let mut absorbed: SecondaryMap<Block, bool> = SecondaryMap::new();
    for &block in &blocks {
        if let Some(next) = absorbable(func, block) {
            absorbed[next] = true;
        }
    }
    for &head in &blocks {
        if absorbed[head] {
            continue;
        }
        while let Some(next) = absorbable(func, head) {
            let term = func
                .layout
                .last_op(head)
                .expect("an absorbable block implies a terminator");
            func.layout.remove_op(term);
            if let Some(first) = func.layout.first_op(next) {
                func.layout.split_ops_to(first, head);
            }
            func.layout.remove_block(next);
        }
    }
}
