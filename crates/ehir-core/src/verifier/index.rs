//! The verifier's own map of a function body: which ops, blocks and regions the layout
//! reaches from the body, where each one sits, and display numbers for blocks.
//!
//! It is built with an explicit stack and visited sets, so a corrupted layout (a block or
//! op listed twice, a region nested in itself, entities that do not exist) is reported
//! instead of looping forever, recursing without bound or panicking. Every later check
//! works from this index only, never from the raw layout.

use crate::dfg::{DataFlowGraph, ValueDef};
use crate::diagnostics::Diagnostic;
use crate::entities::{Block, Loc, Op, Region, Value};
use crate::function::Function;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{EntityRef, SecondaryMap};

/// Where every reachable op, block and region of a function sits.
#[derive(Default)]
pub(crate) struct FuncIndex {
    /// Ops in pre-order (an op before the ops of its regions).
    pub ops: Vec<Op>,
    /// Blocks in printing order.
    pub blocks: Vec<Block>,
    /// Regions in printing order; the body first.
    pub regions: Vec<Region>,
    pub op_block: SecondaryMap<Op, PackedOption<Block>>,
    /// Position of an op in its block.
    pub op_pos: SecondaryMap<Op, u32>,
    pub block_region: SecondaryMap<Block, PackedOption<Region>>,
    /// The ops of each block, in order: a range of `block_op_list`.
    block_op_range: SecondaryMap<Block, (u32, u32)>,
    block_op_list: Vec<Op>,
    /// `N` of the printed name `^bbN`.
    pub block_number: SecondaryMap<Block, u32>,
    /// The blocks of each region, in order: a range of `region_block_list`.
    region_block_range: SecondaryMap<Region, (u32, u32)>,
    region_block_list: Vec<Block>,
    pub region_parent: SecondaryMap<Region, PackedOption<Op>>,
    /// Position of a region among its parent op's regions.
    pub region_number: SecondaryMap<Region, u32>,
    /// 0 for the function body, 1 for regions of its ops, ...
    pub region_depth: SecondaryMap<Region, u32>,
    /// The region enclosing a region (the region of its parent op); the body maps to
    /// itself.
    region_up: SecondaryMap<Region, PackedOption<Region>>,
    /// Jump pointers (Myers' skew-binary scheme) for O(log depth) ancestor queries.
    region_jump: SecondaryMap<Region, PackedOption<Region>>,
    /// Buffers of [`FuncIndex::rebuild`]'s walk, kept for the next function.
    walk: WalkScratch,
}

/// The walk's own tables, reused from one function to the next.
#[derive(Default)]
struct WalkScratch {
    /// Ops seen per block and blocks seen per region; they become the ranges.
    block_op_count: SecondaryMap<Block, u32>,
    region_block_count: SecondaryMap<Region, u32>,
    block_pos: SecondaryMap<Block, u32>,
    seen_region: SecondaryMap<Region, bool>,
    /// Regions of an op still to walk, with their positions.
    pending: Vec<(Region, u32)>,
    stack: Vec<Frame>,
}

/// Makes `map` `len` default entries, reusing its allocation.
fn reset<K: EntityRef, V: Clone + Default>(map: &mut SecondaryMap<K, V>, len: usize) {
    map.clear();
    map.resize(len);
}

struct Frame {
    region: Region,
    block: Option<Block>,
    next_block: Option<Block>,
    next_op: Option<Op>,
    /// Regions of the same op still to walk, with their positions: a range of the walk's
    /// list of pending sibling regions.
    siblings: (u32, u32),
}

impl FuncIndex {
    /// Walks the body of `func`, reporting layout inconsistencies to `report`: the index
    /// of `func`, built in place so that its tables keep their allocations from the
    /// function indexed before.
    pub fn rebuild(&mut self, func: &Function, report: &mut dyn FnMut(Diagnostic)) {
        let mut walk = std::mem::take(&mut self.walk);
        self.clear();
        self.walk_body(func, report, &mut walk);
        self.walk = walk;
    }

