//! The data flow graph of a function: op data, values, blocks, regions, successor edges
//! and the list pools they share. Placement of ops and blocks is the [`crate::Layout`]'s job.

use crate::entities::{Block, Extra, Loc, Op, Region, Successor, Type, Value};
use crate::ops::{ExtraData, OpKind};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityList, ListPool, PrimaryMap};

/// Everything about an op except where it sits.
#[derive(Clone, Debug)]
pub struct OpData {
    /// What the op is, with its small payload.
    pub kind: OpKind,
    /// The values the op uses, in operand order.
    pub operands: EntityList<Value>,
    /// The values the op defines, in result order.
    pub results: EntityList<Value>,
    /// Its successor edges (terminators only).
    pub successors: EntityList<Successor>,
    /// The regions it owns, in order (see the `OpKind` variant for their roles).
    pub regions: EntityList<Region>,
    /// Where it came from in the source (`Loc::NONE` if synthesized).
    pub loc: Loc,
}

/// Where a value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result number `n` of an op.
    Result(Op, u32),
    /// Parameter number `n` of a block.
    Param(Block, u32),
}

/// What a value is: its type and where it is defined.
#[derive(Copy, Clone, Debug)]
pub struct ValueData {
    /// The value's type.
    pub ty: Type,
    /// The op result or block parameter that defines it.
    pub def: ValueDef,
}

/// A successor edge: target block and the arguments passed to its parameters.
#[derive(Clone, Debug)]
pub struct SuccessorData {
    /// The target block, in the same region as the terminator.
    pub block: Block,
    /// The values passed to the target block's parameters, in order.
    pub args: EntityList<Value>,
}

/// A block's parameters and location (its ops are in the [`crate::Layout`]).
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    /// The block's parameters (values defined on entry).
    pub params: EntityList<Value>,
    /// Where the block's label is in the source.
    pub loc: Loc,
}

/// What a region knows of itself (its blocks are in the [`crate::Layout`]).
#[derive(Clone, Debug, Default)]
pub struct RegionData {
    /// The op owning the region; `None` for a function body.
    pub parent: PackedOption<Op>,
}

/// One use of a value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Use {
    /// Operand `n` of an op.
    Operand(Op, u32),
    /// Argument `n` passed along successor edge `succ` of op.
    SuccessorArg(Op, Successor, u32),
}

/// The data flow graph of one function.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    /// Every op created in the function, placed or not.
    pub ops: PrimaryMap<Op, OpData>,
    /// Every value: op results and block parameters.
    pub values: PrimaryMap<Value, ValueData>,
    /// Every block created.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Every region created (the body included).
    pub regions: PrimaryMap<Region, RegionData>,
    /// Every successor edge.
    pub successors: PrimaryMap<Successor, SuccessorData>,
    /// Variable-length op payloads (handler keys, switch cases, landing-pad clauses).
    pub extras: PrimaryMap<Extra, ExtraData>,
    /// Storage of the operand, result, block-parameter and edge-argument lists.
    pub value_lists: ListPool<Value>,
    /// Storage of the ops' successor lists.
    pub successor_lists: ListPool<Successor>,
    /// Storage of the ops' region lists.
    pub region_lists: ListPool<Region>,
}

/// How many entities (and list-pool slots) a data flow graph holds: what to reserve
/// before building one of about the same size.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DfgSize {
    /// Ops.
    pub ops: usize,
    /// Values.
    pub values: usize,
    /// Blocks.
    pub blocks: usize,
    /// Regions.
    pub regions: usize,
    /// Successor edges.
    pub successors: usize,
    /// Slots of `value_lists`, `successor_lists` and `region_lists` in use.
    pub value_list_slots: usize,
    /// Slots of `successor_lists` in use.
    pub successor_list_slots: usize,
    /// Slots of `region_lists` in use.
    pub region_list_slots: usize,
}

/// Pool slots taken by a list of `len` elements (its length word included): lists are
/// stored in blocks of 4, 8, 16, ... slots.
pub(crate) fn list_slots(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len + 1).next_power_of_two().max(4)
    }
}

