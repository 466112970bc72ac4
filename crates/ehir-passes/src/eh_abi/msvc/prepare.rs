//! Funclet preparation in the manner of LLVM's WinEHPrepare: a block reached from two
//! funclets is cloned, one copy per extra funclet (`cloneCommonBlocks`), and a value defined
//! in one funclet and used in another is demoted to memory (`demotePHIsOnFunclets` /
//! `DemoteRegToStack`); constants and global addresses are re-materialized instead.

use super::Lowering;
use crate::region_utils::remapped;
use ehir_core::analysis::funclet_colors;
use ehir_core::{Block, Diagnostic, Op, OpKind, Successor, Type, Value, ValueDef};
use std::collections::BTreeMap;

impl<'a> Lowering<'a> {
    /// Duplicates every block that two funclets reach, one copy per extra funclet.
    pub(super) fn clone_shared_blocks(&mut self) -> Result<(), Diagnostic> {
        let colors = funclet_colors(self.func);
        let mut by_color: BTreeMap<Option<Op>, Vec<Block>> = BTreeMap::new();
        let mut shared: Vec<(Block, Vec<Option<Op>>)> = Vec::new();
        for block in self.blocks() {
            let cs = &colors[block];
            for &c in cs {
                by_color.entry(c).or_default().push(block);
            }
            if cs.len() > 1 {
                shared.push((block, cs.clone()));
            }
        }
        if shared.is_empty() {
            return Ok(());
        }
        for (block, cs) in &shared {
            for op in self.func.layout.ops(*block) {
                if self.unwind_successor(op).is_some()
                    || matches!(
                        self.kind(op),
                        OpKind::CatchRet | OpKind::CleanupRet | OpKind::CatchSwitch { .. }
                    )
                {
                    return Err(self.error(
                        op,
                        format!(
                            "eh-abi-lowering=msvc: this block belongs to {} funclets and cannot be duplicated",
                            cs.len()
                        ),
                    ));
                }
            }
        }
        // Every color but the first a shared block has gets its own copy.
        let mut copies: BTreeMap<Option<Op>, BTreeMap<Block, Block>> = BTreeMap::new();
        let mut values: BTreeMap<Option<Op>, BTreeMap<Value, Value>> = BTreeMap::new();
        for (block, cs) in &shared {
            for &c in &cs[1..] {
                let (copy, map) = self.clone_block(*block);
                copies.entry(c).or_default().insert(*block, copy);
                values.entry(c).or_default().extend(map);
            }
        }
        for (color, block_map) in &copies {
            let value_map = values.get(color).cloned().unwrap_or_default();
            let mut members: Vec<Block> = by_color
                .get(color)
                .into_iter()
                .flatten()
                .map(|b| block_map.get(b).copied().unwrap_or(*b))
                .collect();
            members.sort();
            members.dedup();
            for b in members {
                let ops: Vec<Op> = self.func.layout.ops(b).collect();
                for op in ops {
                    for v in self.func.dfg.operands_mut(op) {
                        if let Some(&n) = value_map.get(v) {
                            *v = n;
                        }
                    }
                    let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                    for s in succs {
                        let target = self.func.dfg.successor_block(s);
                        let args = remapped(self.func.dfg.successor_args(s), |a| {
                            value_map.get(&a).copied()
                        });
                        let target = block_map.get(&target).copied().unwrap_or(target);
                        self.func.dfg.set_successor(s, target, &args);
                    }
                }
            }
        }
        Ok(())
    }

    /// A copy of `block` (placed after it) and the map from its values to the copy's.
    pub(super) fn clone_block(&mut self, block: Block) -> (Block, BTreeMap<Value, Value>) {
        let mut map = BTreeMap::new();
        let copy = self.func.dfg.make_block();
        self.func.layout.insert_block_after(copy, block);
        for &p in self.func.dfg.block_params(block).to_vec().iter() {
            let ty = self.func.dfg.value_type(p);
            let n = self.func.dfg.append_block_param(copy, ty);
            map.insert(p, n);
        }
        let ops: Vec<Op> = self.func.layout.ops(block).collect();
        for op in ops {
            let kind = self.kind(op);
            let loc = self.func.dfg.loc(op);
            let operands = remapped(self.func.dfg.operands(op), |v| map.get(&v).copied());
            let results: Vec<Type> = self
                .func
                .dfg
                .results(op)
                .iter()
                .map(|&v| self.func.dfg.value_type(v))
                .collect();
            let succs: Vec<(Block, Vec<Value>)> = self
                .func
                .dfg
                .successors(op)
                .iter()
                .map(|&s| {
                    (
                        self.func.dfg.successor_block(s),
                        remapped(self.func.dfg.successor_args(s), |v| map.get(&v).copied()),
                    )
                })
                .collect();
            let kind = match kind {
                OpKind::SwitchFlat { cases } => {
                    let data = self.func.dfg.extra(cases).clone();
                    OpKind::SwitchFlat {
                        cases: self.func.dfg.make_extra(data),
                    }
                }
                k => k,
            };
            let succ_refs: Vec<(Block, &[Value])> =
                succs.iter().map(|(b, a)| (*b, a.as_slice())).collect();
            // A copy of any op: the cursor's generic builder, not a typed inserter.
            let new = self
                .at_end(copy, loc)
                .build(kind, &operands, &results, &succ_refs, 0);
            let old_results = self.func.dfg.results(op).to_vec();
            let new_results = self.func.dfg.results(new).to_vec();
            for (o, n) in old_results.into_iter().zip(new_results) {
                map.insert(o, n);
            }
        }
        (copy, map)
    }

