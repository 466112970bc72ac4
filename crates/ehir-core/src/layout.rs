//! Where things sit: the order of blocks in each region and of ops in each block,
//! as doubly linked lists in side tables (Cranelift's layout, extended with regions).

use crate::entities::{Block, Op, Region};
use cranelift_entity::EntityRef;
use cranelift_entity::packed_option::PackedOption;
use std::marker::PhantomData;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct OpNode {
    block: PackedOption<Block>,
    prev: PackedOption<Op>,
    next: PackedOption<Op>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct BlockNode {
    region: PackedOption<Region>,
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first_op: PackedOption<Op>,
    last_op: PackedOption<Op>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RegionNode {
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
}

/// A side table of nodes indexed by an entity: the default node beyond its end, grown
/// geometrically on the first write past it (writes come in entity order while building).
#[derive(Clone, Debug)]
struct Nodes<K, V> {
    elems: Vec<V>,
    key: PhantomData<K>,
}

impl<K, V> Default for Nodes<K, V> {
    fn default() -> Self {
        Nodes {
            elems: Vec::new(),
            key: PhantomData,
        }
    }
}

impl<K: EntityRef, V: Copy + Default + PartialEq> Nodes<K, V> {
    #[inline]
    fn get(&self, k: K) -> V {
        self.elems.get(k.index()).copied().unwrap_or_default()
    }

    #[inline]
    fn get_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.elems.len() {
            self.grow(i);
        }
        &mut self.elems[i]
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, i: usize) {
        let len = (i + 1).max(self.elems.len() * 2).max(16);
        self.elems.resize(len, V::default());
    }

    /// Room for entities below `n` without growing.
    fn reserve(&mut self, n: usize) {
        if n > self.elems.len() {
            self.elems.resize(n, V::default());
        }
    }

    /// Drops the default nodes at the end and the spare capacity.
    fn shrink_to_fit(&mut self) {
        let used = self
            .elems
            .iter()
            .rposition(|e| *e != V::default())
            .map_or(0, |i| i + 1);
        self.elems.truncate(used);
        self.elems.shrink_to_fit();
    }
}

/// The placement of blocks and ops.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    ops: Nodes<Op, OpNode>,
    blocks: Nodes<Block, BlockNode>,
    regions: Nodes<Region, RegionNode>,
}

impl Layout {
    /// An empty layout: nothing placed.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes room for `ops` ops, `blocks` blocks and `regions` regions (entity numbers
    /// below those) so that placing them does not grow the tables.
    pub fn reserve(&mut self, ops: usize, blocks: usize, regions: usize) {
        self.ops.reserve(ops);
        self.blocks.reserve(blocks);
        self.regions.reserve(regions);
    }

    /// Releases spare room in the tables (placement is unchanged).
    pub fn shrink_to_fit(&mut self) {
        self.ops.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self.regions.shrink_to_fit();
    }

    // ---- blocks ------------------------------------------------------------------------

    /// Appends a block (not currently placed) at the end of a region.
    pub fn append_block(&mut self, region: Region, block: Block) {
        debug_assert!(
            self.blocks.get(block).region.is_none(),
            "block already placed"
        );
        let last = self.regions.get(region).last_block;
        {
            let node = self.blocks.get_mut(block);
            node.region = region.into();
            node.prev = last;
            node.next = None.into();
        }
        match last.expand() {
            Some(l) => self.blocks.get_mut(l).next = block.into(),
            None => self.regions.get_mut(region).first_block = block.into(),
        }
        self.regions.get_mut(region).last_block = block.into();
    }