impl DataFlowGraph {
    /// An empty data flow graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of entities and list slots in use.
    pub fn size(&self) -> DfgSize {
        let mut size = DfgSize {
            ops: self.ops.len(),
            values: self.values.len(),
            blocks: self.blocks.len(),
            regions: self.regions.len(),
            successors: self.successors.len(),
            ..DfgSize::default()
        };
        for data in self.ops.values() {
            size.value_list_slots += list_slots(data.operands.len(&self.value_lists))
                + list_slots(data.results.len(&self.value_lists));
            size.successor_list_slots += list_slots(data.successors.len(&self.successor_lists));
            size.region_list_slots += list_slots(data.regions.len(&self.region_lists));
        }
        for data in self.blocks.values() {
            size.value_list_slots += list_slots(data.params.len(&self.value_lists));
        }
        for data in self.successors.values() {
            size.value_list_slots += list_slots(data.args.len(&self.value_lists));
        }
        size
    }

    /// Reserves room for a graph of `size` in total, so that building it does not grow
    /// the tables on the way. Existing entities and lists are kept; list pools that
    /// hold no list yet are given room for `size`'s slots.
    pub fn reserve(&mut self, size: DfgSize) {
        fn room<K: cranelift_entity::EntityRef, V>(map: &mut PrimaryMap<K, V>, n: usize) {
            map.reserve(n.saturating_sub(map.len()));
        }
        room(&mut self.ops, size.ops);
        room(&mut self.values, size.values);
        room(&mut self.blocks, size.blocks);
        room(&mut self.regions, size.regions);
        room(&mut self.successors, size.successors);
        let current = self.size();
        let slots = [
            (current.value_list_slots, size.value_list_slots),
            (current.successor_list_slots, size.successor_list_slots),
            (current.region_list_slots, size.region_list_slots),
        ];
        // Moving the few lists of a graph that is just starting is cheap; a graph that
        // already holds many keeps its pools.
        if slots.iter().any(|&(used, want)| want > used) && current.ops == 0 {
            self.rebuild_lists(slots.map(|(used, want)| used.max(want)));
        }
    }

    /// Releases the spare room of the entity tables. Entities keep their numbers. The
    /// list pools are left as they are (see [`DataFlowGraph::compact_lists`]).
    pub fn shrink_to_fit(&mut self) {
        self.ops.shrink_to_fit();
        self.values.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self.regions.shrink_to_fit();
        self.successors.shrink_to_fit();
        self.extras.shrink_to_fit();
    }

    /// Copies every list into fresh, exactly sized pools, dropping the storage of lists
    /// that were cleared or replaced and the pools' spare room. Lists keep their contents;
    /// list handles held outside the graph become invalid.
    pub fn compact_lists(&mut self) {
        let size = self.size();
        self.rebuild_lists([
            size.value_list_slots,
            size.successor_list_slots,
            size.region_list_slots,
        ]);
    }

    /// Copies every list into fresh pools with room for `slots` slots each.
    fn rebuild_lists(&mut self, slots: [usize; 3]) {
        let mut values = ListPool::with_capacity(slots[0]);
        let mut successors = ListPool::with_capacity(slots[1]);
        let mut regions = ListPool::with_capacity(slots[2]);
        let copy = |list: &EntityList<Value>, from: &ListPool<Value>, to: &mut ListPool<Value>| {
            EntityList::from_slice(list.as_slice(from), to)
        };
        for data in self.ops.values_mut() {
            data.operands = copy(&data.operands, &self.value_lists, &mut values);
            data.results = copy(&data.results, &self.value_lists, &mut values);
            data.successors = EntityList::from_slice(
                data.successors.as_slice(&self.successor_lists),
                &mut successors,
            );
            data.regions =
                EntityList::from_slice(data.regions.as_slice(&self.region_lists), &mut regions);
        }
        for data in self.blocks.values_mut() {
            data.params = copy(&data.params, &self.value_lists, &mut values);
        }
        for data in self.successors.values_mut() {
            data.args = copy(&data.args, &self.value_lists, &mut values);
        }
        self.value_lists = values;
        self.successor_lists = successors;
        self.region_lists = regions;
    }

