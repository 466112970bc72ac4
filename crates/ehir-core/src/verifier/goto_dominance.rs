//! Dominance with the jumps of `cir.goto`: a use is legal only if its definition also runs
//! on every path that a `cir.goto` opens to it.
//!
//! A `cir.goto` names its `cir.label` instead of listing a successor, so the CFG of
//! `dominance.rs` does not see its jump. For a function with gotos, every region a jump
//! touches gets a finer graph whose nodes are *segments*: its blocks, split after the op
//! that a goto leaves from (the goto itself, or the op whose regions hold it) and before
//! the op it enters at (the label, or the op whose regions hold the label). In the
//! deepest region that holds both the goto and its label the jump is an edge between two
//! segments; in every region below it that holds the label, the jump enters in the middle,
//! so the segment it enters is a second entry of that region. A use whose definition does
//! not dominate it in that graph is reported; the rest of the dominance rules stay in
//! `dominance.rs`, which this check never reports a second time. A `cir.alloca` is exempt:
//! C++ lets a goto skip a declaration without initializer, and `flatten-cfg` hoists every
//! alloca to the function entry.

use super::FuncVerifier;
use super::structure::Labels;
use crate::analysis::{DirectedGraph, DominatorTree};
use crate::dfg::ValueDef;
use crate::entities::{Block, Op, Region, Value};
use crate::ops::OpKind;
use std::collections::BTreeMap;

/// The segment graph of one region.
#[derive(Default)]
struct SegmentGraph {
    /// Positions in a block where a new segment starts (sorted, no duplicates, never 0).
    splits: BTreeMap<Block, Vec<u32>>,
    /// The first segment of each block of the region (node 0 is the region's virtual root).
    first_segment: BTreeMap<Block, u32>,
    /// Jumps of gotos inside this region, as (op left from, op entered at).
    jumps: Vec<(Op, Op)>,
    /// Ops at which a jump from outside enters this region.
    entries: Vec<Op>,
    successors: Vec<Vec<u32>>,
    predecessors: Vec<Vec<u32>>,
    tree: DominatorTree,
}

impl DirectedGraph for SegmentGraph {
    fn node_count(&self) -> usize {
        self.successors.len()
    }

    fn successor(&self, node: u32, index: usize) -> Option<u32> {
        self.successors[node as usize].get(index).copied()
    }

    fn for_each_predecessor(&self, node: u32, mut visit: impl FnMut(u32)) {
        for &from in &self.predecessors[node as usize] {
            visit(from);
        }
    }
}

impl SegmentGraph {
    fn split(&mut self, block: Block, position: u32) {
        if position > 0 {
            self.splits.entry(block).or_default().push(position);
        }
    }

    /// The segment that holds the op at `position` of `block`.
    fn segment(&self, block: Block, position: u32) -> u32 {
        let first = self.first_segment[&block];
        let later = self
            .splits
            .get(&block)
            .map_or(0, |splits| splits.partition_point(|&at| at <= position));
        first + later as u32
    }

    fn edge(&mut self, from: u32, to: u32) {
        self.successors[from as usize].push(to);
        self.predecessors[to as usize].push(from);
    }
}

