//! MSVC funclets: the pad a token names, the pad a pad is nested in, and which funclet
//! each block belongs to (LLVM's `colorEHFunclets`).
//!
//! A funclet is the code a `cir.catchpad` or `cir.cleanuppad` begins; a `cir.catchswitch`
//! block is a funclet of its own (it holds no code but the switch). Blocks that no pad
//! begins belong to the funclet of the blocks that branch to them, except that the target
//! of a `cir.catchret` belongs to the funclet around the catch's `cir.catchswitch`. Code
//! outside every funclet, the function's own code, is the colour `None`.

use super::cfg::BlockGraph;
use crate::dfg::ValueDef;
use crate::entities::{Block, Op, Value};
use crate::ops::OpKind;
use cranelift_entity::SecondaryMap;

/// Whether an op is an MSVC EH pad (`cir.catchswitch`, `cir.catchpad`, `cir.cleanuppad`).
pub fn is_pad(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::CatchSwitch { .. } | OpKind::CatchPad { .. } | OpKind::CleanupPad
    )
}

/// The pad op whose token `token` is (its result 0), if it is one.
pub fn pad_of_token(graph: &impl BlockGraph, token: Value) -> Option<Op> {
    match graph.value_def(token)? {
        ValueDef::Result(op, 0) if is_pad(graph.dfg().kind(op)) => Some(op),
        _ => None,
    }
}

/// The pad `pad` is nested in (`within %parent`): a catchpad's catchswitch, or the
/// catchpad or cleanuppad around a catchswitch or cleanuppad. `None` for `within none` and
/// for a parent of the wrong kind (which the verifier reports).
pub fn pad_parent(graph: &impl BlockGraph, pad: Op) -> Option<Op> {
    let dfg = graph.dfg();
    let parent = pad_of_token(graph, *dfg.operands(pad).first()?)?;
    let fits = match dfg.kind(pad) {
        OpKind::CatchPad { .. } => matches!(dfg.kind(parent), OpKind::CatchSwitch { .. }),
        _ => matches!(
            dfg.kind(parent),
            OpKind::CatchPad { .. } | OpKind::CleanupPad
        ),
    };
    fits.then_some(parent)
}

/// The pad that begins a block, if any.
pub fn block_pad(graph: &impl BlockGraph, block: Block) -> Option<Op> {
    graph
        .first_op(block)
        .filter(|&op| is_pad(graph.dfg().kind(op)))
}

/// Which funclet(s) each block of an MSVC-phase function belongs to: `None` is the
/// function's own code, `Some(pad)` the funclet a pad begins (a catchswitch block is its
/// own colour). A `cir.catchret` continues in the funclet around its catchswitch; a
/// malformed one (its token not a catchpad within a catchswitch) colours nothing past it.
///
/// A well-formed function gives every reachable block exactly one colour; a block reached
/// from two funclets lists both, in the order a depth-first walk from the entry block
/// (successors in order) first reaches it with each. Blocks the entry does not reach have
/// no colour (an empty list). Deterministic: the result depends only on the body.
pub fn funclet_colors(graph: &impl BlockGraph) -> SecondaryMap<Block, Vec<Option<Op>>> {
    let mut colors: SecondaryMap<Block, Vec<Option<Op>>> = SecondaryMap::new();
    let Some(entry) = graph.entry() else {
        return colors;
    };
    let dfg = graph.dfg();
    let mut worklist: Vec<(Block, Option<Op>)> = vec![(entry, None)];
    let mut successors = Vec::new();
    while let Some((block, incoming)) = worklist.pop() {
        let color = block_pad(graph, block).or(incoming);
        if colors[block].contains(&color) {
            continue;
        }
        colors[block].push(color);
        let mut successor_color = color;
        if let Some(term) = graph.last_op(block)
            && matches!(dfg.kind(term), OpKind::CatchRet)
        {
            let catchpad = dfg
                .operands(term)
                .first()
                .and_then(|&token| pad_of_token(graph, token))
                .filter(|&pad| matches!(dfg.kind(pad), OpKind::CatchPad { .. }));
            match catchpad.and_then(|pad| pad_parent(graph, pad)) {
                Some(catchswitch) => successor_color = pad_parent(graph, catchswitch),
                None => continue,
            }
        }
        successors.clear();
        graph.successors_into(block, &mut successors);
        for &successor in successors.iter().rev() {
            worklist.push((successor, successor_color));
        }
    }
    colors
}
