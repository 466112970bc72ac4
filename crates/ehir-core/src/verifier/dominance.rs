//! SSA dominance across nested regions, MLIR style.
//!
//! Each region has its own control flow graph (edges from its blocks' terminators to blocks
//! of the same region) and its own dominator tree (Lengauer and Tarjan's algorithm, then
//! pre/post numbers on the tree for O(1) queries).
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

use super::FuncVerifier;
use super::index::FuncIndex;
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
    dominators: DominatorScratch,
}

/// Buffers of [`Cfg::compute_dominators`], reused from one region to the next.
#[derive(Default)]
struct DominatorScratch {
    dfnum: Vec<u32>,
    vertex: Vec<u32>,
    parent: Vec<u32>,
    semi: Vec<u32>,
    label: Vec<u32>,
    ancestor: Vec<u32>,
    idom: Vec<u32>,
    /// The buckets of the algorithm as intrusive lists (a vertex is in at most one bucket
    /// at a time): the first vertex of bucket `v`, 0 for an empty one ...
    bucket_head: Vec<u32>,
    /// ... and the vertex after `w` in its bucket, 0 at the end.
    bucket_next: Vec<u32>,
    path: Vec<u32>,
    /// Dominator-tree children of vertex `v`: `children[child_start[v]..child_start[v + 1]]`.
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Next free slot of each vertex's children while `children` is filled.
    child_fill: Vec<u32>,
    /// Depth-first walk: vertex and next position.
    stack: Vec<(u32, u32)>,
}

/// Makes `v` hold `len` copies of `value`, reusing its allocation.
fn reset(v: &mut Vec<u32>, len: usize, value: u32) {
    v.clear();
    v.resize(len, value);
}