    /// Empties every table (keeping its allocation).
    fn clear(&mut self) {
        self.ops.clear();
        self.blocks.clear();
        self.regions.clear();
        self.op_block.clear();
        self.op_pos.clear();
        self.block_region.clear();
        self.block_op_range.clear();
        self.block_op_list.clear();
        self.block_number.clear();
        self.region_block_range.clear();
        self.region_block_list.clear();
        self.region_parent.clear();
        self.region_number.clear();
        self.region_depth.clear();
        self.region_up.clear();
        self.region_jump.clear();
    }

    fn walk_body(
        &mut self,
        func: &Function,
        report: &mut dyn FnMut(Diagnostic),
        walk: &mut WalkScratch,
    ) {
        let index = self;
        let dfg = &func.dfg;
        let layout = &func.layout;
        let Some(body) = func.body else {
            return;
        };
        if body.index() >= dfg.regions.len() {
            report(Diagnostic::error(
                func.loc,
                "the function body region does not exist",
            ));
            return;
        }
        let (num_ops, num_blocks, num_regions) =
            (dfg.ops.len(), dfg.blocks.len(), dfg.regions.len());
        index.ops.reserve(num_ops);
        index.blocks.reserve(num_blocks);
        index.regions.reserve(num_regions);
        index.op_block.resize(num_ops);
        index.op_pos.resize(num_ops);
        index.block_region.resize(num_blocks);
        index.block_number.resize(num_blocks);
        index.region_parent.resize(num_regions);
        index.region_number.resize(num_regions);
        index.region_depth.resize(num_regions);
        index.region_up.resize(num_regions);
        index.region_jump.resize(num_regions);
        let WalkScratch {
            block_op_count,
            region_block_count,
            block_pos,
            seen_region,
            pending,
            stack,
        } = walk;
        reset(block_op_count, num_blocks);
        reset(region_block_count, num_regions);
        reset(block_pos, num_blocks);
        reset(seen_region, num_regions);
        // An op or block was seen once its `op_block` or `block_region` is set.
        seen_region[body] = true;
        pending.clear();
        stack.clear();
        index.enter(stack, func, body, None, 0, 0, (0, 0));
        while let Some(top) = stack.last_mut() {
            if let Some(first) = top.next_op.take() {
                let block = top.block.expect("ops are walked inside a block");
                // The ops of the block, up to one with regions: its regions come next.
                let mut next = Some(first);
                let mut regions_of = None;
                while let Some(op) = next {
                    next = None;
                    if op.index() >= dfg.ops.len() {
                        report(Diagnostic::error(
                            block_loc_raw(func, block),
                            format!("block lists {op}, which does not exist"),
                        ));
                        break;
                    }
                    if index.op_block[op].is_some() {
                        report(Diagnostic::error(
                            dfg.loc(op),
                            "op is listed twice in the layout (the op list has a cycle or is shared)",
                        ));
                        break;
                    }
                    if layout.op_block(op) != Some(block) {
                        report(Diagnostic::error(
                            dfg.loc(op),
                            "the layout does not record the block this op is listed in",
                        ));
                    }
                    index.op_block[op] = block.into();
                    let pos = &mut block_op_count[block];
                    index.op_pos[op] = *pos;
                    *pos += 1;
                    index.ops.push(op);
                    next = layout.next_op(op);
                    let regions = dfg.regions(op);
                    if regions.is_empty() {
                        continue;
                    }
                    let first_pending = pending.len();
                    for (i, &r) in regions.iter().enumerate() {
                        if r.index() >= dfg.regions.len() {
                            report(Diagnostic::error(
                                dfg.loc(op),
                                format!("region #{i} of '{}' does not exist", dfg.kind(op).name()),
                            ));
                            continue;
                        }
                        if seen_region[r] {
                            report(Diagnostic::error(
                                dfg.loc(op),
                                format!(
                                    "region #{i} of '{}' is also attached elsewhere (or contains this op)",
                                    dfg.kind(op).name()
                                ),
                            ));
                            continue;
                        }
                        seen_region[r] = true;
                        if dfg.region_parent(r) != Some(op) {
                            report(Diagnostic::error(
                                dfg.loc(op),
                                format!(
                                    "region #{i} of '{}' records a different parent op",
                                    dfg.kind(op).name()
                                ),
                            ));
                        }
                        pending.push((r, i as u32));
                    }
                    if pending.len() > first_pending {
                        regions_of = Some((op, first_pending));
                        break;
                    }
                }
                top.next_op = next;
                if let Some((op, first_pending)) = regions_of {
                    let (first, number) = pending[first_pending];
                    let depth = index.region_depth[top.region] + 1;
                    let rest = (first_pending as u32 + 1, pending.len() as u32);
                    index.enter(stack, func, first, Some(op), number, depth, rest);
                }
                continue;
            }
            if let Some(block) = top.next_block.take() {
                let region = top.region;
                if block.index() >= dfg.blocks.len() {
                    report(Diagnostic::error(
                        region_loc(func, index, region),
                        format!("region lists {block}, which does not exist"),
                    ));
                    continue;
                }
                if index.block_region[block].is_some() {
                    report(Diagnostic::error(
                        block_loc_raw(func, block),
                        "block is listed twice in the layout (the block list has a cycle or is shared)",
                    ));
                    continue;
                }
                if layout.block_region(block) != Some(region) {
                    report(Diagnostic::error(
                        block_loc_raw(func, block),
                        "the layout does not record the region this block is listed in",
                    ));
                }
                index.block_number[block] = index.blocks.len() as u32;
                index.blocks.push(block);
                index.block_region[block] = region.into();
                let pos = &mut region_block_count[region];
                block_pos[block] = *pos;
                *pos += 1;
                top.block = Some(block);
                top.next_op = layout.first_op(block);
                top.next_block = layout.next_block(block);
                continue;
            }
            let done = stack.pop().expect("the stack is not empty");
            let (next, end) = done.siblings;
            if next < end {
                let (region, number) = pending[next as usize];
                let parent = index.region_parent[done.region].expand();
                let depth = index.region_depth[done.region];
                index.enter(stack, func, region, parent, number, depth, (next + 1, end));
            }
        }
        // Lay out the ops of each block and the blocks of each region contiguously.
        group_contiguously(
            (&index.blocks, num_blocks),
            block_op_count,
            &index.ops,
            |op| (index.op_block[op].expect("placed"), index.op_pos[op]),
            &mut index.block_op_range,
            &mut index.block_op_list,
        );
        group_contiguously(
            (&index.regions, num_regions),
            region_block_count,
            &index.blocks,
            |block| (index.block_region[block].expect("placed"), block_pos[block]),
            &mut index.region_block_range,
            &mut index.region_block_list,
        );
    }

