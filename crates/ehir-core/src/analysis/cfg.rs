//! The control flow view the shared analyses read ([`BlockGraph`]), reachability and
//! predecessor counts.

use crate::dfg::{DataFlowGraph, ValueDef};
use crate::entities::{Block, Op, Value};
use crate::function::Function;
use cranelift_entity::SecondaryMap;

/// A function body seen as blocks, their ops and the edges between them.
///
/// [`Function`] implements it from its layout; the verifier implements it from its index,
/// which leaves out dangling entities and edges that leave their region, so that the same
/// analyses run on malformed input without panicking.
pub trait BlockGraph {
    /// The data flow graph the ops and values live in.
    fn dfg(&self) -> &DataFlowGraph;
    /// The entry block of the function body, if it has one.
    fn entry(&self) -> Option<Block>;
    /// The first op of a block.
    fn first_op(&self, block: Block) -> Option<Op>;
    /// The last op of a block (its terminator in a well-formed body).
    fn last_op(&self, block: Block) -> Option<Op>;
    /// Appends the successor blocks of `block`, in successor order, to `out`.
    fn successors_into(&self, block: Block, out: &mut Vec<Block>);
    /// Where a value is defined, `None` when that is not part of this body.
    fn value_def(&self, value: Value) -> Option<ValueDef>;
}

impl BlockGraph for Function {
    fn dfg(&self) -> &DataFlowGraph {
        &self.dfg
    }

    fn entry(&self) -> Option<Block> {
        self.entry_block()
    }

    fn first_op(&self, block: Block) -> Option<Op> {
        self.layout.first_op(block)
    }

    fn last_op(&self, block: Block) -> Option<Op> {
        self.layout.last_op(block)
    }

    fn successors_into(&self, block: Block, out: &mut Vec<Block>) {
        if let Some(term) = self.layout.last_op(block) {
            out.extend(self.dfg.successor_blocks(term));
        }
    }

    fn value_def(&self, value: Value) -> Option<ValueDef> {
        self.dfg.values.get(value).map(|data| data.def)
    }
}

/// The blocks that `entry` reaches along successor edges (`entry` included): `true` for
/// each reached block, `false` (the default) for the others.
pub fn reachable_blocks(graph: &impl BlockGraph, entry: Block) -> SecondaryMap<Block, bool> {
    let mut reachable: SecondaryMap<Block, bool> = SecondaryMap::new();
    reachable[entry] = true;
    let mut stack = vec![entry];
    let mut successors = Vec::new();
    while let Some(block) = stack.pop() {
        successors.clear();
        graph.successors_into(block, &mut successors);
        for &successor in &successors {
            if !reachable[successor] {
                reachable[successor] = true;
                stack.push(successor);
            }
        }
    }
    reachable
}

/// How many edges enter each of `blocks` from the terminators of `blocks` (an op with two
/// successors naming the same block counts twice).
pub fn predecessor_counts(graph: &impl BlockGraph, blocks: &[Block]) -> SecondaryMap<Block, u32> {
    let mut counts: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut successors = Vec::new();
    for &block in blocks {
        successors.clear();
        graph.successors_into(block, &mut successors);
        for &successor in &successors {
            counts[successor] += 1;
        }
    }
    counts
}