    /// Creates an op (not yet placed in a block) with fresh results of `result_types`,
    /// the given successor edges and `num_regions` fresh empty regions.
    pub fn make_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        successors: &[(Block, &[Value])],
        num_regions: usize,
        loc: Loc,
    ) -> Op {
        let operands = EntityList::from_slice(operands, &mut self.value_lists);
        let op = self.ops.push(OpData {
            kind,
            operands,
            results: EntityList::new(),
            successors: EntityList::new(),
            regions: EntityList::new(),
            loc,
        });
        for (i, &ty) in result_types.iter().enumerate() {
            let v = self.values.push(ValueData {
                ty,
                def: ValueDef::Result(op, i as u32),
            });
            self.ops[op].results.push(v, &mut self.value_lists);
        }
        for &(block, args) in successors {
            let s = self.make_successor(block, args);
            self.ops[op].successors.push(s, &mut self.successor_lists);
        }
        for _ in 0..num_regions {
            let r = self.regions.push(RegionData { parent: op.into() });
            self.ops[op].regions.push(r, &mut self.region_lists);
        }
        op
    }

    /// Creates a successor edge (not attached to any op).
    pub fn make_successor(&mut self, block: Block, args: &[Value]) -> Successor {
        let args = EntityList::from_slice(args, &mut self.value_lists);
        self.successors.push(SuccessorData { block, args })
    }

    /// Creates a block with no parameters (not yet placed in a region).
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Creates a region owned by `parent` (`None` for a function body).
    pub fn make_region(&mut self, parent: Option<Op>) -> Region {
        self.regions.push(RegionData {
            parent: parent.into(),
        })
    }

    /// Appends a region to an op (used by parsers that create regions as they go).
    pub fn attach_region(&mut self, op: Op, region: Region) {
        self.regions[region].parent = op.into();
        self.ops[op].regions.push(region, &mut self.region_lists);
    }

    /// Appends a successor edge to an op.
    pub fn attach_successor(&mut self, op: Op, succ: Successor) {
        self.ops[op]
            .successors
            .push(succ, &mut self.successor_lists);
    }

    /// Adds a parameter to a block.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let list = &mut self.blocks[block].params;
        append_value(&mut self.values, &mut self.value_lists, list, ty, |n| {
            ValueDef::Param(block, n)
        })
    }

    /// Removes all parameters of a block. Uses of them become dangling; callers replace them.
    pub fn clear_block_params(&mut self, block: Block) {
        self.blocks[block].params.clear(&mut self.value_lists);
    }

    /// What `op` is.
    #[inline]
    pub fn kind(&self, op: Op) -> &OpKind {
        &self.ops[op].kind
    }

    /// Where `op` came from.
    #[inline]
    pub fn loc(&self, op: Op) -> Loc {
        self.ops[op].loc
    }

    /// The operands of `op`.
    #[inline]
    pub fn operands(&self, op: Op) -> &[Value] {
        self.ops[op].operands.as_slice(&self.value_lists)
    }

    /// The operands of `op`, to replace some (uses are not tracked elsewhere).
    pub fn operands_mut(&mut self, op: Op) -> &mut [Value] {
        self.ops[op].operands.as_mut_slice(&mut self.value_lists)
    }

    /// Replaces the operand list of an op.
    pub fn set_operands(&mut self, op: Op, operands: &[Value]) {
        let mut list = std::mem::take(&mut self.ops[op].operands);
        list.clear(&mut self.value_lists);
        list.extend(operands.iter().copied(), &mut self.value_lists);
        self.ops[op].operands = list;
    }

    /// The results of `op`.
    #[inline]
    pub fn results(&self, op: Op) -> &[Value] {
        self.ops[op].results.as_slice(&self.value_lists)
    }

    /// The single result of an op. Panics if the op does not have exactly one result:
    /// for builders that just created the op.
    pub fn result(&self, op: Op) -> Value {
        let r = self.results(op);
        assert_eq!(r.len(), 1, "op {op} does not have exactly one result");
        r[0]
    }

    /// Adds a result to an existing op (used by parsers and by rewrites).
    pub fn append_result(&mut self, op: Op, ty: Type) -> Value {
        let list = &mut self.ops[op].results;
        append_value(&mut self.values, &mut self.value_lists, list, ty, |n| {
            ValueDef::Result(op, n)
        })
    }

    /// The successor edges of `op` (empty unless a terminator).
    #[inline]
    pub fn successors(&self, op: Op) -> &[Successor] {
        self.ops[op].successors.as_slice(&self.successor_lists)
    }

    /// The successor edges of a `cir.catchswitch` split into its handlers and its unwind
    /// destination (`None` when it unwinds to the caller). Any other op: all its edges,
    /// and `None`.
    pub fn catchswitch_edges(&self, op: Op) -> (&[Successor], Option<Successor>) {
        let successors = self.successors(op);
        match (self.kind(op), successors.split_last()) {
            (
                OpKind::CatchSwitch {
                    unwind_to_caller: false,
                },
                Some((&unwind, handlers)),
            ) => (handlers, Some(unwind)),
            _ => (successors, None),
        }
    }

    /// Removes all successor edges of an op.
    pub fn clear_successors(&mut self, op: Op) {
        self.ops[op].successors.clear(&mut self.successor_lists);
    }

    /// The target blocks of an op's successor edges, in order.
    pub fn successor_blocks(&self, op: Op) -> impl Iterator<Item = Block> + '_ {
        self.successors(op)
            .iter()
            .map(|&s| self.successors[s].block)
    }

    /// The block an edge goes to.
    #[inline]
    pub fn successor_block(&self, succ: Successor) -> Block {
        self.successors[succ].block
    }

    /// The arguments an edge passes to its block's parameters.
    #[inline]
    pub fn successor_args(&self, succ: Successor) -> &[Value] {
        self.successors[succ].args.as_slice(&self.value_lists)
    }

    /// Retargets a successor edge.
    pub fn set_successor(&mut self, succ: Successor, block: Block, args: &[Value]) {
        let mut list = std::mem::take(&mut self.successors[succ].args);
        list.clear(&mut self.value_lists);
        list.extend(args.iter().copied(), &mut self.value_lists);
        self.successors[succ] = SuccessorData { block, args: list };
    }

    /// The regions `op` owns.
    #[inline]
    pub fn regions(&self, op: Op) -> &[Region] {
        self.ops[op].regions.as_slice(&self.region_lists)
    }

    /// Detaches all regions from an op (their blocks stay allocated; a rewrite moves them).
    pub fn clear_regions(&mut self, op: Op) {
        self.ops[op].regions.clear(&mut self.region_lists);
    }

    /// The op owning `region`; `None` for the function body.
    pub fn region_parent(&self, region: Region) -> Option<Op> {
        self.regions[region].parent.expand()
    }

    /// The parameters of `block`.
    #[inline]
    pub fn block_params(&self, block: Block) -> &[Value] {
        self.blocks[block].params.as_slice(&self.value_lists)
    }

    /// The type of `v`.
    #[inline]
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// Where `v` is defined.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    /// Stores a variable-length payload.
    pub fn make_extra(&mut self, data: ExtraData) -> Extra {
        self.extras.push(data)
    }

    /// A variable-length payload.
    pub fn extra(&self, e: Extra) -> &ExtraData {
        &self.extras[e]
    }

    /// Handlers of a `cir.try` / keys of a `cir.eh.dispatch`.
    pub fn handlers(&self, e: Extra) -> &[crate::ops::HandlerKey] {
        match &self.extras[e] {
            ExtraData::Handlers(h) => h,
            _ => &[],
        }
    }

    /// Replaces every use of `old` (operands and successor arguments) by `new` in `ops`.
    pub fn replace_uses_in(&mut self, ops: &[Op], old: Value, new: Value) {
        for &op in ops {
            for v in self.ops[op].operands.as_mut_slice(&mut self.value_lists) {
                if *v == old {
                    *v = new;
                }
            }
            let succs: Vec<Successor> = self.successors(op).to_vec();
            for s in succs {
                for v in self.successors[s].args.as_mut_slice(&mut self.value_lists) {
                    if *v == old {
                        *v = new;
                    }
                }
            }
        }
    }
}

