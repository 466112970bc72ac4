//! Where things sit: the order of blocks in each region and of ops in each block,
//! as doubly linked lists in side tables (Cranelift's layout, extended with regions).
//! One list implementation ([`List`]) serves both.

use crate::entities::{Block, Op, Region};
use cranelift_entity::EntityRef;
use cranelift_entity::packed_option::{PackedOption, ReservedValue};
use std::marker::PhantomData;

/// The links of an entity in its parent's list: an op in its block, a block in its
/// region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Links<P: ReservedValue, T: ReservedValue> {
    parent: PackedOption<P>,
    prev: PackedOption<T>,
    next: PackedOption<T>,
}

impl<P: ReservedValue, T: ReservedValue> Default for Links<P, T> {
    fn default() -> Self {
        Links {
            parent: None.into(),
            prev: None.into(),
            next: None.into(),
        }
    }
}

/// The first and last entity of a parent's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ends<T: ReservedValue> {
    first: PackedOption<T>,
    last: PackedOption<T>,
}

impl<T: ReservedValue> Default for Ends<T> {
    fn default() -> Self {
        Ends {
            first: None.into(),
            last: None.into(),
        }
    }
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

/// The lists of entities `T` in parents `P` (blocks in regions, ops in blocks): each
/// entity's links and each parent's ends.
struct List<'a, P: ReservedValue, T: ReservedValue> {
    links: &'a mut Nodes<T, Links<P, T>>,
    ends: &'a mut Nodes<P, Ends<T>>,
}

impl<P, T> List<'_, P, T>
where
    P: EntityRef + ReservedValue,
    T: EntityRef + ReservedValue,
{
    /// Appends `entity` (not currently placed) at the end of `parent`.
    #[inline]
    fn append(&mut self, parent: P, entity: T) {
        debug_assert!(self.links.get(entity).parent.is_none(), "already placed");
        let last = self.ends.get(parent).last;
        *self.links.get_mut(entity) = Links {
            parent: parent.into(),
            prev: last,
            next: None.into(),
        };
        match last.expand() {
            Some(last) => self.links.get_mut(last).next = entity.into(),
            None => self.ends.get_mut(parent).first = entity.into(),
        }
        self.ends.get_mut(parent).last = entity.into();
    }

    /// Inserts `entity` (not currently placed) right before `before`.
    #[inline]
    fn insert_before(&mut self, entity: T, before: T) {
        let before_links = self.links.get(before);
        let parent = before_links.parent.expect("`before` is not placed");
        let prev = before_links.prev;
        *self.links.get_mut(entity) = Links {
            parent: parent.into(),
            prev,
            next: before.into(),
        };
        self.links.get_mut(before).prev = entity.into();
        match prev.expand() {
            Some(prev) => self.links.get_mut(prev).next = entity.into(),
            None => self.ends.get_mut(parent).first = entity.into(),
        }
    }

    /// Inserts `entity` (not currently placed) right after `after`.
    #[inline]
    fn insert_after(&mut self, entity: T, after: T) {
        let after_links = self.links.get(after);
        match after_links.next.expand() {
            Some(next) => self.insert_before(entity, next),
            None => self.append(after_links.parent.expect("`after` is not placed"), entity),
        }
    }

    /// Takes `entity` out of its parent.
    #[inline]
    fn remove(&mut self, entity: T) {
        let links = self.links.get(entity);
        let parent = links.parent.expect("not placed");
        match links.prev.expand() {
            Some(prev) => self.links.get_mut(prev).next = links.next,
            None => self.ends.get_mut(parent).first = links.next,
        }
        match links.next.expand() {
            Some(next) => self.links.get_mut(next).prev = links.prev,
            None => self.ends.get_mut(parent).last = links.prev,
        }
        *self.links.get_mut(entity) = Links::default();
    }
}

