//! SSA dominance across nested regions, MLIR style.
//!
//! Each region has its own control flow graph (edges from its blocks' terminators to blocks
//! of the same region) and its own dominator tree ([`DominatorTree`]: pre/post numbers on
//! the tree for O(1) queries).
//!
//! A use of a value is legal when, after climbing from the using op to its ancestor op `A`
//! in the value's region, the definition dominates `A`: a block parameter's block dominates
//! `A`'s block; an op result's op comes earlier in the same block, or its block properly
//! dominates `A`'s block. A result of an op is never visible inside that op's own regions,
//! and values defined inside a region are never visible outside it. The results of a
//! terminator with results (`cir.try_call`) are available only where the edge to its normal
//! successor dominates the use (LLVM's rule for `invoke`), so never on the unwind path.
//! Uses in blocks that the region entry cannot reach are not checked across blocks
//! (everything dominates unreachable code).

use super::index::FuncIndex;
use super::{FuncVerifier, OpView};
use crate::analysis::{DirectedGraph, DominatorTree};
use crate::dfg::{DataFlowGraph, ValueDef};
use crate::diagnostics::Diagnostic;
use crate::entities::{Block, Op, Region, Value};
use crate::ops::OpKind;
use cranelift_entity::SecondaryMap;

/// What kind of control transfer an edge is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum EdgeKind {
    /// Ordinary branch, the normal destination of `cir.try_call`, `cir.catchret`.
    Normal,
    /// Exceptional: `cir.try_call`'s second successor, `cir.throw`'s successor, the unwind
    /// destination of `cir.cleanupret` and `cir.catchswitch`.
    Unwind,
    /// A key of `cir.eh.dispatch`.
    Dispatch,
    /// A handler of `cir.catchswitch`.
    Handler,
}

/// One CFG edge inside a region.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Edge {
    pub from: Block,
    pub to: Block,
    /// The terminator.
    pub op: Op,
    /// Successor position on the terminator.
    pub index: u32,
    pub kind: EdgeKind,
}

/// Control flow graphs and dominator trees of every region of a function.
#[derive(Default)]
pub(crate) struct Cfg {
    /// Every edge, grouped by source block; `succ_range` gives each block's slice.
    succ_edges: Vec<Edge>,
    succ_range: SecondaryMap<Block, (u32, u32)>,
    /// Every edge again, grouped by target block (in source order within a target).
    pred_edges: Vec<Edge>,
    pred_range: SecondaryMap<Block, (u32, u32)>,
    pub reachable: SecondaryMap<Block, bool>,
    /// Position of a block in its region's block list.
    local: SecondaryMap<Block, u32>,
    dom_pre: SecondaryMap<Block, u32>,
    dom_post: SecondaryMap<Block, u32>,
    /// Predecessors counted per block while the edges are collected.
    pred_count: SecondaryMap<Block, u32>,
    /// The dominator tree of the region being computed (its buffers reused).
    dominators: DominatorTree,
}

/// The CFG of one region as a [`DirectedGraph`]: node `i` is the region's block `i`.
struct RegionGraph<'a> {
    cfg: &'a Cfg,
    blocks: &'a [Block],
}

impl DirectedGraph for RegionGraph<'_> {
    fn node_count(&self) -> usize {
        self.blocks.len()
    }

    fn successor(&self, node: u32, index: usize) -> Option<u32> {
        let edge = self.cfg.succs(self.blocks[node as usize]).get(index)?;
        Some(self.cfg.local[edge.to])
    }

    fn for_each_predecessor(&self, node: u32, mut visit: impl FnMut(u32)) {
        for edge in self.cfg.preds(self.blocks[node as usize]) {
            visit(self.cfg.local[edge.from]);
        }
    }
}

/// The kind of successor `index` of a terminator with `count` successors.
pub(crate) fn edge_kind(kind: &OpKind, index: usize, count: usize) -> EdgeKind {
    match kind {
        OpKind::TryCall { .. } | OpKind::TryThrow if index == 1 => EdgeKind::Unwind,
        OpKind::Throw { .. } | OpKind::CleanupRet => EdgeKind::Unwind,
        OpKind::CatchSwitch { unwind_to_caller } => {
            if !unwind_to_caller && index + 1 == count {
                EdgeKind::Unwind
            } else {
                EdgeKind::Handler
            }
        }
        OpKind::EhDispatch { .. } => EdgeKind::Dispatch,
        _ => EdgeKind::Normal,
    }
}