impl FuncVerifier<'_> {
    /// The op of `region` that is `op` or holds it in its regions.
    pub(crate) fn ancestor_in(&self, op: Op, region: Region) -> Option<Op> {
        let op_region = self.index.op_region(op)?;
        let depth = self.index.region_depth[region];
        if op_region == region {
            return Some(op);
        }
        if self.index.region_depth[op_region] <= depth {
            return None;
        }
        let below = self.index.region_ancestor_at(op_region, depth + 1);
        self.index.region_parent[below]
            .expand()
            .filter(|&parent| self.index.op_region(parent) == Some(region))
    }

    /// The deepest region that holds both ops.
    fn common_region(&self, a: Op, b: Op) -> Option<Region> {
        let (ra, rb) = (self.index.op_region(a)?, self.index.op_region(b)?);
        // Regions agree from the body down to some depth and differ below it: binary
        // search on the depth.
        let (mut low, mut high) = (
            0,
            self.index.region_depth[ra].min(self.index.region_depth[rb]),
        );
        while low < high {
            let mid = (low + high).div_ceil(2);
            if self.index.region_ancestor_at(ra, mid) == self.index.region_ancestor_at(rb, mid) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        Some(self.index.region_ancestor_at(ra, low))
    }

    /// Reports uses that a `cir.goto` reaches without passing their definition.
    pub(crate) fn check_uses_across_gotos(&self, gotos: &[Op], labels: &Labels) {
        let mut graphs: BTreeMap<Region, SegmentGraph> = BTreeMap::new();
        for &goto in gotos {
            let OpKind::Goto { label } = *self.dfg.kind(goto) else {
                continue;
            };
            let Some(&target) = labels.get(&label) else {
                continue;
            };
            let Some(common) = self.common_region(goto, target) else {
                continue;
            };
            let (Some(from), Some(to)) = (
                self.ancestor_in(goto, common),
                self.ancestor_in(target, common),
            ) else {
                continue;
            };
            graphs.entry(common).or_default().jumps.push((from, to));
            let Some(label_region) = self.index.op_region(target) else {
                continue;
            };
            let common_depth = self.index.region_depth[common];
            for depth in common_depth + 1..=self.index.region_depth[label_region] {
                let region = self.index.region_ancestor_at(label_region, depth);
                if let Some(entry) = self.ancestor_in(target, region) {
                    graphs.entry(region).or_default().entries.push(entry);
                }
            }
        }
        if graphs.is_empty() {
            return;
        }
        for (&region, graph) in graphs.iter_mut() {
            self.build_segment_graph(region, graph);
        }
        for &op in &self.index.ops {
            for (i, &v) in self.dfg.operands(op).iter().enumerate() {
                self.check_use_across_gotos(&graphs, op, v, || format!("operand #{i}"));
            }
            for (s, &succ) in self.dfg.successors(op).iter().enumerate() {
                let Some(data) = self.dfg.successors.get(succ) else {
                    continue;
                };
                for (i, &v) in data.args.as_slice(&self.dfg.value_lists).iter().enumerate() {
                    self.check_use_across_gotos(&graphs, op, v, || {
                        format!("argument #{i} of successor #{s}")
                    });
                }
            }
        }
    }

    /// Splits the blocks of `region` into segments, adds the edges of its CFG, its jumps and
    /// its entries, and computes the dominator tree.
    fn build_segment_graph(&self, region: Region, graph: &mut SegmentGraph) {
        let position = |op: Op| self.index.op_pos[op];
        let block_of = |op: Op| self.index.op_block[op].expand();
        for (from, to) in graph.jumps.clone() {
            if let (Some(from_block), Some(to_block)) = (block_of(from), block_of(to)) {
                graph.split(from_block, position(from) + 1);
                graph.split(to_block, position(to));
            }
        }
        for entry in graph.entries.clone() {
            if let Some(block) = block_of(entry) {
                graph.split(block, position(entry));
            }
        }
        let blocks = self.index.region_blocks(region);
        let mut nodes = 1u32;
        for &block in blocks {
            let splits = graph.splits.entry(block).or_default();
            splits.sort_unstable();
            splits.dedup();
            let len = self.index.block_ops(block).len() as u32;
            splits.retain(|&at| at < len);
            graph.first_segment.insert(block, nodes);
            nodes += 1 + splits.len() as u32;
        }
        graph.successors = vec![Vec::new(); nodes as usize];
        graph.predecessors = vec![Vec::new(); nodes as usize];
        if let Some(&entry) = blocks.first() {
            let first = graph.first_segment[&entry];
            graph.edge(0, first);
        }
        for &block in blocks {
            let first = graph.first_segment[&block];
            let count = graph.splits[&block].len() as u32;
            for segment in first..first + count {
                graph.edge(segment, segment + 1);
            }
            for edge in self.cfg.succs(block) {
                let target = graph.first_segment[&edge.to];
                graph.edge(first + count, target);
            }
        }
        for (from, to) in graph.jumps.clone() {
            if let (Some(from_block), Some(to_block)) = (block_of(from), block_of(to)) {
                let source = graph.segment(from_block, position(from));
                let target = graph.segment(to_block, position(to));
                graph.edge(source, target);
            }
        }
        for entry in graph.entries.clone() {
            if let Some(block) = block_of(entry) {
                let target = graph.segment(block, position(entry));
                graph.edge(0, target);
            }
        }
        let mut tree = std::mem::take(&mut graph.tree);
        tree.compute(graph, 0);
        graph.tree = tree;
    }

    /// Reports `v`'s use by `user` if `dominance.rs` accepts it and a jump breaks it.
    fn check_use_across_gotos(
        &self,
        graphs: &BTreeMap<Region, SegmentGraph>,
        user: Op,
        v: Value,
        what: impl Fn() -> String,
    ) {
        let Some(def) = self.index.value_site(self.dfg, v) else {
            return;
        };
        let (def_block, def_position) = match def {
            // A variable's storage: a goto may skip its declaration when that does not
            // initialize it (C++ [stmt.dcl]), and flatten-cfg hoists it to the entry.
            ValueDef::Result(op, _) if matches!(self.dfg.kind(op), OpKind::Alloca { .. }) => {
                return;
            }
            ValueDef::Result(op, _) => {
                let Some(block) = self.index.op_block[op].expand() else {
                    return;
                };
                (block, self.index.op_pos[op])
            }
            ValueDef::Param(block, _) => (block, 0),
        };
        let Some(def_region) = self.index.block_region[def_block].expand() else {
            return;
        };
        let Some(graph) = graphs.get(&def_region) else {
            return;
        };
        let Some(ancestor) = self.ancestor_in(user, def_region) else {
            return;
        };
        if matches!(def, ValueDef::Result(op, _) if op == ancestor) {
            return;
        }
        let Some(use_block) = self.index.op_block[ancestor].expand() else {
            return;
        };
        let use_position = self.index.op_pos[ancestor];
        // What `dominance.rs` accepts (it reports the rest itself).
        let accepted = if def_block == use_block {
            matches!(def, ValueDef::Param(..)) || def_position < use_position
        } else {
            self.cfg.dominates(def_block, use_block)
        };
        let def_segment = graph.segment(def_block, def_position);
        let use_segment = graph.segment(use_block, use_position);
        if !accepted || def_segment == use_segment {
            return;
        }
        if !graph.tree.dominates(def_segment, use_segment) {
            self.error_with_note(
                self.dfg.loc(user),
                format!(
                    "{} of '{}' does not dominate this use: a 'cir.goto' reaches the use without passing the definition",
                    what(),
                    self.op_name(user)
                ),
                self.def_loc(def),
                "defined here",
            );
        }
    }
}