    /// The ops of a block in order (empty for a block the walk did not reach).
    #[inline]
    pub fn block_ops(&self, block: Block) -> &[Op] {
        let (start, end) = self.block_op_range.get(block).copied().unwrap_or((0, 0));
        &self.block_op_list[start as usize..end as usize]
    }

    /// The blocks of a region in order (empty for a region the walk did not reach).
    #[inline]
    pub fn region_blocks(&self, region: Region) -> &[Block] {
        let (start, end) = self
            .region_block_range
            .get(region)
            .copied()
            .unwrap_or((0, 0));
        &self.region_block_list[start as usize..end as usize]
    }

    #[allow(clippy::too_many_arguments)]
    fn enter(
        &mut self,
        stack: &mut Vec<Frame>,
        func: &Function,
        region: Region,
        parent: Option<Op>,
        number: u32,
        depth: u32,
        siblings: (u32, u32),
    ) {
        self.regions.push(region);
        self.region_parent[region] = parent.into();
        self.region_number[region] = number;
        self.region_depth[region] = depth;
        let up = parent.and_then(|p| self.op_region(p)).unwrap_or(region);
        let jump = if up == region {
            region
        } else {
            let j = self.region_jump[up].expect("set on entry");
            let jj = self.region_jump[j].expect("set on entry");
            let d = |r: Region| self.region_depth[r];
            if d(up) - d(j) == d(j) - d(jj) { jj } else { up }
        };
        self.region_up[region] = up.into();
        self.region_jump[region] = jump.into();
        stack.push(Frame {
            region,
            block: None,
            next_block: func.layout.entry_block(region),
            next_op: None,
            siblings,
        });
    }