impl Cfg {
    /// Builds the CFG of every region in place (the tables keep their allocations from
    /// the function built before). Edges that leave their region or enter a region's
    /// entry block are left out (the structure checks report them).
    pub fn rebuild(&mut self, dfg: &DataFlowGraph, index: &FuncIndex) {
        let cfg = self;
        let num_blocks = dfg.blocks.len();
        cfg.succ_edges.clear();
        cfg.pred_edges.clear();
        for map in [
            &mut cfg.local,
            &mut cfg.dom_pre,
            &mut cfg.dom_post,
            &mut cfg.pred_count,
        ] {
            map.clear();
            map.resize(num_blocks);
        }
        for map in [&mut cfg.succ_range, &mut cfg.pred_range] {
            map.clear();
            map.resize(num_blocks);
        }
        cfg.reachable.clear();
        cfg.reachable.resize(num_blocks);
        // Edges in block order (so each block's successors are contiguous), counting the
        // predecessors of each target on the way.
        // Sized once from the entity counts (flat code has about two edges per block).
        let pred_count = &mut cfg.pred_count;
        cfg.succ_edges.reserve(2 * index.blocks.len());
        for &region in &index.regions {
            let blocks = index.region_blocks(region);
            let Some(&entry) = blocks.first() else {
                continue;
            };
            for &block in blocks {
                let start = cfg.succ_edges.len() as u32;
                if let Some(term) = index.last_op(block) {
                    let kind = dfg.kind(term);
                    if kind.is_terminator() {
                        let succs = dfg.successors(term);
                        for (i, &s) in succs.iter().enumerate() {
                            let Some(data) = dfg.successors.get(s) else {
                                continue;
                            };
                            let to = data.block;
                            if index.block_region[to].expand() != Some(region) || to == entry {
                                continue;
                            }
                            cfg.succ_edges.push(Edge {
                                from: block,
                                to,
                                op: term,
                                index: i as u32,
                                kind: edge_kind(kind, i, succs.len()),
                            });
                            pred_count[to] += 1;
                        }
                    }
                }
                cfg.succ_range[block] = (start, cfg.succ_edges.len() as u32);
            }
        }
        if !cfg.succ_edges.is_empty() {
            let mut start = 0u32;
            for &block in &index.blocks {
                let count = pred_count.get(block).copied().unwrap_or(0);
                // The range is filled from its start; its end is set once full.
                cfg.pred_range[block] = (start, start);
                start += count;
            }
            cfg.pred_edges.extend_from_slice(&cfg.succ_edges);
            for edge in &cfg.succ_edges {
                let range = &mut cfg.pred_range[edge.to];
                cfg.pred_edges[range.1 as usize] = *edge;
                range.1 += 1;
            }
        }
        let mut tree = std::mem::take(&mut cfg.dominators);
        for &region in &index.regions {
            cfg.compute_dominators(region, index, &mut tree);
        }
        cfg.dominators = tree;
    }

    /// The edges leaving a block.
    #[inline]
    pub fn succs(&self, block: Block) -> &[Edge] {
        let (start, end) = self.succ_range.get(block).copied().unwrap_or((0, 0));
        &self.succ_edges[start as usize..end as usize]
    }

    /// The edges entering a block.
    #[inline]
    pub fn preds(&self, block: Block) -> &[Edge] {
        let (start, end) = self.pred_range.get(block).copied().unwrap_or((0, 0));
        &self.pred_edges[start as usize..end as usize]
    }

    /// The dominator tree of one region ([`DominatorTree`] on the region's blocks, numbered
    /// by their position; the entry is 0).
    fn compute_dominators(&mut self, region: Region, index: &FuncIndex, tree: &mut DominatorTree) {
        let blocks = index.region_blocks(region);
        match *blocks {
            [] => return,
            // The common case of structured code: the entry alone (edges to an entry block
            // are never part of the CFG) is reachable and dominates itself.
            [entry] => {
                self.local[entry] = 0;
                self.reachable[entry] = true;
                self.dom_pre[entry] = 0;
                self.dom_post[entry] = 1;
                return;
            }
            _ => {}
        }
        for (i, &b) in blocks.iter().enumerate() {
            self.local[b] = i as u32;
        }
        tree.compute(&RegionGraph { cfg: self, blocks }, 0);
        for (i, &b) in blocks.iter().enumerate() {
            let reached = tree.is_reachable(i as u32);
            self.reachable[b] = reached;
            if reached {
                (self.dom_pre[b], self.dom_post[b]) = tree.pre_post(i as u32);
            }
        }
    }

    /// Whether `a` dominates `b` (both in the same region). Every block dominates an
    /// unreachable block.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if a == b || !self.reachable[b] {
            return true;
        }
        if !self.reachable[a] {
            return false;
        }
        self.dom_pre[a] <= self.dom_pre[b] && self.dom_post[b] <= self.dom_post[a]
    }

    /// Whether the edge `from -> to` dominates `use_block` (LLVM's `BasicBlockEdge` rule):
    /// `to` dominates the use, the edge is the only one from `from` to `to`, and every
    /// other predecessor of `to` is dominated by `to`.
    pub fn edge_dominates(&self, from: Block, to: Block, use_block: Block) -> bool {
        if !self.dominates(to, use_block) {
            return false;
        }
        let mut from_edges = 0;
        for edge in self.preds(to) {
            if edge.from == from {
                from_edges += 1;
                continue;
            }
            if !self.dominates(to, edge.from) {
                return false;
            }
        }
        from_edges == 1
    }
}