/// The kind of successor `index` of a terminator with `count` successors.
pub(crate) fn edge_kind(kind: &OpKind, index: usize, count: usize) -> EdgeKind {
    match kind {
        OpKind::TryCall { .. } if index == 1 => EdgeKind::Unwind,
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
        let mut scratch = std::mem::take(&mut cfg.dominators);
        for &region in &index.regions {
            cfg.compute_dominators(region, index, &mut scratch);
        }
        cfg.dominators = scratch;
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

    /// Lengauer and Tarjan's dominator algorithm (the simple version, with iterative path
    /// compression), near-linear even for long chains of blocks sharing one landing pad.
    /// Works on depth-first numbers `1..=n` of the blocks the entry reaches; 0 is "none".
    fn compute_dominators(
        &mut self,
        region: Region,
        index: &FuncIndex,
        scratch: &mut DominatorScratch,
    ) {
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
        let count = blocks.len();
        let DominatorScratch {
            dfnum,
            vertex,
            parent,
            semi,
            label,
            ancestor,
            idom,
            bucket_head,
            bucket_next,
            path,
            child_start,
            children,
            child_fill,
            stack,
        } = scratch;
        // Depth-first numbering from the entry.
        reset(dfnum, count, 0);
        reset(vertex, count + 1, 0);
        reset(parent, count + 1, 0);
        let mut n = 1u32;
        dfnum[0] = 1;
        vertex[1] = 0;
        stack.clear();
        stack.push((0, 0));
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            let succs = self.succs(blocks[v as usize]);
            if (next as usize) < succs.len() {
                top.1 += 1;
                let to = self.local[succs[next as usize].to] as usize;
                if dfnum[to] == 0 {
                    n += 1;
                    dfnum[to] = n;
                    vertex[n as usize] = to as u32;
                    parent[n as usize] = dfnum[v as usize];
                    stack.push((to as u32, 0));
                }
            } else {
                stack.pop();
            }
        }
        let n = n as usize;
        for (i, &b) in blocks.iter().enumerate() {
            self.reachable[b] = dfnum[i] != 0;
        }
        semi.clear();
        semi.extend(0..=n as u32);
        label.clear();
        label.extend(0..=n as u32);
        reset(ancestor, n + 1, 0);
        reset(idom, n + 1, 0);
        reset(bucket_head, n + 1, 0);
        reset(bucket_next, n + 1, 0);
        // `eval` with iterative path compression.
        let eval =
            |v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>| {
                if ancestor[v as usize] == 0 {
                    return v;
                }
                path.clear();
                let mut x = v;
                while ancestor[ancestor[x as usize] as usize] != 0 {
                    path.push(x);
                    x = ancestor[x as usize];
                }
                while let Some(x) = path.pop() {
                    let a = ancestor[x as usize] as usize;
                    if semi[label[a] as usize] < semi[label[x as usize] as usize] {
                        label[x as usize] = label[a];
                    }
                    ancestor[x as usize] = ancestor[a];
                }
                label[v as usize]
            };
        for w in (2..=n).rev() {
            for edge in self.preds(blocks[vertex[w] as usize]) {
                let v = dfnum[self.local[edge.from] as usize];
                if v == 0 {
                    continue;
                }
                let u = eval(v, ancestor, label, semi, path);
                if semi[u as usize] < semi[w] {
                    semi[w] = semi[u as usize];
                }
            }
            let s = semi[w] as usize;
            bucket_next[w] = bucket_head[s];
            bucket_head[s] = w as u32;
            let p = parent[w];
            ancestor[w] = p;
            let mut v = std::mem::take(&mut bucket_head[p as usize]);
            while v != 0 {
                let u = eval(v, ancestor, label, semi, path);
                idom[v as usize] = if semi[u as usize] < semi[v as usize] {
                    u
                } else {
                    p
                };
                v = bucket_next[v as usize];
            }
        }
        for w in 2..=n {
            if idom[w] != semi[w] {
                idom[w] = idom[idom[w] as usize];
            }
        }
        idom[1] = 1;
        // Children lists of the dominator tree (each in increasing order), then pre/post
        // numbers on the tree for constant-time queries.
        reset(child_start, n + 2, 0);
        for &d in &idom[2..=n] {
            child_start[d as usize + 1] += 1;
        }
        for i in 1..child_start.len() {
            child_start[i] += child_start[i - 1];
        }
        reset(children, n.saturating_sub(1), 0);
        {
            child_fill.clear();
            child_fill.extend_from_slice(child_start);
            for (w, &d) in idom.iter().enumerate().take(n + 1).skip(2) {
                children[child_fill[d as usize] as usize] = w as u32;
                child_fill[d as usize] += 1;
            }
        }
        let mut counter = 0u32;
        stack.clear();
        stack.push((1, 0));
        self.dom_pre[blocks[vertex[1] as usize]] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            let at = child_start[v as usize] + next;
            if at < child_start[v as usize + 1] {
                top.1 += 1;
                let child = children[at as usize];
                self.dom_pre[blocks[vertex[child as usize] as usize]] = counter;
                counter += 1;
                stack.push((child, 0));
            } else {
                self.dom_post[blocks[vertex[v as usize] as usize]] = counter;
                counter += 1;
                stack.pop();
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
    pub(crate) fn check_op_uses(&self, op: Op) {
        for (i, &v) in self.dfg.operands(op).iter().enumerate() {
            self.check_use(op, v, || format!("operand #{i}"));
        }
        for (s, &succ) in self.dfg.successors(op).iter().enumerate() {
            let Some(data) = self.dfg.successors.get(succ) else {
                continue;
            };
            for (i, &v) in data.args.as_slice(&self.dfg.value_lists).iter().enumerate() {
                self.check_use(op, v, || format!("argument #{i} of successor #{s}"));
            }
        }
    }

    fn check_use(&self, user: Op, v: Value, what: impl Fn() -> String) {
        let Some(def) = self.index.value_site(self.dfg, v) else {
            let name = self.op_name(user);
            self.error(Diagnostic::error(
                self.dfg.loc(user),
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
            && self.index.op_block[d] == self.index.op_block[user]
            && self.index.op_pos[d] < self.index.op_pos[user]
        {
            return;
        }
        let name = self.op_name(user);
        let (def_block, def_op) = match def {
            ValueDef::Result(op, _) => (self.index.op_block[op].expect("placed"), Some(op)),
            ValueDef::Param(block, _) => (block, None),
        };
        let def_region = self.index.block_region[def_block].expect("placed");
        // The user's ancestor in the defining region: the parent op of the user's enclosing
        // region one level below the defining region's depth.
        let def_depth = self.index.region_depth[def_region];
        let use_region = self.index.op_region(user).expect("placed");
        let ancestor = if self.index.region_depth[use_region] <= def_depth {
            (use_region == def_region).then_some(user)
        } else {
            let below = self.index.region_ancestor_at(use_region, def_depth + 1);
            self.index.region_parent[below]
                .expand()
                .filter(|&p| self.index.op_region(p) == Some(def_region))
        };
        let Some(ancestor) = ancestor else {
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