/// The placement of blocks and ops.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Each op's place among the ops of its block.
    ops: Nodes<Op, Links<Block, Op>>,
    /// Each block's place among the blocks of its region.
    blocks: Nodes<Block, Links<Region, Block>>,
    /// Each block's first and last op.
    block_ops: Nodes<Block, Ends<Op>>,
    /// Each region's first and last block.
    region_blocks: Nodes<Region, Ends<Block>>,
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
        self.block_ops.reserve(blocks);
        self.region_blocks.reserve(regions);
    }

    /// Releases spare room in the tables (placement is unchanged).
    pub fn shrink_to_fit(&mut self) {
        self.ops.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self.block_ops.shrink_to_fit();
        self.region_blocks.shrink_to_fit();
    }

    /// The blocks of the regions.
    #[inline]
    fn block_list(&mut self) -> List<'_, Region, Block> {
        List {
            links: &mut self.blocks,
            ends: &mut self.region_blocks,
        }
    }

    /// The ops of the blocks.
    #[inline]
    fn op_list(&mut self) -> List<'_, Block, Op> {
        List {
            links: &mut self.ops,
            ends: &mut self.block_ops,
        }
    }

    // ---- blocks ------------------------------------------------------------------------

    /// Appends a block (not currently placed) at the end of a region.
    pub fn append_block(&mut self, region: Region, block: Block) {
        self.block_list().append(region, block);
    }

    /// Inserts a block (not currently placed) right after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        self.block_list().insert_after(block, after);
    }

    /// Removes a block (and, implicitly, its ops) from its region.
    pub fn remove_block(&mut self, block: Block) {
        self.block_list().remove(block);
    }

    /// The region `block` is placed in.
    pub fn block_region(&self, block: Block) -> Option<Region> {
        self.blocks.get(block).parent.expand()
    }

    /// Whether `block` is placed in a region.
    pub fn is_block_placed(&self, block: Block) -> bool {
        self.blocks.get(block).parent.is_some()
    }

    /// The first block of `region`.
    pub fn entry_block(&self, region: Region) -> Option<Block> {
        self.region_blocks.get(region).first.expand()
    }

    /// The last block of `region`.
    pub fn last_block(&self, region: Region) -> Option<Block> {
        self.region_blocks.get(region).last.expand()
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
        Entities {
            links: &self.blocks,
            next: self.entry_block(region),
        }
    }

    // ---- ops -----------------------------------------------------------------------------

    /// Appends an op (not currently placed) at the end of a block.
    pub fn append_op(&mut self, op: Op, block: Block) {
        self.op_list().append(block, op);
    }

    /// Inserts an op (not currently placed) right before `before`.
    pub fn insert_op_before(&mut self, op: Op, before: Op) {
        self.op_list().insert_before(op, before);
    }

    /// Inserts an op (not currently placed) at the start of a block.
    pub fn prepend_op(&mut self, op: Op, block: Block) {
        match self.first_op(block) {
            Some(first) => self.insert_op_before(op, first),
            None => self.append_op(op, block),
        }
    }

    /// Removes an op from its block.
    pub fn remove_op(&mut self, op: Op) {
        self.op_list().remove(op);
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
        self.ops.get(op).parent.expand()
    }

    /// The first op of `block`.
    pub fn first_op(&self, block: Block) -> Option<Op> {
        self.block_ops.get(block).first.expand()
    }

    /// The last op of `block` (its terminator, once complete).
    pub fn last_op(&self, block: Block) -> Option<Op> {
        self.block_ops.get(block).last.expand()
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
        Entities {
            links: &self.ops,
            next: self.first_op(block),
        }
    }
}

/// Iterator over the entities of one list in order: [`Blocks`], [`Ops`].
pub struct Entities<'a, P: ReservedValue, T: ReservedValue> {
    links: &'a Nodes<T, Links<P, T>>,
    next: Option<T>,
}

/// Iterator over the blocks of a region.
pub type Blocks<'a> = Entities<'a, Region, Block>;

/// Iterator over the ops of a block.
pub type Ops<'a> = Entities<'a, Block, Op>;

impl<P, T> Iterator for Entities<'_, P, T>
where
    P: EntityRef + ReservedValue,
    T: EntityRef + ReservedValue,
{
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        let entity = self.next?;
        self.next = self.links.get(entity).next.expand();
        Some(entity)
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