impl FuncVerifier<'_> {
    /// Checks that every operand and successor argument is defined in this function and
    /// dominates its use.
    pub(crate) fn check_op_uses(&self, view: &OpView) {
        for (i, &v) in view.operands.iter().enumerate() {
            self.check_use(view, v, || format!("operand #{i}"));
        }
        for (s, &succ) in view.successors.iter().enumerate() {
            let Some(data) = self.dfg.successors.get(succ) else {
                continue;
            };
            for (i, &v) in data.args.as_slice(&self.dfg.value_lists).iter().enumerate() {
                self.check_use(view, v, || format!("argument #{i} of successor #{s}"));
            }
        }
    }

    fn check_use(&self, view: &OpView, v: Value, what: impl Fn() -> String) {
        let user = view.op;
        let Some(def) = self.index.value_site(self.dfg, v) else {
            let name = view.name();
            self.error(Diagnostic::error(
                view.loc,
                format!(
                    "{} of '{name}' is not a value defined in this function",
                    what()
                ),
            ));
            return;
        };
        // The common case: a result of an earlier op of the same block.
        if let ValueDef::Result(d, _) = def
            && d != user
            && self.index.op_block[d].expand() == Some(view.block)
            && self.index.op_pos[d] < view.pos
        {
            return;
        }
        let name = view.name();
        let (def_block, def_op) = match def {
            ValueDef::Result(op, _) => (self.index.op_block[op].expect("placed"), Some(op)),
            ValueDef::Param(block, _) => (block, None),
        };
        let def_region = self.index.block_region[def_block].expect("placed");
        let Some(ancestor) = self.ancestor_in(user, def_region) else {
            self.error_with_note(
                self.dfg.loc(user),
                format!(
                    "{} of '{name}' is defined in a region that does not enclose this use",
                    what()
                ),
                self.def_loc(def),
                "defined here",
            );
            return;
        };
        let use_block = self.index.op_block[ancestor].expect("placed");
        let ok = match def_op {
            None => self.cfg.dominates(def_block, use_block),
            Some(d) if d == ancestor => {
                let message = if d == user {
                    format!("{} of '{name}' is a result of the same op", what())
                } else {
                    format!(
                        "{} of '{name}' is a result of the enclosing '{}', which is not visible inside its regions",
                        what(),
                        self.op_name(d)
                    )
                };
                self.error_with_note(
                    self.dfg.loc(user),
                    message,
                    self.def_loc(def),
                    "defined here",
                );
                return;
            }
            Some(d) if def_block == use_block => self.index.op_pos[d] < self.index.op_pos[ancestor],
            Some(d) => {
                if !self.cfg.reachable[use_block] {
                    true
                } else if matches!(self.dfg.kind(d), OpKind::TryCall { .. }) {
                    self.try_call_result_available(d, def_block, use_block, user, &what)
                } else {
                    self.cfg.dominates(def_block, use_block)
                }
            }
        };
        if !ok {
            self.error_with_note(
                self.dfg.loc(user),
                format!("{} of '{name}' does not dominate this use", what()),
                self.def_loc(def),
                "defined here",
            );
        }
    }

    /// Whether a result of `def` (a `cir.try_call`) is available in
    /// `use_block`. Reports the unwind-path misuse itself and then returns `true`.
    fn try_call_result_available(
        &self,
        def: Op,
        def_block: Block,
        use_block: Block,
        user: Op,
        what: &dyn Fn() -> String,
    ) -> bool {
        let succs = self.dfg.successors(def);
        let target = |i: usize| {
            succs
                .get(i)
                .and_then(|&s| self.dfg.successors.get(s))
                .map(|d| d.block)
        };
        let Some(normal) = target(0) else {
            return false;
        };
        if self.cfg.edge_dominates(def_block, normal, use_block) {
            return true;
        }
        if let Some(unwind) = target(1)
            && self.index.block_region[unwind] == self.index.block_region[def_block]
            && self.cfg.dominates(unwind, use_block)
        {
            self.error_with_note(
                self.dfg.loc(user),
                format!(
                    "{} of '{}' is a result of 'cir.try_call', which is not available on its unwind path",
                    what(),
                    self.op_name(user)
                ),
                self.dfg.loc(def),
                "defined here",
            );
            return true;
        }
        false
    }

    /// Where a value is defined, for "defined here" notes.
    pub(crate) fn def_loc(&self, def: ValueDef) -> crate::entities::Loc {
        match def {
            ValueDef::Result(op, _) => self.dfg.loc(op),
            ValueDef::Param(block, _) => self.block_loc(block),
        }
    }
}