    /// The ancestor of `region` (or `region` itself) at `depth`, which must not be
    /// deeper than `region`.
    pub fn region_ancestor_at(&self, mut region: Region, depth: u32) -> Region {
        while self.region_depth[region] > depth {
            let jump = self.region_jump[region].expect("set on entry");
            region = if self.region_depth[jump] >= depth {
                jump
            } else {
                self.region_up[region].expect("set on entry")
            };
        }
        region
    }

    /// Whether the walk reached this op.
    pub fn has_op(&self, op: Op) -> bool {
        self.op_block[op].is_some()
    }

    /// Whether the walk reached this block.
    pub fn has_block(&self, block: Block) -> bool {
        self.block_region[block].is_some()
    }

    /// The region that contains an op.
    pub fn op_region(&self, op: Op) -> Option<Region> {
        self.block_region[self.op_block[op].expand()?].expand()
    }

    /// The entry block of a region.
    pub fn entry_block(&self, region: Region) -> Option<Block> {
        self.region_blocks(region).first().copied()
    }

    /// The last op of a block.
    pub fn last_op(&self, block: Block) -> Option<Op> {
        self.block_ops(block).last().copied()
    }

    /// The first op of a block.
    pub fn first_op(&self, block: Block) -> Option<Op> {
        self.block_ops(block).first().copied()
    }

    /// Where a value is defined, if that place is part of this function body and agrees
    /// with the value's own record; `None` for dangling values.
    pub fn value_site(&self, dfg: &DataFlowGraph, v: Value) -> Option<ValueDef> {
        let data = dfg.values.get(v)?;
        match data.def {
            ValueDef::Result(op, i) => {
                (self.has_op(op) && dfg.results(op).get(i as usize) == Some(&v)).then_some(data.def)
            }
            ValueDef::Param(block, i) => (self.has_block(block)
                && dfg.block_params(block).get(i as usize) == Some(&v))
            .then_some(data.def),
        }
    }

    /// `^bbN` as the printer names the block.
    pub fn block_name(&self, block: Block) -> String {
        if self.has_block(block) {
            format!("^bb{}", self.block_number[block])
        } else {
            format!("^<invalid {block}>")
        }
    }
}

/// A block's own location, else its first op's, else unknown.
fn block_loc_raw(func: &Function, block: Block) -> Loc {
    let loc = func
        .dfg
        .blocks
        .get(block)
        .map(|b| b.loc)
        .unwrap_or(Loc::NONE);
    if loc != Loc::NONE {
        return loc;
    }
    func.layout
        .first_op(block)
        .and_then(|op| func.dfg.ops.get(op))
        .map(|o| o.loc)
        .unwrap_or(Loc::NONE)
}

/// The location of the op owning a region, else the function's.
fn region_loc(func: &Function, index: &FuncIndex, region: Region) -> Loc {
    match index.region_parent[region].expand() {
        Some(op) => func.dfg.loc(op),
        None => func.loc,
    }
}

/// Lists `members` grouped by their group, in the groups' order (`groups`), each group's
/// members at their position in it (`place` gives a member's group and position; `counts`
/// how many members each group has; `num_groups` sizes `ranges`): `ranges[group]` is its
/// slice of `list`.
fn group_contiguously<G: EntityRef, M: EntityRef + ReservedValue>(
    (groups, num_groups): (&[G], usize),
    counts: &SecondaryMap<G, u32>,
    members: &[M],
    place: impl Fn(M) -> (G, u32),
    ranges: &mut SecondaryMap<G, (u32, u32)>,
    list: &mut Vec<M>,
) {
    ranges.resize(num_groups);
    let mut start = 0u32;
    for &group in groups {
        let count = counts[group];
        ranges[group] = (start, start + count);
        start += count;
    }
    list.resize(start as usize, M::reserved_value());
    for &member in members {
        let (group, pos) = place(member);
        list[(ranges[group].0 + pos) as usize] = member;
    }
}
