//! Where things sit: the order of blocks in each region and of ops in each block,
//! as doubly linked lists in side tables (Cranelift's layout, extended with regions).

use crate::entities::{Block, Op, Region};
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

#[derive(Clone, Copy, Debug, Default)]
struct OpNode {
    block: PackedOption<Block>,
    prev: PackedOption<Op>,
    next: PackedOption<Op>,
}

#[derive(Clone, Copy, Debug, Default)]
struct BlockNode {
    region: PackedOption<Region>,
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first_op: PackedOption<Op>,
    last_op: PackedOption<Op>,
}

#[derive(Clone, Copy, Debug, Default)]
struct RegionNode {
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
}

/// The placement of blocks and ops.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    ops: SecondaryMap<Op, OpNode>,
    blocks: SecondaryMap<Block, BlockNode>,
    regions: SecondaryMap<Region, RegionNode>,
}

impl Layout {
    pub fn new() -> Self {
        Self::default()
    }

    // ---- blocks ------------------------------------------------------------------------

    /// Appends a block (not currently placed) at the end of a region.
    pub fn append_block(&mut self, region: Region, block: Block) {
        debug_assert!(self.blocks[block].region.is_none(), "block already placed");
        let last = self.regions[region].last_block;
        self.blocks[block].region = region.into();
        self.blocks[block].prev = last;
        self.blocks[block].next = None.into();
        match last.expand() {
            Some(l) => self.blocks[l].next = block.into(),
            None => self.regions[region].first_block = block.into(),
        }
        self.regions[region].last_block = block.into();
    }

    /// Inserts a block (not currently placed) right after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        let region = self.blocks[after].region.expect("`after` is not placed");
        let next = self.blocks[after].next;
        self.blocks[block].region = region.into();
        self.blocks[block].prev = after.into();
        self.blocks[block].next = next;
        self.blocks[after].next = block.into();
        match next.expand() {
            Some(n) => self.blocks[n].prev = block.into(),
            None => self.regions[region].last_block = block.into(),
        }
    }

    /// Removes a block (and, implicitly, its ops) from its region.
    pub fn remove_block(&mut self, block: Block) {
        let node = self.blocks[block];
        let region = node.region.expect("block is not placed");
        match node.prev.expand() {
            Some(p) => self.blocks[p].next = node.next,
            None => self.regions[region].first_block = node.next,
        }
        match node.next.expand() {
            Some(n) => self.blocks[n].prev = node.prev,
            None => self.regions[region].last_block = node.prev,
        }
        let b = &mut self.blocks[block];
        b.region = None.into();
        b.prev = None.into();
        b.next = None.into();
    }

    pub fn block_region(&self, block: Block) -> Option<Region> {
        self.blocks[block].region.expand()
    }

    pub fn is_block_placed(&self, block: Block) -> bool {
        self.blocks[block].region.is_some()
    }

    pub fn entry_block(&self, region: Region) -> Option<Block> {
        self.regions[region].first_block.expand()
    }

    pub fn last_block(&self, region: Region) -> Option<Block> {
        self.regions[region].last_block.expand()
    }

    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].next.expand()
    }

    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].prev.expand()
    }

    /// The blocks of a region in order.
    pub fn blocks(&self, region: Region) -> Blocks<'_> {
        Blocks {
            layout: self,
            next: self.regions[region].first_block.expand(),
        }
    }

    // ---- ops -----------------------------------------------------------------------------

    /// Appends an op (not currently placed) at the end of a block.
    pub fn append_op(&mut self, op: Op, block: Block) {
        debug_assert!(self.ops[op].block.is_none(), "op already placed");
        let last = self.blocks[block].last_op;
        self.ops[op] = OpNode {
            block: block.into(),
            prev: last,
            next: None.into(),
        };
        match last.expand() {
            Some(l) => self.ops[l].next = op.into(),
            None => self.blocks[block].first_op = op.into(),
        }
        self.blocks[block].last_op = op.into();
    }

    /// Inserts an op (not currently placed) right before `before`.
    pub fn insert_op_before(&mut self, op: Op, before: Op) {
        let block = self.ops[before].block.expect("`before` is not placed");
        let prev = self.ops[before].prev;
        self.ops[op] = OpNode {
            block: block.into(),
            prev,
            next: before.into(),
        };
        self.ops[before].prev = op.into();
        match prev.expand() {
            Some(p) => self.ops[p].next = op.into(),
            None => self.blocks[block].first_op = op.into(),
        }
    }

    /// Inserts an op (not currently placed) at the start of a block.
    pub fn prepend_op(&mut self, op: Op, block: Block) {
        match self.blocks[block].first_op.expand() {
            Some(first) => self.insert_op_before(op, first),
            None => self.append_op(op, block),
        }
    }

    /// Removes an op from its block.
    pub fn remove_op(&mut self, op: Op) {
        let node = self.ops[op];
        let block = node.block.expect("op is not placed");
        match node.prev.expand() {
            Some(p) => self.ops[p].next = node.next,
            None => self.blocks[block].first_op = node.next,
        }
        match node.next.expand() {
            Some(n) => self.ops[n].prev = node.prev,
            None => self.blocks[block].last_op = node.prev,
        }
        self.ops[op] = OpNode::default();
    }

    /// Moves every op from `op` (inclusive) to the end of its block to the end of `dest`.
    pub fn split_ops_to(&mut self, op: Op, dest: Block) {
        let mut cur = Some(op);
        while let Some(o) = cur {
            cur = self.next_op(o);
            self.remove_op(o);
            self.append_op(o, dest);
        }
    }

    pub fn op_block(&self, op: Op) -> Option<Block> {
        self.ops[op].block.expand()
    }

    pub fn first_op(&self, block: Block) -> Option<Op> {
        self.blocks[block].first_op.expand()
    }

    pub fn last_op(&self, block: Block) -> Option<Op> {
        self.blocks[block].last_op.expand()
    }

    pub fn next_op(&self, op: Op) -> Option<Op> {
        self.ops[op].next.expand()
    }

    pub fn prev_op(&self, op: Op) -> Option<Op> {
        self.ops[op].prev.expand()
    }

    /// The ops of a block in order.
    pub fn ops(&self, block: Block) -> Ops<'_> {
        Ops {
            layout: self,
            next: self.blocks[block].first_op.expand(),
        }
    }
}

/// Iterator over the blocks of a region.
pub struct Blocks<'a> {
    layout: &'a Layout,
    next: Option<Block>,
}

impl Iterator for Blocks<'_> {
    type Item = Block;
    fn next(&mut self) -> Option<Block> {
        let b = self.next?;
        self.next = self.layout.next_block(b);
        Some(b)
    }
}

/// Iterator over the ops of a block.
pub struct Ops<'a> {
    layout: &'a Layout,
    next: Option<Op>,
}

impl Iterator for Ops<'_> {
    type Item = Op;
    fn next(&mut self) -> Option<Op> {
        let o = self.next?;
        self.next = self.layout.next_op(o);
        Some(o)
    }
}
