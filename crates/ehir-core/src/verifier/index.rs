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
    pub block_ops: SecondaryMap<Block, Vec<Op>>,
    /// `N` of the printed name `^bbN`.
    pub block_number: SecondaryMap<Block, u32>,
    pub region_blocks: SecondaryMap<Region, Vec<Block>>,
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
}

struct Frame {
    region: Region,
    block: Option<Block>,
    next_block: Option<Block>,
    next_op: Option<Op>,
    /// Regions of the same op still to walk, with their positions.
    siblings: Vec<(Region, u32)>,
}

impl FuncIndex {
    /// Walks the body of `func`, reporting layout inconsistencies to `report`.
    pub fn build(func: &Function, report: &mut dyn FnMut(Diagnostic)) -> FuncIndex {
        let mut index = FuncIndex::default();
        let dfg = &func.dfg;
        let layout = &func.layout;
        let Some(body) = func.body else {
            return index;
        };
        if body.index() >= dfg.regions.len() {
            report(Diagnostic::error(
                func.loc,
                "the function body region does not exist",
            ));
            return index;
        }
        let mut seen_region: SecondaryMap<Region, bool> = SecondaryMap::new();
        let mut seen_block: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut seen_op: SecondaryMap<Op, bool> = SecondaryMap::new();
        seen_region[body] = true;
        let mut stack = Vec::new();
        index.enter(&mut stack, func, body, None, 0, 0, Vec::new());
        while let Some(top) = stack.last_mut() {
            if let Some(op) = top.next_op.take() {
                let block = top.block.expect("ops are walked inside a block");
                let block_loc = block_loc_raw(func, block);
                if op.index() >= dfg.ops.len() {
                    report(Diagnostic::error(
                        block_loc,
                        format!("block lists {op}, which does not exist"),
                    ));
                    continue;
                }
                if seen_op[op] {
                    report(Diagnostic::error(
                        dfg.loc(op),
                        "op is listed twice in the layout (the op list has a cycle or is shared)",
                    ));
                    continue;
                }
                seen_op[op] = true;
                if layout.op_block(op) != Some(block) {
                    report(Diagnostic::error(
                        dfg.loc(op),
                        "the layout does not record the block this op is listed in",
                    ));
                }
                index.op_block[op] = block.into();
                index.op_pos[op] = index.block_ops[block].len() as u32;
                index.block_ops[block].push(op);
                index.ops.push(op);
                top.next_op = layout.next_op(op);
                let mut regions = Vec::new();
                for (i, &r) in dfg.regions(op).iter().enumerate() {
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
                    regions.push((r, i as u32));
                }
                if !regions.is_empty() {
                    let (first, number) = regions.remove(0);
                    let depth = index.region_depth[top.region] + 1;
                    index.enter(&mut stack, func, first, Some(op), number, depth, regions);
                }
                continue;
            }
            if let Some(block) = top.next_block.take() {
                let region = top.region;
                if block.index() >= dfg.blocks.len() {
                    report(Diagnostic::error(
                        region_loc(func, &index, region),
                        format!("region lists {block}, which does not exist"),
                    ));
                    continue;
                }
                if seen_block[block] {
                    report(Diagnostic::error(
                        block_loc_raw(func, block),
                        "block is listed twice in the layout (the block list has a cycle or is shared)",
                    ));
                    continue;
                }
                seen_block[block] = true;
                if layout.block_region(block) != Some(region) {
                    report(Diagnostic::error(
                        block_loc_raw(func, block),
                        "the layout does not record the region this block is listed in",
                    ));
                }
                index.block_number[block] = index.blocks.len() as u32;
                index.blocks.push(block);
                index.block_region[block] = region.into();
                index.region_blocks[region].push(block);
                top.block = Some(block);
                top.next_op = layout.first_op(block);
                top.next_block = layout.next_block(block);
                continue;
            }
            let done = stack.pop().expect("the stack is not empty");
            if !done.siblings.is_empty() {
                let mut rest = done.siblings;
                let (next, number) = rest.remove(0);
                let parent = index.region_parent[done.region].expand();
                let depth = index.region_depth[done.region];
                index.enter(&mut stack, func, next, parent, number, depth, rest);
            }
        }
        index
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
        siblings: Vec<(Region, u32)>,
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

    /// The op owning the region that contains `op`.
    pub fn parent_op(&self, op: Op) -> Option<Op> {
        self.region_parent[self.op_region(op)?].expand()
    }

    /// The entry block of a region.
    pub fn entry_block(&self, region: Region) -> Option<Block> {
        self.region_blocks[region].first().copied()
    }

    /// The last op of a block.
    pub fn last_op(&self, block: Block) -> Option<Op> {
        self.block_ops[block].last().copied()
    }

    /// The first op of a block.
    pub fn first_op(&self, block: Block) -> Option<Op> {
        self.block_ops[block].first().copied()
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
