//! Region helpers shared by the passes: iterative walks over a region tree, deep copies of
//! regions, and moving a region's blocks into another place of the layout.

use ehir_core::{Block, ExtraData, Function, Op, OpKind, Region, Value};
use rustc_hash::FxHashMap as HashMap;

/// All ops of a region and its nested regions, in pre-order (an op before the ops of its
/// regions). Iterative, so deep nesting does not grow the host stack.
pub fn region_ops(func: &Function, region: Region) -> Vec<Op> {
    let mut out = Vec::new();
    let mut stack = vec![region];
    // Regions are pushed in reverse so that they are walked in order; ops of one region are
    // emitted before the ops of regions nested in them only approximately (per region),
    // which is all the callers need (they look at every op once).
    while let Some(r) = stack.pop() {
        let mut nested = Vec::new();
        for b in func.layout.blocks(r) {
            for op in func.layout.ops(b) {
                out.push(op);
                nested.extend_from_slice(func.dfg.regions(op));
            }
        }
        stack.extend(nested.into_iter().rev());
    }
    out
}

/// Replaces every use of `old` by `new` among the ops of `region` (and nested regions).
pub fn replace_uses_in_region(func: &mut Function, region: Region, old: Value, new: Value) {
    let ops = region_ops(func, region);
    func.dfg.replace_uses_in(&ops, old, new);
}

/// Deep-copies `region` into a new region that no op owns yet. Values and blocks defined
/// inside the region are renamed; values defined outside it are shared with the original.
pub fn clone_region(func: &mut Function, region: Region) -> Region {
    let new_region = func.dfg.make_region(None);
    let mut value_map: HashMap<Value, Value> = HashMap::default();
    let mut block_map: HashMap<Block, Block> = HashMap::default();
    let mut op_pairs: Vec<(Op, Op)> = Vec::new();
    let mut stack = vec![(region, new_region)];
    // Pass 1: blocks, block parameters, ops with their results and regions.
    while let Some((src, dst)) = stack.pop() {
        let blocks: Vec<Block> = func.layout.blocks(src).collect();
        for b in blocks {
            let nb = func.dfg.make_block();
            func.dfg.blocks[nb].loc = func.dfg.blocks[b].loc;
            block_map.insert(b, nb);
            let params = func.dfg.block_params(b).to_vec();
            for p in params {
                let ty = func.dfg.value_type(p);
                let np = func.dfg.append_block_param(nb, ty);
                value_map.insert(p, np);
            }
            func.layout.append_block(dst, nb);
            let ops: Vec<Op> = func.layout.ops(b).collect();
            for op in ops {
                let kind = clone_kind(func, *func.dfg.kind(op));
                let result_types: Vec<_> = func
                    .dfg
                    .results(op)
                    .iter()
                    .map(|&v| func.dfg.value_type(v))
                    .collect();
                let num_regions = func.dfg.regions(op).len();
                let loc = func.dfg.loc(op);
                let nop = func
                    .dfg
                    .make_op(kind, &[], &result_types, &[], num_regions, loc);
                func.layout.append_op(nop, nb);
                let old_results = func.dfg.results(op).to_vec();
                let new_results = func.dfg.results(nop).to_vec();
                for (o, n) in old_results.into_iter().zip(new_results) {
                    value_map.insert(o, n);
                }
                let src_regions = func.dfg.regions(op).to_vec();
                let dst_regions = func.dfg.regions(nop).to_vec();
                for (s, d) in src_regions.into_iter().zip(dst_regions).rev() {
                    stack.push((s, d));
                }
                op_pairs.push((op, nop));
            }
        }
    }
    // Pass 2: operands and successor edges, now that every inner value has its copy.
    let map_value = |v: Value| value_map.get(&v).copied();
    for (op, nop) in op_pairs {
        let operands = remapped(func.dfg.operands(op), map_value);
        func.dfg.set_operands(nop, &operands);
        let succs = func.dfg.successors(op).to_vec();
        for s in succs {
            let block = func.dfg.successor_block(s);
            let block = block_map.get(&block).copied().unwrap_or(block);
            let args = remapped(func.dfg.successor_args(s), map_value);
            let ns = func.dfg.make_successor(block, &args);
            func.dfg.attach_successor(nop, ns);
        }
    }
    new_region
}

/// `values` with each one that `image` maps replaced by its image.
pub(crate) fn remapped(values: &[Value], image: impl Fn(Value) -> Option<Value>) -> Vec<Value> {
    values.iter().map(|&v| image(v).unwrap_or(v)).collect()
}

/// A copy of an op kind whose out-of-line payload is copied too, so that the copy can be
/// edited without touching the original.
fn clone_kind(func: &mut Function, mut kind: OpKind) -> OpKind {
    if let Some(e) = kind.extra_mut() {
        let data: ExtraData = func.dfg.extra(*e).clone();
        *e = func.dfg.make_extra(data);
    }
    kind
}

/// Moves the blocks of `region` (in order) to right after `after` in `after`'s region and
/// returns them. The source region is left empty.
pub fn move_region_after(func: &mut Function, region: Region, after: Block) -> Vec<Block> {
    let blocks: Vec<Block> = func.layout.blocks(region).collect();
    let mut prev = after;
    for &b in &blocks {
        func.layout.remove_block(b);
        func.layout.insert_block_after(b, prev);
        prev = b;
    }
    blocks
}
