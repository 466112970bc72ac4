//! Compacting a function ([`Function::compact`]): rewrites leave behind the ops, values,
//! blocks, regions, edges and payloads they replaced (a lowered function holds its
//! structured, flat and lowered forms), and the list pools keep the storage of lists that
//! were cleared. Compacting copies what the body still reaches into fresh, exactly sized
//! tables.

use crate::dfg::{
    BlockData, DataFlowGraph, OpData, RegionData, SuccessorData, ValueData, ValueDef,
};
use crate::entities::{Block, Extra, Op, Region, Successor, Value};
use crate::function::{Function, Visit};
use crate::layout::Layout;
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{EntityList, EntityRef, ListPool};
use std::cell::Cell;

/// New numbers of the entities of one kind that stay, in their old order.
struct Renumbering<K> {
    /// The new entity of each old one (the reserved value for one that goes).
    new: Vec<K>,
    /// How many stay.
    kept: usize,
    /// Room for one renumbered list (see [`Renumbering::list`]).
    scratch: Vec<K>,
}

impl<K: EntityRef + ReservedValue + Copy + PartialEq> Renumbering<K> {
    /// Numbers the entities `live` marks, in their old order.
    fn of(live: &[bool]) -> Self {
        let mut kept = 0;
        let new = live
            .iter()
            .map(|&live| {
                if live {
                    kept += 1;
                    K::new(kept - 1)
                } else {
                    K::reserved_value()
                }
            })
            .collect();
        Renumbering {
            new,
            kept,
            scratch: Vec::new(),
        }
    }

    /// The new number of `old`; when `old` does not stay (or does not exist), notes in
    /// `kept` that something refers to a dropped entity.
    #[inline]
    fn get(&self, old: K, kept: &Cell<bool>) -> K {
        match self.new.get(old.index()) {
            Some(&k) if k != K::reserved_value() => k,
            _ => {
                kept.set(false);
                K::reserved_value()
            }
        }
    }

    /// `list` of `old_pool` with each entity renumbered ([`Renumbering::get`]), as a list
    /// of `new_pool`.
    fn list(
        &mut self,
        list: &EntityList<K>,
        old_pool: &ListPool<K>,
        new_pool: &mut ListPool<K>,
        kept: &Cell<bool>,
    ) -> EntityList<K> {
        let old_list = list.as_slice(old_pool);
        if old_list.is_empty() {
            return EntityList::new();
        }
        self.scratch.clear();
        for &k in old_list {
            let renumbered = self.get(k, kept);
            self.scratch.push(renumbered);
        }
        EntityList::from_slice(&self.scratch, new_pool)
    }
}