    /// Values defined in one funclet and used in another go through memory.
    pub(super) fn demote_cross_funclet_values(&mut self) -> Result<(), Diagnostic> {
        let colors = funclet_colors(self.func);
        let color_of = |b: Block| colors[b].first().copied().flatten();
        let mut spills: BTreeMap<Value, Value> = BTreeMap::new();
        for block in self.blocks() {
            let use_color = color_of(block);
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for op in ops {
                let operands: Vec<Value> = self.func.dfg.operands(op).to_vec();
                for (i, v) in operands.into_iter().enumerate() {
                    if let Some(new) = self.demoted(v, use_color, op, &color_of, &mut spills)? {
                        self.func.dfg.operands_mut(op)[i] = new;
                    }
                }
                let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                for s in succs {
                    let args: Vec<Value> = self.func.dfg.successor_args(s).to_vec();
                    let mut changed = false;
                    let mut new_args = Vec::with_capacity(args.len());
                    for v in args {
                        match self.demoted(v, use_color, op, &color_of, &mut spills)? {
                            Some(n) => {
                                new_args.push(n);
                                changed = true;
                            }
                            None => new_args.push(v),
                        }
                    }
                    if changed {
                        let target = self.func.dfg.successor_block(s);
                        self.func.dfg.set_successor(s, target, &new_args);
                    }
                }
            }
        }
        Ok(())
    }

    /// The value to use instead of `v` before `user` (in funclet `use_color`), if `v`
    /// comes from another funclet.
    pub(super) fn demoted(
        &mut self,
        v: Value,
        use_color: Option<Op>,
        user: Op,
        color_of: &dyn Fn(Block) -> Option<Op>,
        spills: &mut BTreeMap<Value, Value>,
    ) -> Result<Option<Value>, Diagnostic> {
        let ty = self.func.dfg.value_type(v);
        if self.ctx.types.is_token(ty) {
            return Ok(None);
        }
        let (def_block, def_op) = match self.func.dfg.value_def(v) {
            ValueDef::Result(op, _) => match self.func.layout.op_block(op) {
                Some(b) => (b, Some(op)),
                None => return Ok(None),
            },
            ValueDef::Param(b, _) => (b, None),
        };
        if color_of(def_block) == use_color {
            return Ok(None);
        }
        let loc = self.func.dfg.loc(user);
        if let Some(def) = def_op {
            match self.kind(def) {
                // A static slot is the frame's; a dynamic one is an ordinary value.
                OpKind::Alloca { .. } if self.func.dfg.operands(def).is_empty() => {
                    return Ok(None);
                }
                OpKind::Const { value } => {
                    return Ok(Some(self.before(user, loc).constant(value, ty)));
                }
                OpKind::GetGlobal { symbol } => {
                    return Ok(Some(self.before(user, loc).get_global(symbol, ty)));
                }
                _ => {}
            }
        }
        let slot = match spills.get(&v) {
            Some(&s) => s,
            None => {
                let slot = self.entry_alloca(ty, "__spill", 0, loc)?;
                self.store_after_def(v, slot, def_block, def_op)?;
                spills.insert(v, slot);
                slot
            }
        };
        Ok(Some(self.before(user, loc).load(slot, ty)))
    }

    pub(super) fn store_after_def(
        &mut self,
        v: Value,
        slot: Value,
        def_block: Block,
        def_op: Option<Op>,
    ) -> Result<(), Diagnostic> {
        match def_op {
            Some(op) if self.func.dfg.kind(op).is_terminator() => {
                // A try_call result exists only on the normal edge: store on that edge.
                let loc = self.func.dfg.loc(op);
                let normal = *self.func.dfg.successors(op).first().ok_or_else(|| {
                    self.error(op, "a value-producing terminator without successor")
                })?;
                let target = self.func.dfg.successor_block(normal);
                let args = self.func.dfg.successor_args(normal).to_vec();
                let edge = self.func.dfg.make_block();
                self.func.layout.insert_block_after(edge, def_block);
                let mut cursor = self.at_end(edge, loc);
                cursor.store(v, slot);
                cursor.br(target, &args);
                self.func.dfg.set_successor(normal, edge, &[]);
            }
            Some(op) => {
                let loc = self.func.dfg.loc(op);
                let next = self.op_after(op, "op without a terminator after it")?;
                self.before(next, loc).store(v, slot);
            }
            None => {
                let mut at = self.first_op_of(def_block, "empty block")?;
                // After the pad that begins the block, and after the entry block's allocas
                // (the slot itself is one of them).
                while matches!(
                    self.kind(at),
                    OpKind::CleanupPad | OpKind::CatchPad { .. } | OpKind::Alloca { .. }
                ) {
                    at =
                        self.func.layout.next_op(at).ok_or_else(|| {
                            self.block_error(def_block, "block without terminator")
                        })?;
                }
                let loc = self.func.dfg.loc(at);
                self.before(at, loc).store(v, slot);
            }
        }
        Ok(())
    }
}
