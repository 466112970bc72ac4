//! Dominator trees of any directed graph of `u32` nodes, with constant-time dominance
//! queries from pre/post numbers on the tree.
//!
//! The immediate dominators come from Cooper, Harvey and Kennedy's iterative algorithm
//! (a pass or two in reverse postorder on the control flow of real code) as long as it
//! stays within a budget linear in the graph's size; a graph that would make it work
//! harder (it is quadratic on long chains sharing a join node) gets Lengauer and Tarjan's
//! near-linear algorithm instead. Both find the one dominator tree of the graph.
//!
//! The verifier runs it on the CFG of every region, and on the finer graph of a region
//! that `cir.goto`s jump into (blocks split at the ops a goto leaves from or enters at).

/// A directed graph whose nodes are `0..node_count()`.
pub trait DirectedGraph {
    /// How many nodes there are.
    fn node_count(&self) -> usize;
    /// Successor number `index` of `node`, `None` past the last one.
    fn successor(&self, node: u32, index: usize) -> Option<u32>;
    /// Calls `visit` with every predecessor of `node` (once per edge).
    fn for_each_predecessor(&self, node: u32, visit: impl FnMut(u32));
}

/// The dominator tree of a graph from one root, and the buffers that computed it (reused
/// by the next [`DominatorTree::compute`]).
#[derive(Default)]
pub struct DominatorTree {
    /// Depth-first number of each node from 1, 0 for a node the root does not reach.
    dfnum: Vec<u32>,
    /// Pre and post numbers of each reached node in the dominator tree.
    pre: Vec<u32>,
    post: Vec<u32>,
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
    /// Vertices (depth-first numbers) in reverse postorder, and each vertex's position
    /// in it.
    reverse_postorder: Vec<u32>,
    rpo_number: Vec<u32>,
}

/// Steps allowed to the iterative algorithm per node and edge before it gives way to
/// Lengauer and Tarjan's.
const ITERATIVE_STEPS_PER_ENTITY: usize = 8;

/// Makes `v` hold `len` copies of `value`, reusing its allocation.
fn reset(v: &mut Vec<u32>, len: usize, value: u32) {
    v.clear();
    v.resize(len, value);
}

impl DominatorTree {
    /// Computes the dominator tree of `graph` from `root` (near-linear, no host
    /// recursion).
    pub fn compute(&mut self, graph: &impl DirectedGraph, root: u32) {
        self.compute_within(graph, root, ITERATIVE_STEPS_PER_ENTITY);
    }

    /// [`DominatorTree::compute`], allowing the iterative algorithm `steps_per_entity`
    /// steps per node and edge (0: Lengauer and Tarjan's algorithm straight away).
    /// Whether the iterative algorithm finished.
    fn compute_within(
        &mut self,
        graph: &impl DirectedGraph,
        root: u32,
        steps_per_entity: usize,
    ) -> bool {
        let count = graph.node_count();
        let DominatorTree {
            dfnum,
            pre,
            post,
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
            reverse_postorder,
            rpo_number,
        } = self;
        reset(dfnum, count, 0);
        reset(pre, count, 0);
        reset(post, count, 0);
        if root as usize >= count {
            return true;
        }
        // Depth-first numbering from the root.
        reset(vertex, count + 1, 0);
        reset(parent, count + 1, 0);
        let mut n = 1u32;
        let mut edges = 0usize;
        dfnum[root as usize] = 1;
        vertex[1] = root;
        stack.clear();
        stack.push((root, 0));
        // In postorder first; reversed below.
        reverse_postorder.clear();
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            if let Some(to) = graph.successor(v, next as usize) {
                top.1 += 1;
                edges += 1;
                if dfnum[to as usize] == 0 {
                    n += 1;
                    dfnum[to as usize] = n;
                    vertex[n as usize] = to;
                    parent[n as usize] = dfnum[v as usize];
                    stack.push((to, 0));
                }
            } else {
                reverse_postorder.push(dfnum[v as usize]);
                stack.pop();
            }
        }
        let n = n as usize;
        reverse_postorder.reverse();
        reset(idom, n + 1, 0);
        let steps = steps_per_entity * (n + edges);
        let iterated = iterate_idoms(
            graph,
            dfnum,
            vertex,
            reverse_postorder,
            rpo_number,
            idom,
            steps,
        );
        if !iterated {
            lengauer_tarjan(
                graph,
                n,
                (dfnum, vertex, parent),
                (semi, label, ancestor, idom),
                (bucket_head, bucket_next, path),
            );
        }
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
        child_fill.clear();
        child_fill.extend_from_slice(child_start);
        for (w, &d) in idom.iter().enumerate().take(n + 1).skip(2) {
            children[child_fill[d as usize] as usize] = w as u32;
            child_fill[d as usize] += 1;
        }
        let mut counter = 0u32;
        stack.clear();
        stack.push((1, 0));
        pre[vertex[1] as usize] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            let at = child_start[v as usize] + next;
            if at < child_start[v as usize + 1] {
                top.1 += 1;
                let child = children[at as usize];
                pre[vertex[child as usize] as usize] = counter;
                counter += 1;
                stack.push((child, 0));
            } else {
                post[vertex[v as usize] as usize] = counter;
                counter += 1;
                stack.pop();
            }
        }
        iterated
    }

    /// Whether the root reaches `node`.
    #[inline]
    pub fn is_reachable(&self, node: u32) -> bool {
        self.dfnum.get(node as usize).is_some_and(|&d| d != 0)
    }

    /// The pre and post numbers of a reached node in the dominator tree (`a` dominates `b`
    /// exactly when `pre(a) <= pre(b)` and `post(b) <= post(a)`).
    #[inline]
    pub fn pre_post(&self, node: u32) -> (u32, u32) {
        (self.pre[node as usize], self.post[node as usize])
    }

    /// Whether `a` dominates `b`. Every node dominates itself and every node the root does
    /// not reach; an unreached node dominates only itself and unreached nodes.
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        if a == b || !self.is_reachable(b) {
            return true;
        }
        if !self.is_reachable(a) {
            return false;
        }
        let (a_pre, a_post) = self.pre_post(a);
        let (b_pre, b_post) = self.pre_post(b);
        a_pre <= b_pre && b_post <= a_post
    }
}