impl Function {
    /// Drops the ops, values, blocks, regions, successor edges and payloads that the body
    /// no longer reaches, renumbers the rest in their old order (so that anything ordered
    /// by entity number keeps its order) and copies every list into exactly sized pools.
    /// The function prints the same text afterwards; entity numbers held outside the
    /// function become invalid. A body that refers to something it does not reach (IR
    /// that does not verify) is left as it is, for the verifier to report.
    pub fn compact(&mut self) {
        let Some(body) = self.body else {
            return;
        };
        let dfg = &self.dfg;
        if body.index() >= dfg.regions.len() {
            return;
        }
        // What the body reaches, through the layout.
        let mut live_ops = vec![false; dfg.ops.len()];
        let mut live_blocks = vec![false; dfg.blocks.len()];
        let mut live_regions = vec![false; dfg.regions.len()];
        let mut order: Vec<Visit> = Vec::with_capacity(dfg.ops.len() + dfg.blocks.len());
        live_regions[body.index()] = true;
        let mut sound = true;
        self.visit_in_order(&mut |visit| {
            match visit {
                Visit::Block(b) => match live_blocks.get_mut(b.index()) {
                    Some(live) if !*live => *live = true,
                    _ => sound = false,
                },
                Visit::Op(op) => match live_ops.get_mut(op.index()) {
                    Some(live) if !*live => {
                        *live = true;
                        for &r in dfg.regions(op) {
                            match live_regions.get_mut(r.index()) {
                                Some(live) => *live = true,
                                None => sound = false,
                            }
                        }
                    }
                    _ => sound = false,
                },
            }
            order.push(visit);
        });
        if !sound {
            return;
        }
        let mut live_values = vec![false; dfg.values.len()];
        let mut live_successors = vec![false; dfg.successors.len()];
        let mut live_extras = vec![false; dfg.extras.len()];
        let mark = |live: &mut [bool], index: usize| match live.get_mut(index) {
            Some(slot) => {
                *slot = true;
                true
            }
            None => false,
        };
        for &visit in &order {
            match visit {
                Visit::Op(op) => {
                    let data = &dfg.ops[op];
                    for &v in data.results.as_slice(&dfg.value_lists) {
                        sound &= mark(&mut live_values, v.index());
                    }
                    for &s in data.successors.as_slice(&dfg.successor_lists) {
                        sound &= mark(&mut live_successors, s.index());
                    }
                    if let Some(e) = data.kind.extra() {
                        sound &= mark(&mut live_extras, e.index());
                    }
                }
                Visit::Block(b) => {
                    for &v in dfg.blocks[b].params.as_slice(&dfg.value_lists) {
                        sound &= mark(&mut live_values, v.index());
                    }
                }
            }
        }
        if !sound {
            return;
        }
        let all = |live: &[bool]| live.iter().all(|&l| l);
        if all(&live_ops)
            && all(&live_blocks)
            && all(&live_regions)
            && all(&live_values)
            && all(&live_successors)
            && all(&live_extras)
        {
            // Nothing to drop (the pools may hold some dead list storage: not worth a copy).
            return;
        }
        let ops: Renumbering<Op> = Renumbering::of(&live_ops);
        let mut values: Renumbering<Value> = Renumbering::of(&live_values);
        let blocks: Renumbering<Block> = Renumbering::of(&live_blocks);
        let mut regions: Renumbering<Region> = Renumbering::of(&live_regions);
        let mut successors: Renumbering<Successor> = Renumbering::of(&live_successors);
        let extras: Renumbering<Extra> = Renumbering::of(&live_extras);
        let mut new = DataFlowGraph::new();
        new.ops.reserve_exact(ops.kept);
        new.values.reserve_exact(values.kept);
        new.blocks.reserve_exact(blocks.kept);
        new.regions.reserve_exact(regions.kept);
        new.successors.reserve_exact(successors.kept);
        new.extras.reserve_exact(extras.kept);
        // Exactly the slots of the lists that stay.
        let slots = |len: usize| crate::dfg::list_slots(len);
        let (mut value_slots, mut successor_slots, mut region_slots) = (0, 0, 0);
        for (op, data) in dfg.ops.iter() {
            if live_ops[op.index()] {
                value_slots += slots(data.operands.len(&dfg.value_lists))
                    + slots(data.results.len(&dfg.value_lists));
                successor_slots += slots(data.successors.len(&dfg.successor_lists));
                region_slots += slots(data.regions.len(&dfg.region_lists));
            }
        }
        for (b, data) in dfg.blocks.iter() {
            if live_blocks[b.index()] {
                value_slots += slots(data.params.len(&dfg.value_lists));
            }
        }
        for (s, data) in dfg.successors.iter() {
            if live_successors[s.index()] {
                value_slots += slots(data.args.len(&dfg.value_lists));
            }
        }
        new.value_lists = ListPool::with_capacity(value_slots);
        new.successor_lists = ListPool::with_capacity(successor_slots);
        new.region_lists = ListPool::with_capacity(region_slots);
        let old = &self.dfg;
        // Whether everything a kept entity refers to is kept (IR that verifies): if not,
        // the function is left as it is.
        let complete = Cell::new(true);
        let ok = &complete;
        for (op, data) in old.ops.iter() {
            if !live_ops[op.index()] {
                continue;
            }
            let mut kind = data.kind;
            if let Some(e) = kind.extra_mut() {
                *e = extras.get(*e, ok);
            }
            let operands = values.list(&data.operands, &old.value_lists, &mut new.value_lists, ok);
            let results = values.list(&data.results, &old.value_lists, &mut new.value_lists, ok);
            let successor_list = successors.list(
                &data.successors,
                &old.successor_lists,
                &mut new.successor_lists,
                ok,
            );
            let region_list =
                regions.list(&data.regions, &old.region_lists, &mut new.region_lists, ok);
            new.ops.push(OpData {
                kind,
                operands,
                results,
                successors: successor_list,
                regions: region_list,
                loc: data.loc,
            });
        }
        for (v, data) in old.values.iter() {
            if !live_values[v.index()] {
                continue;
            }
            let def = match data.def {
                ValueDef::Result(op, i) => ValueDef::Result(ops.get(op, ok), i),
                ValueDef::Param(block, i) => ValueDef::Param(blocks.get(block, ok), i),
            };
            new.values.push(ValueData { ty: data.ty, def });
        }
        for (b, data) in old.blocks.iter() {
            if live_blocks[b.index()] {
                let params = values.list(&data.params, &old.value_lists, &mut new.value_lists, ok);
                new.blocks.push(BlockData {
                    params,
                    loc: data.loc,
                });
            }
        }
        for (r, data) in old.regions.iter() {
            if live_regions[r.index()] {
                new.regions.push(RegionData {
                    parent: data.parent.expand().map(|p| ops.get(p, ok)).into(),
                });
            }
        }
        for (s, data) in old.successors.iter() {
            if live_successors[s.index()] {
                let args = values.list(&data.args, &old.value_lists, &mut new.value_lists, ok);
                new.successors.push(SuccessorData {
                    block: blocks.get(data.block, ok),
                    args,
                });
            }
        }
        for (e, data) in old.extras.iter() {
            if live_extras[e.index()] {
                new.extras.push(data.clone());
            }
        }
        if !complete.get() {
            return;
        }
        // The same placement, in the new numbers: each block's ops and each region's
        // blocks in their order (all of them reached by the walk, so kept).
        let mut layout = Layout::new();
        layout.reserve(ops.kept, blocks.kept, regions.kept);
        for visit in order {
            match visit {
                Visit::Block(b) => {
                    let region = self.layout.block_region(b).expect("placed");
                    layout.append_block(regions.get(region, ok), blocks.get(b, ok));
                }
                Visit::Op(op) => {
                    let block = self.layout.op_block(op).expect("placed");
                    layout.append_op(ops.get(op, ok), blocks.get(block, ok));
                }
            }
        }
        let body = regions.get(body, ok);
        if complete.get() {
            self.dfg = new;
            self.layout = layout;
            self.body = Some(body);
        }
    }
}