    /// Inserts a block (not currently placed) right after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        let after_node = self.blocks.get(after);
        let region = after_node.region.expect("`after` is not placed");
        let next = after_node.next;
        {
            let node = self.blocks.get_mut(block);
            node.region = region.into();
            node.prev = after.into();
            node.next = next;
        }
        self.blocks.get_mut(after).next = block.into();
        match next.expand() {
            Some(n) => self.blocks.get_mut(n).prev = block.into(),
            None => self.regions.get_mut(region).last_block = block.into(),
        }
    }

    /// Removes a block (and, implicitly, its ops) from its region.
    pub fn remove_block(&mut self, block: Block) {
        let node = self.blocks.get(block);
        let region = node.region.expect("block is not placed");
        match node.prev.expand() {
            Some(p) => self.blocks.get_mut(p).next = node.next,
            None => self.regions.get_mut(region).first_block = node.next,
        }
        match node.next.expand() {
            Some(n) => self.blocks.get_mut(n).prev = node.prev,
            None => self.regions.get_mut(region).last_block = node.prev,
        }
        let b = self.blocks.get_mut(block);
        b.region = None.into();
        b.prev = None.into();
        b.next = None.into();
    }

    /// The region `block` is placed in.
    pub fn block_region(&self, block: Block) -> Option<Region> {
        self.blocks.get(block).region.expand()
    }

    /// Whether `block` is placed in a region.
    pub fn is_block_placed(&self, block: Block) -> bool {
        self.blocks.get(block).region.is_some()
    }

    /// The first block of `region`.
    pub fn entry_block(&self, region: Region) -> Option<Block> {
        self.regions.get(region).first_block.expand()
    }

    /// The last block of `region`.
    pub fn last_block(&self, region: Region) -> Option<Block> {
        self.regions.get(region).last_block.expand()
    }

    /// The block after `block` in its region.
    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks.get(block).next.expand()
    }

    /// The block before `block` in its region.
    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks.get(block).prev.expand()
    }

    /// The blocks of a region in order.
    pub fn blocks(&self, region: Region) -> Blocks<'_> {
        Blocks {
            layout: self,
            next: self.regions.get(region).first_block.expand(),
        }
    }

    // ---- ops -----------------------------------------------------------------------------

    /// Appends an op (not currently placed) at the end of a block.
    pub fn append_op(&mut self, op: Op, block: Block) {
        debug_assert!(self.ops.get(op).block.is_none(), "op already placed");
        let last = self.blocks.get(block).last_op;
        *self.ops.get_mut(op) = OpNode {
            block: block.into(),
            prev: last,
            next: None.into(),
        };
        match last.expand() {
            Some(l) => self.ops.get_mut(l).next = op.into(),
            None => self.blocks.get_mut(block).first_op = op.into(),
        }
        self.blocks.get_mut(block).last_op = op.into();
    }

    /// Inserts an op (not currently placed) right before `before`.
    pub fn insert_op_before(&mut self, op: Op, before: Op) {
        let before_node = self.ops.get(before);
        let block = before_node.block.expect("`before` is not placed");
        let prev = before_node.prev;
        *self.ops.get_mut(op) = OpNode {
            block: block.into(),
            prev,
            next: before.into(),
        };
        self.ops.get_mut(before).prev = op.into();
        match prev.expand() {
            Some(p) => self.ops.get_mut(p).next = op.into(),
            None => self.blocks.get_mut(block).first_op = op.into(),
        }
    }

    /// Inserts an op (not currently placed) at the start of a block.
    pub fn prepend_op(&mut self, op: Op, block: Block) {
        match self.blocks.get(block).first_op.expand() {
            Some(first) => self.insert_op_before(op, first),
            None => self.append_op(op, block),
        }
    }

    /// Removes an op from its block.
    pub fn remove_op(&mut self, op: Op) {
        let node = self.ops.get(op);
        let block = node.block.expect("op is not placed");
        match node.prev.expand() {
            Some(p) => self.ops.get_mut(p).next = node.next,
            None => self.blocks.get_mut(block).first_op = node.next,
        }
        match node.next.expand() {
            Some(n) => self.ops.get_mut(n).prev = node.prev,
            None => self.blocks.get_mut(block).last_op = node.prev,
        }
        *self.ops.get_mut(op) = OpNode::default();
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

    /// The block `op` is placed in.
    pub fn op_block(&self, op: Op) -> Option<Block> {
        self.ops.get(op).block.expand()
    }

    /// The first op of `block`.
    pub fn first_op(&self, block: Block) -> Option<Op> {
        self.blocks.get(block).first_op.expand()
    }

    /// The last op of `block` (its terminator, once complete).
    pub fn last_op(&self, block: Block) -> Option<Op> {
        self.blocks.get(block).last_op.expand()
    }

    /// The op after `op` in its block.
    pub fn next_op(&self, op: Op) -> Option<Op> {
        self.ops.get(op).next.expand()
    }

    /// The op before `op` in its block.
    pub fn prev_op(&self, op: Op) -> Option<Op> {
        self.ops.get(op).prev.expand()
    }

    /// The ops of a block in order.
    pub fn ops(&self, block: Block) -> Ops<'_> {
        Ops {
            layout: self,
            next: self.blocks.get(block).first_op.expand(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    /// Blocks of a region with their ops.
    type RegionPlacement = Vec<(Block, Vec<Op>)>;

    /// The placement as a list of (region, blocks with their ops).
    fn placement(layout: &Layout, regions: &[Region]) -> Vec<(Region, RegionPlacement)> {
        regions
            .iter()
            .map(|&r| {
                let blocks = layout
                    .blocks(r)
                    .map(|b| (b, layout.ops(b).collect()))
                    .collect();
                (r, blocks)
            })
            .collect()
    }

    #[test]
    fn reserve_and_shrink_keep_the_placement() {
        let mut layout = Layout::new();
        let regions = [Region::new(0), Region::new(3)];
        let mut next_op = 0;
        for (i, &r) in regions.iter().enumerate() {
            for b in 0..3 {
                let block = Block::new(i * 10 + b);
                layout.append_block(r, block);
                for _ in 0..4 {
                    layout.append_op(Op::new(next_op), block);
                    next_op += 1;
                }
            }
        }
        // Take ops out so that the tables end in default (unplaced) entries.
        layout.remove_op(Op::new(next_op - 1));
        layout.remove_op(Op::new(5));
        let before = placement(&layout, &regions);
        layout.reserve(1000, 1000, 1000);
        assert_eq!(placement(&layout, &regions), before);
        layout.shrink_to_fit();
        assert_eq!(placement(&layout, &regions), before);
        assert!(
            layout.ops.elems.len() < next_op,
            "trailing unplaced ops are dropped"
        );
        assert_eq!(layout.op_block(Op::new(next_op - 1)), None);
        assert_eq!(layout.op_block(Op::new(5)), None);
        assert_eq!(layout.op_block(Op::new(4)), Some(Block::new(1)));
        // Placing more after shrinking grows the tables again.
        layout.append_op(Op::new(5000), Block::new(12));
        assert_eq!(layout.last_op(Block::new(12)), Some(Op::new(5000)));
        assert_eq!(layout.prev_op(Op::new(5000)), Some(Op::new(22)));
    }

    #[test]
    fn reads_beyond_the_tables_are_unplaced() {
        let layout = Layout::new();
        assert_eq!(layout.op_block(Op::new(7)), None);
        assert_eq!(layout.entry_block(Region::new(3)), None);
        assert!(!layout.is_block_placed(Block::new(9)));
        assert_eq!(layout.blocks(Region::new(1)).count(), 0);
    }
}