/// Cooper, Harvey and Kennedy's iterative algorithm on the vertices (depth-first numbers
/// from 1) in `reverse_postorder`: fills `idom` (vertex to vertex; the root's is itself,
/// all others 0 on entry) and returns true, or gives up and returns false after `steps`
/// steps.
fn iterate_idoms(
    graph: &impl DirectedGraph,
    dfnum: &[u32],
    vertex: &[u32],
    reverse_postorder: &[u32],
    rpo_number: &mut Vec<u32>,
    idom: &mut [u32],
    mut steps: usize,
) -> bool {
    reset(rpo_number, reverse_postorder.len() + 1, 0);
    for (i, &v) in reverse_postorder.iter().enumerate() {
        rpo_number[v as usize] = i as u32;
    }
    idom[1] = 1;
    let mut changed = true;
    while changed {
        changed = false;
        for &w in &reverse_postorder[1..] {
            // The nearest common dominator of the predecessors processed so far.
            let mut new_idom = 0u32;
            graph.for_each_predecessor(vertex[w as usize], |from| {
                let p = dfnum[from as usize];
                if p == 0 || idom[p as usize] == 0 || steps == 0 {
                    return;
                }
                steps -= 1;
                if new_idom == 0 {
                    new_idom = p;
                    return;
                }
                let (mut a, mut b) = (p, new_idom);
                while a != b && steps > 0 {
                    while rpo_number[a as usize] > rpo_number[b as usize] && steps > 0 {
                        a = idom[a as usize];
                        steps -= 1;
                    }
                    while rpo_number[b as usize] > rpo_number[a as usize] && steps > 0 {
                        b = idom[b as usize];
                        steps -= 1;
                    }
                }
                new_idom = a;
            });
            if steps == 0 {
                return false;
            }
            if idom[w as usize] != new_idom {
                idom[w as usize] = new_idom;
                changed = true;
            }
        }
    }
    true
}