/// Appends a new value of type `ty` to `list`; `def` says what defines it, given its
/// position in the list.
fn append_value(
    values: &mut PrimaryMap<Value, ValueData>,
    pool: &mut ListPool<Value>,
    list: &mut EntityList<Value>,
    ty: Type,
    def: impl FnOnce(u32) -> ValueDef,
) -> Value {
    let position = list.len(pool) as u32;
    let value = values.push(ValueData {
        ty,
        def: def(position),
    });
    list.push(value, pool);
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::Type;
    use cranelift_entity::EntityRef;

    /// Every list of the graph, in entity order.
    fn lists(dfg: &DataFlowGraph) -> Vec<Vec<u32>> {
        let ids = |vs: &[Value]| vs.iter().map(|v| v.as_u32()).collect::<Vec<_>>();
        let mut out = Vec::new();
        for (op, _) in dfg.ops.iter() {
            out.push(ids(dfg.operands(op)));
            out.push(ids(dfg.results(op)));
            out.push(dfg.successors(op).iter().map(|s| s.as_u32()).collect());
            out.push(dfg.regions(op).iter().map(|r| r.as_u32()).collect());
        }
        for (block, _) in dfg.blocks.iter() {
            out.push(ids(dfg.block_params(block)));
        }
        for (succ, _) in dfg.successors.iter() {
            out.push(ids(dfg.successor_args(succ)));
        }
        out
    }

    fn sample() -> DataFlowGraph {
        let mut dfg = DataFlowGraph::new();
        let ty = Type::new(4);
        let b0 = dfg.make_block();
        let b1 = dfg.make_block();
        let p = dfg.append_block_param(b0, ty);
        let q = dfg.append_block_param(b1, ty);
        let a = dfg.make_op(OpKind::Select, &[p, p, p], &[ty], &[], 0, Loc::NONE);
        let av = dfg.result(a);
        let many: Vec<Type> = vec![ty; 9];
        dfg.make_op(OpKind::Scope, &[av, q, p, av, q], &many, &[], 2, Loc::NONE);
        dfg.make_op(
            OpKind::BrCond,
            &[av],
            &[],
            &[(b1, &[av]), (b0, &[])],
            0,
            Loc::NONE,
        );
        // A list that is replaced leaves garbage in the pool.
        dfg.set_operands(a, &[q]);
        dfg
    }

    #[test]
    fn size_counts_entities_and_slots() {
        let dfg = sample();
        let size = dfg.size();
        assert_eq!(size.ops, 3);
        assert_eq!(size.values, 2 + 1 + 9);
        assert_eq!(size.blocks, 2);
        assert_eq!(size.regions, 2);
        assert_eq!(size.successors, 2);
        // Slots: params 4 + 4; op a: [q] 4, result 4; scope: 5 operands 8, 9 results 16;
        // brcond: 1 operand 4; successor args [av] 4.
        assert_eq!(size.value_list_slots, 4 + 4 + 4 + 4 + 8 + 16 + 4 + 4);
        assert_eq!(size.successor_list_slots, 4);
        assert_eq!(size.region_list_slots, 4);
    }

    #[test]
    fn compacting_and_shrinking_keep_every_list() {
        let mut dfg = sample();
        let before = lists(&dfg);
        let used = dfg.size();
        dfg.compact_lists();
        assert_eq!(lists(&dfg), before);
        assert_eq!(dfg.value_lists.capacity(), used.value_list_slots);
        dfg.shrink_to_fit();
        assert_eq!(lists(&dfg), before);
        assert_eq!(dfg.ops.len(), 3);
    }

    #[test]
    fn reserving_keeps_a_started_graph() {
        let mut dfg = DataFlowGraph::new();
        let b = dfg.make_block();
        let p = dfg.append_block_param(b, Type::new(1));
        let size = DfgSize {
            ops: 100,
            values: 100,
            blocks: 10,
            regions: 10,
            successors: 10,
            value_list_slots: 400,
            successor_list_slots: 40,
            region_list_slots: 40,
        };
        dfg.reserve(size);
        assert_eq!(dfg.block_params(b), &[p]);
        assert!(dfg.value_lists.capacity() >= 400);
        let op = dfg.make_op(OpKind::Return, &[p], &[], &[], 0, Loc::NONE);
        assert_eq!(dfg.operands(op), &[p]);
    }
}
