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
    pub succs: SecondaryMap<Block, Vec<Edge>>,
    pub preds: SecondaryMap<Block, Vec<Edge>>,
    pub reachable: SecondaryMap<Block, bool>,
    /// Position of a block in its region's block list.
    local: SecondaryMap<Block, u32>,
    dom_pre: SecondaryMap<Block, u32>,
    dom_post: SecondaryMap<Block, u32>,
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
    /// Builds the CFG of every region. Edges that leave their region or enter a region's
    /// entry block are left out (the structure checks report them).
    pub fn build(dfg: &DataFlowGraph, index: &FuncIndex) -> Cfg {
        let mut cfg = Cfg::default();
        for &region in &index.regions {
            let blocks = &index.region_blocks[region];
            let Some(&entry) = blocks.first() else {
                continue;
            };
            for &block in blocks {
                let Some(term) = index.last_op(block) else {
                    continue;
                };
                let kind = dfg.kind(term);
                if !kind.is_terminator() {
                    continue;
                }
                let succs = dfg.successors(term);
                for (i, &s) in succs.iter().enumerate() {
                    let Some(data) = dfg.successors.get(s) else {
                        continue;
                    };
                    let to = data.block;
                    if index.block_region[to].expand() != Some(region) || to == entry {
                        continue;
                    }
                    let edge = Edge {
                        from: block,
                        to,
                        op: term,
                        index: i as u32,
                        kind: edge_kind(kind, i, succs.len()),
                    };
                    cfg.succs[block].push(edge);
                    cfg.preds[to].push(edge);
                }
            }
            cfg.compute_dominators(region, index);
        }
        cfg
    }

    /// Lengauer and Tarjan's dominator algorithm (the simple version, with iterative path
    /// compression), near-linear even for long chains of blocks sharing one landing pad.
    /// Works on depth-first numbers `1..=n` of the blocks the entry reaches; 0 is "none".
    fn compute_dominators(&mut self, region: Region, index: &FuncIndex) {
        let blocks = &index.region_blocks[region];
        for (i, &b) in blocks.iter().enumerate() {
            self.local[b] = i as u32;
        }
        let count = blocks.len();
        // Depth-first numbering from the entry.
        let mut dfnum = vec![0u32; count];
        let mut vertex = vec![0usize; count + 1];
        let mut parent = vec![0u32; count + 1];
        let mut n = 1u32;
        dfnum[0] = 1;
        vertex[1] = 0;
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            let succs = &self.succs[blocks[v]];
            if next < succs.len() {
                top.1 += 1;
                let to = self.local[succs[next].to] as usize;
                if dfnum[to] == 0 {
                    n += 1;
                    dfnum[to] = n;
                    vertex[n as usize] = to;
                    parent[n as usize] = dfnum[v];
                    stack.push((to, 0));
                }
            } else {
                stack.pop();
            }
        }
        let n = n as usize;
        for (i, &b) in blocks.iter().enumerate() {
            self.reachable[b] = dfnum[i] != 0;
        }
        let mut semi: Vec<u32> = (0..=n as u32).collect();
        let mut label: Vec<u32> = (0..=n as u32).collect();
        let mut ancestor = vec![0u32; n + 1];
        let mut idom = vec![0u32; n + 1];
        let mut bucket: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        let mut path: Vec<u32> = Vec::new();
        // `eval` with iterative path compression.
        let mut eval = |v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32]| {
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
            for edge in &self.preds[blocks[vertex[w]]] {
                let v = dfnum[self.local[edge.from] as usize];
                if v == 0 {
                    continue;
                }
                let u = eval(v, &mut ancestor, &mut label, &semi);
                if semi[u as usize] < semi[w] {
                    semi[w] = semi[u as usize];
                }
            }
            bucket[semi[w] as usize].push(w as u32);
            let p = parent[w];
            ancestor[w] = p;
            for v in std::mem::take(&mut bucket[p as usize]) {
                let u = eval(v, &mut ancestor, &mut label, &semi);
                idom[v as usize] = if semi[u as usize] < semi[v as usize] {
                    u
                } else {
                    p
                };
            }
        }
        for w in 2..=n {
            if idom[w] != semi[w] {
                idom[w] = idom[idom[w] as usize];
            }
        }
        idom[1] = 1;
        // Pre/post numbers on the dominator tree for constant-time queries.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for (w, &d) in idom.iter().enumerate().skip(2) {
            children[d as usize].push(w as u32);
        }
        let mut counter = 0u32;
        let mut stack: Vec<(usize, usize)> = vec![(1, 0)];
        self.dom_pre[blocks[vertex[1]]] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            if let Some(&child) = children[v].get(next) {
                top.1 += 1;
                self.dom_pre[blocks[vertex[child as usize]]] = counter;
                counter += 1;
                stack.push((child as usize, 0));
            } else {
                self.dom_post[blocks[vertex[v]]] = counter;
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
        for edge in &self.preds[to] {
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
    pub(crate) fn check_dominance(&self) {
        for &op in &self.index.ops {
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
    }

    fn check_use(&self, user: Op, v: Value, what: impl Fn() -> String) {
        let name = self.op_name(user);
        let Some(def) = self.index.value_site(self.dfg, v) else {
            self.error(Diagnostic::error(
                self.dfg.loc(user),
                format!(
                    "{} of '{name}' is not a value defined in this function",
                    what()
                ),
            ));
            return;
        };
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
            self.error(
                Diagnostic::error(
                    self.dfg.loc(user),
                    format!(
                        "{} of '{name}' is defined in a region that does not enclose this use",
                        what()
                    ),
                )
                .with_note(self.def_loc(def), "defined here"),
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
                self.error(
                    Diagnostic::error(self.dfg.loc(user), message)
                        .with_note(self.def_loc(def), "defined here"),
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
            self.error(
                Diagnostic::error(
                    self.dfg.loc(user),
                    format!("{} of '{name}' does not dominate this use", what()),
                )
                .with_note(self.def_loc(def), "defined here"),
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
            self.error(
                Diagnostic::error(
                    self.dfg.loc(user),
                    format!(
                        "{} of '{}' is a result of 'cir.try_call', which is not available on its unwind path",
                        what(),
                        self.op_name(user)
                    ),
                )
                .with_note(self.dfg.loc(def), "defined here"),
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