/// Lengauer and Tarjan's algorithm (the simple version, with iterative path compression:
/// near-linear even for long chains sharing one join node, and no host recursion) on the
/// `n` vertices numbered depth-first from 1: fills `idom` (`n + 1` entries).
fn lengauer_tarjan(
    graph: &impl DirectedGraph,
    n: usize,
    (dfnum, vertex, parent): (&[u32], &[u32], &[u32]),
    (semi, label, ancestor, idom): (&mut Vec<u32>, &mut Vec<u32>, &mut Vec<u32>, &mut [u32]),
    (bucket_head, bucket_next, path): (&mut Vec<u32>, &mut Vec<u32>, &mut Vec<u32>),
) {
    semi.clear();
    semi.extend(0..=n as u32);
    label.clear();
    label.extend(0..=n as u32);
    reset(ancestor, n + 1, 0);
    idom.fill(0);
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
        graph.for_each_predecessor(vertex[w], |from| {
            let v = dfnum[from as usize];
            if v == 0 {
                return;
            }
            let u = eval(v, ancestor, label, semi, path);
            if semi[u as usize] < semi[w] {
                semi[w] = semi[u as usize];
            }
        });
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph as successor lists.
    struct Lists(Vec<Vec<u32>>);

    impl DirectedGraph for Lists {
        fn node_count(&self) -> usize {
            self.0.len()
        }
        fn successor(&self, node: u32, index: usize) -> Option<u32> {
            self.0[node as usize].get(index).copied()
        }
        fn for_each_predecessor(&self, node: u32, mut visit: impl FnMut(u32)) {
            for (from, succs) in self.0.iter().enumerate() {
                for &to in succs {
                    if to == node {
                        visit(from as u32);
                    }
                }
            }
        }
    }

    #[test]
    fn diamond_loop_and_unreached_node() {
        // 0 -> 1 -> {2, 3} -> 4 -> 1; 5 is not reached.
        let graph = Lists(vec![
            vec![1],
            vec![2, 3],
            vec![4],
            vec![4],
            vec![1],
            vec![4],
        ]);
        let mut tree = DominatorTree::default();
        tree.compute(&graph, 0);
        assert!(tree.dominates(0, 4) && tree.dominates(1, 4) && tree.dominates(1, 2));
        assert!(!tree.dominates(2, 4) && !tree.dominates(3, 4) && !tree.dominates(4, 1));
        assert!(!tree.is_reachable(5));
        assert!(
            tree.dominates(2, 5),
            "everything dominates an unreached node"
        );
        assert!(
            !tree.dominates(5, 4),
            "an unreached node dominates no reached one"
        );
        // A second graph reuses the buffers: root 2 reaches only 2, 4 and 1..
        tree.compute(&graph, 2);
        assert!(tree.dominates(2, 4) && tree.dominates(4, 1) && tree.dominates(1, 3));
        assert!(!tree.is_reachable(0));
    }

    /// Both algorithms find the same tree: the iterative one (with its usual budget, and
    /// with no budget at all) and Lengauer and Tarjan's, on pseudo-random graphs with
    /// loops, unreached nodes and a long chain sharing one join node.
    #[test]
    fn iterative_and_lengauer_tarjan_agree() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(bound)) as u32
        };
        let mut graphs = Vec::new();
        for size in [2u32, 3, 5, 8, 13, 40, 90] {
            for _ in 0..20 {
                let lists = (0..size)
                    .map(|_| (0..next(4)).map(|_| next(size)).collect())
                    .collect();
                graphs.push(Lists(lists));
            }
        }
        // A chain 0 -> 1 -> ... -> 199 where every node also jumps to the join node 200.
        let chain = 200u32;
        let mut lists: Vec<Vec<u32>> = (0..chain).map(|i| vec![i + 1, chain]).collect();
        lists[chain as usize - 1] = vec![chain];
        lists.push(vec![]);
        graphs.push(Lists(lists));
        let (mut iterative, mut unbounded, mut classic) = Default::default();
        let (iterative, unbounded, classic): (
            &mut DominatorTree,
            &mut DominatorTree,
            &mut DominatorTree,
        ) = (&mut iterative, &mut unbounded, &mut classic);
        let mut iterated = 0;
        for graph in &graphs {
            let count = graph.node_count() as u32;
            iterated += usize::from(iterative.compute_within(graph, 0, ITERATIVE_STEPS_PER_ENTITY));
            assert!(unbounded.compute_within(graph, 0, usize::MAX / 1024));
            // No steps: Lengauer and Tarjan's algorithm whenever the root reaches a node.
            classic.compute_within(graph, 0, 0);
            for a in 0..count {
                for b in 0..count {
                    let expected = classic.dominates(a, b);
                    assert_eq!(iterative.dominates(a, b), expected, "{a} dom {b}");
                    assert_eq!(unbounded.dominates(a, b), expected, "{a} dom {b}");
                }
            }
        }
        // Nearly all random graphs stay within the budget (irreducible ones may not); the
        // chain does not.
        assert!(iterated >= (graphs.len() - 1) * 9 / 10, "{iterated}");
        // The join node's dominator is the chain's start, its last node's its predecessor.
        let join = graphs.last().unwrap();
        assert!(!iterative.compute_within(join, 0, ITERATIVE_STEPS_PER_ENTITY));
        assert!(iterative.dominates(0, chain) && !iterative.dominates(1, chain));
        assert!(iterative.dominates(chain - 2, chain - 1));
    }
}
