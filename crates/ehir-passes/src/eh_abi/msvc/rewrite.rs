//! The rewriting: flat EH ops become funclet pads — `cir.eh.dispatch` a `cir.catchswitch`,
//! `cir.begin_catch` a `cir.catchpad`, `cir.end_catch` a `cir.catchret`, EH cleanups
//! `cir.cleanuppad … cir.cleanupret` — and unwind edges go to the pads the walk found.

use super::{Action, CleanupExit, ExitKind, Funclet, Lowering, Target};
use crate::region_utils::remapped;
use ehir_core::abi::type_names::{
    ADJECTIVE_ELLIPSIS, ADJECTIVE_REFERENCE, catch_param_is_reference, catch_type_descriptor,
    copy_constructor_symbols, msvc_descriptor_to_itanium,
};
use ehir_core::{
    Block, Diagnostic, HandlerKey, Loc, Op, OpKind, Successor, Symbol, Value, ValueDef,
};
use std::collections::BTreeMap;
use std::rc::Rc;

impl<'a> Lowering<'a> {
    /// The token a pad nested in `funclet` names as its parent (`None` for `within none`).
    pub(super) fn parent_token(&self, funclet: Funclet) -> Result<Option<Value>, Diagnostic> {
        match funclet {
            Funclet::Function => Ok(None),
            Funclet::Catch(c) => Ok(self.func.dfg.results(c).first().copied()),
            Funclet::Cleanup(b) => Err(self.block_error(
                b,
                "eh-abi-lowering=msvc: Microsoft C++ cleanup funclets cannot contain EH pads",
            )),
        }
    }

    /// Appends a new block to the function body.
    pub(super) fn append_new_block(&mut self) -> Block {
        let body = self.func.body.expect("checked");
        let block = self.func.dfg.make_block();
        self.func.layout.append_block(body, block);
        block
    }

    pub(super) fn run_rewrite_targets(
        &mut self,
        terminate_pads: &mut BTreeMap<Target, Block>,
        target: Target,
    ) -> Result<Option<Block>, Diagnostic> {
        let funclet = match target {
            Target::Caller => return Ok(None),
            Target::Pad(b) => return Ok(Some(b)),
            Target::Terminate(funclet) | Target::DirectTerminate(funclet) => funclet,
        };
        if let Some(&b) = terminate_pads.get(&target) {
            return Ok(Some(b));
        }
        let parent = self.parent_token(funclet)?;
        let loc = self.func.loc;
        let pad = if let Target::Terminate(_) = target {
            // `cir.cleanuppad within P` + `cir.eh.terminate`, the form clang emits: the
            // runtime's search phase does not stop here, so an exception no outer frame
            // catches terminates without unwinding, and one that an outer frame catches
            // runs this frame's cleanups first (g++'s behaviour after a catch that did
            // not match).
            let block = self.append_new_block();
            let mut cursor = self.at_end(block, loc);
            cursor.cleanuppad(parent);
            cursor.eh_terminate(None);
            block
        } else {
            // `catchswitch within P [^h] unwind to caller`, `^h: catchpad [null, 64,
            // null]` + `cir.eh.terminate`: the search phase stops here, nothing of this
            // frame runs, and std::terminate is called with the exception caught (the
            // Itanium lowering's catch-all landing pad + `__cxa_begin_catch`).
            let switch_block = self.append_new_block();
            let handler = self.append_new_block();
            let switch_token = self
                .at_end(switch_block, loc)
                .catchswitch(parent, &[handler], None);
            let mut cursor = self.at_end(handler, loc);
            cursor.catchpad(switch_token, None, ADJECTIVE_ELLIPSIS, None);
            cursor.eh_terminate(None);
            switch_block
        };
        terminate_pads.insert(target, pad);
        Ok(Some(pad))
    }

    pub(super) fn rewrite(&mut self) -> Result<(), Diagnostic> {
        for block in self.blocks() {
            for op in self.func.layout.ops(block) {
                self.used.extend(self.func.dfg.operands(op).iter().copied());
                for &s in self.func.dfg.successors(op) {
                    self.used
                        .extend(self.func.dfg.successor_args(s).iter().copied());
                }
            }
        }
        let mut terminate_pads: BTreeMap<Target, Block> = BTreeMap::new();
        // Catchswitches and catchpads first: cleanups nested in catches name the catchpad
        // tokens, which are the begin_catch results kept in place.
        let dispatches: Vec<(Op, Target)> = self
            .dispatch_unwind
            .iter()
            .map(|(&d, &t)| (d, t.unwrap_or(Target::Caller)))
            .collect();
        for (dispatch, unwind) in dispatches {
            let stack = self.arrival[&Action::Dispatch(dispatch)];
            let parent = self.parent_token(stack)?;
            let unwind_block = self.run_rewrite_targets(&mut terminate_pads, unwind)?;
            self.rewrite_dispatch(dispatch, parent, unwind_block)?;
        }
        // Cleanups.
        let cleanups: Vec<(Block, Vec<CleanupExit>)> = self
            .cleanup_exits
            .iter()
            .map(|(&b, e)| (b, e.clone()))
            .collect();
        for (start, exits) in cleanups {
            let stack = self.arrival[&Action::Cleanup(start)];
            let parent = self.parent_token(stack)?;
            let mut resolved = Vec::new();
            for (block, exit, target) in exits {
                resolved.push((
                    block,
                    exit,
                    self.run_rewrite_targets(&mut terminate_pads, target)?,
                ));
            }
            self.rewrite_cleanup(start, parent, &resolved)?;
        }
        // Raise points.
        let raises = self.raises.clone();
        for (op, funclet, target) in raises {
            let in_cleanup = matches!(funclet, Funclet::Cleanup(_));
            let dest = match target {
                Target::Terminate(Funclet::Cleanup(_)) | Target::Caller => None,
                _ if in_cleanup => {
                    return Err(self.error(
                        op,
                        "eh-abi-lowering=msvc: an exception raised inside a cleanup cannot be handled in the same function",
                    ));
                }
                t => self.run_rewrite_targets(&mut terminate_pads, t)?,
            };
            self.rewrite_raise(op, dest);
        }
        // Normal-path end_catch → catchret.
        let ends: Vec<(Block, Op, Op)> = self
            .colors
            .iter()
            .filter_map(|(&b, colors)| match colors.first() {
                Some(&Funclet::Catch(c)) => Some((b, c)),
                _ => None,
            })
            .flat_map(|(b, c)| {
                self.func
                    .layout
                    .ops(b)
                    .filter(|&op| matches!(self.kind(op), OpKind::EndCatch))
                    .map(move |op| (b, op, c))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (block, end, _) in ends {
            self.rewrite_end_catch(block, end)?;
        }
        self.apply_replacements();
        Ok(())
    }

    /// Replaces every use of the values recorded in `replace`.
    pub(super) fn apply_replacements(&mut self) {
        if self.replace.is_empty() {
            return;
        }
        for block in self.blocks() {
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for op in ops {
                for v in self.func.dfg.operands_mut(op) {
                    if let Some(&n) = self.replace.get(v) {
                        *v = n;
                    }
                }
                let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                for s in succs {
                    let args: Vec<Value> = self.func.dfg.successor_args(s).to_vec();
                    if args.iter().any(|a| self.replace.contains_key(a)) {
                        let args = remapped(&args, |a| self.replace.get(&a).copied());
                        let target = self.func.dfg.successor_block(s);
                        self.func.dfg.set_successor(s, target, &args);
                    }
                }
            }
        }
    }

    pub(super) fn rewrite_dispatch(
        &mut self,
        dispatch: Op,
        parent: Option<Value>,
        unwind: Option<Block>,
    ) -> Result<(), Diagnostic> {
        let keys = self.dispatch_keys(dispatch);
        let succs: Vec<Block> = self.func.dfg.successor_blocks(dispatch).collect();
        let loc = self.func.dfg.loc(dispatch);
        let common = *self.ctx.types.common();
        // The catchswitch replaces the dispatch in place and yields the switch token.
        {
            let dfg = &mut self.func.dfg;
            dfg.ops[dispatch].kind = OpKind::CatchSwitch {
                unwind_to_caller: unwind.is_none(),
            };
            let operands: Vec<Value> = parent.into_iter().collect();
            dfg.set_operands(dispatch, &operands);
            dfg.clear_successors(dispatch);
        }
        let switch_token = self.func.dfg.append_result(dispatch, common.eh_token);
        let mut handlers = Vec::new();
        for (key, &succ) in keys.iter().zip(&succs) {
            let mut caught = None;
            let mut qualifiers = 0;
            let type_desc = match key {
                HandlerKey::Catch(attr) => {
                    let typeinfo = match self.ctx.attrs.get(*attr) {
                        ehir_core::AttrData::GlobalView { symbol, .. } => *symbol,
                        _ => {
                            return Err(self.error(
                                dispatch,
                                "a catch key must name a typeinfo with #cir.global_view<@T>",
                            ));
                        }
                    };
                    let typeinfo = self.ctx.name(typeinfo).to_string();
                    let (name, adjectives) = catch_type_descriptor(self.ctx, &typeinfo);
                    qualifiers = adjectives;
                    caught = Some(typeinfo);
                    Some(self.ctx.sym(&name))
                }
                HandlerKey::CatchAll => None,
                _ => continue,
            };
            handlers.push(succ);
            self.rewrite_begin_catch(
                succ,
                switch_token,
                type_desc,
                caught.as_deref(),
                qualifiers,
                loc,
            )?;
        }
        for h in handlers {
            let s = self.func.dfg.make_successor(h, &[]);
            self.func.dfg.attach_successor(dispatch, s);
        }
        if let Some(u) = unwind {
            let s = self.func.dfg.make_successor(u, &[]);
            self.func.dfg.attach_successor(dispatch, s);
        }
        Ok(())
    }

    pub(super) fn rewrite_begin_catch(
        &mut self,
        handler: Block,
        switch_token: Value,
        type_desc: Option<Symbol>,
        caught: Option<&str>,
        qualifiers: u32,
        loc: Loc,
    ) -> Result<(), Diagnostic> {
        let begin = self
            .func
            .layout
            .first_op(handler)
            .filter(|&op| matches!(self.kind(op), OpKind::BeginCatch))
            .ok_or_else(|| self.block_error(handler, "catch handler without cir.begin_catch"))?;
        let results: Vec<Value> = self.func.dfg.results(begin).to_vec();
        let exn = results.get(1).copied();
        // A by-value parameter the runtime builds: the catchpad's object slot.
        let runtime_copy = self.runtime_copied_parameter(begin, exn, type_desc)?;
        let exn_used = runtime_copy.is_none() && exn.is_some_and(|v| self.used.contains(&v));
        let (adjectives, slot) = match (type_desc, exn.filter(|_| exn_used)) {
            _ if runtime_copy.is_some() => (qualifiers, runtime_copy),
            (None, _) => (ADJECTIVE_ELLIPSIS, None),
            (Some(_), None) => (qualifiers, None),
            (Some(_), Some(v)) => {
                // The slot holds what `cir.begin_catch` yielded: a pointer to the object
                // (catch by reference), or for a caught pointer type the pointer itself
                // (catch by value: the runtime copies the thrown pointer). A caught
                // pointer yielded with one more level of pointer (`catch (T *&)` from
                // the Clang front end) is caught by reference.
                let ptr_ty = self.func.dfg.value_type(v);
                let by_reference = caught
                    .is_none_or(|typeinfo| catch_param_is_reference(self.ctx, typeinfo, ptr_ty));
                let adjectives = qualifiers | if by_reference { ADJECTIVE_REFERENCE } else { 0 };
                (
                    adjectives,
                    Some(self.entry_alloca(ptr_ty, "__catch_obj", 8, loc)?),
                )
            }
        };
        {
            let dfg = &mut self.func.dfg;
            dfg.ops[begin].kind = OpKind::CatchPad {
                type_desc: type_desc.into(),
                adjectives,
                has_slot: slot.is_some(),
            };
            let mut operands = vec![switch_token];
            operands.extend(slot);
            dfg.set_operands(begin, &operands);
            let mut list = std::mem::take(&mut dfg.ops[begin].results);
            list.truncate(1, &mut dfg.value_lists);
            dfg.ops[begin].results = list;
        }
        if let Some(exn) = exn
            && exn_used
        {
            let ty = self.func.dfg.value_type(exn);
            let new = match slot {
                Some(slot) => {
                    let after = self.op_after(begin, "catch handler without terminator")?;
                    self.before(after, loc).load_aligned(slot, ty, 8)
                }
                None => {
                    // catch (...) has no object: the pointer is null.
                    let null = self.ctx.attrs.intern(ehir_core::AttrData::Null(ty));
                    let after = self.op_after(begin, "catch handler without terminator")?;
                    self.before(after, loc).constant(null, ty)
                }
            };
            self.replace.insert(exn, new);
        }
        Ok(())
    }

    /// The catch parameter a `cir.copy_catch_param` right after `begin` copies the
    /// exception `exn` into (the op is removed): on this ABI the runtime builds it, in the
    /// catchpad's by-value object slot, with the copy constructor the thrower's
    /// CatchableType names. The exception pointer may have no other use.
    fn runtime_copied_parameter(
        &mut self,
        begin: Op,
        exn: Option<Value>,
        type_desc: Option<Symbol>,
    ) -> Result<Option<Value>, Diagnostic> {
        let Some(copy) = self.func.layout.next_op(begin).filter(|&op| {
            matches!(self.kind(op), OpKind::CopyCatchParam { .. })
                && self.func.dfg.operands(op).first().copied() == exn
        }) else {
            return Ok(None);
        };
        let (Some(exn), Some(&dest)) = (exn, self.func.dfg.operands(copy).get(1)) else {
            return Ok(None);
        };
        let Some(type_desc) = type_desc else {
            return Err(self.error(copy, "'cir.copy_catch_param' in a catch-all handler"));
        };
        // The runtime calls the copy constructor the thrower's CatchableType names: the
        // class's, under its ABI name.
        if let OpKind::CopyCatchParam { ctor } = self.kind(copy)
            && let Some(ctor) = ctor.expand()
        {
            let descriptor = self.ctx.name(type_desc).to_string();
            let class = msvc_descriptor_to_itanium(&descriptor).unwrap_or_default();
            let names = copy_constructor_symbols(self.ctx, &format!("_ZTI{class}"));
            let ctor_name = self.ctx.name(ctor);
            if !names.iter().any(|n| n == ctor_name) {
                return Err(self.error(
                    copy,
                    format!(
                        "unsupported: the copy of a by-value catch parameter by @{ctor_name}, which is not the class's copy constructor the Microsoft runtime calls (@{})",
                        names.get(1).map_or("", String::as_str)
                    ),
                ));
            }
        }
        let other_use = self
            .func
            .walk_ops()
            .into_iter()
            .any(|op| op != copy && self.func.dfg.operands(op).contains(&exn));
        if other_use {
            return Err(self.error(
                copy,
                "unsupported: the exception pointer of a by-value catch parameter is used besides 'cir.copy_catch_param' (on the Microsoft ABI the handler sees only the runtime's copy)",
            ));
        }
        self.func.layout.remove_op(copy);
        Ok(Some(dest))
    }

    pub(super) fn rewrite_cleanup(
        &mut self,
        start: Block,
        parent: Option<Value>,
        exits: &[(Block, ExitKind, Option<Block>)],
    ) -> Result<(), Diagnostic> {
        let info = Rc::clone(&self.cleanups[&start]);
        let operands: Vec<Value> = parent.into_iter().collect();
        let pad_token = match info.begin {
            Some(begin) => {
                let dfg = &mut self.func.dfg;
                dfg.ops[begin].kind = OpKind::CleanupPad;
                dfg.set_operands(begin, &operands);
                dfg.results(begin)[0]
            }
            None => {
                let first = self.first_op_of(start, "empty cleanup block")?;
                let loc = self.func.dfg.loc(first);
                self.before(first, loc).cleanuppad(parent)
            }
        };
        for &(block, exit, dest) in exits {
            match exit {
                ExitKind::EndCleanup(end) => {
                    let term = self.op_after(end, "cir.end_cleanup without terminator")?;
                    let loc = self.func.dfg.loc(end);
                    self.before(term, loc).cleanupret(pad_token, dest);
                    self.func.layout.remove_op(term);
                    self.func.layout.remove_op(end);
                }
                ExitKind::Resume(resume) => {
                    let loc = self.func.dfg.loc(resume);
                    self.before(resume, loc).cleanupret(pad_token, dest);
                    self.func.layout.remove_op(resume);
                }
                ExitKind::Edge(i) => {
                    let term = self.terminator_of(block, "block without terminator")?;
                    let loc = self.func.dfg.loc(term);
                    if matches!(self.kind(term), OpKind::Br) {
                        self.before(term, loc).cleanupret(pad_token, dest);
                        self.func.layout.remove_op(term);
                    } else {
                        let fwd = self.func.dfg.make_block();
                        self.func.layout.insert_block_after(fwd, block);
                        self.at_end(fwd, loc).cleanupret(pad_token, dest);
                        let s = self.func.dfg.successors(term)[i];
                        self.func.dfg.set_successor(s, fwd, &[]);
                    }
                }
            }
        }
        // Catches end by themselves when the exception unwinds out of their funclet.
        for &b in &info.blocks {
            let ops: Vec<Op> = self.func.layout.ops(b).collect();
            for op in ops {
                match self.kind(op) {
                    OpKind::EndCatch => self.func.layout.remove_op(op),
                    OpKind::EhTerminate => self.func.dfg.set_operands(op, &[]),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    pub(super) fn rewrite_raise(&mut self, op: Op, dest: Option<Block>) {
        let Some(succ) = self.unwind_successor(op) else {
            return;
        };
        if let Some(dest) = dest {
            self.func.dfg.set_successor(succ, dest, &[]);
            return;
        }
        match self.kind(op) {
            OpKind::TryCall { callee, sig, flags } => {
                let normal = self.func.dfg.successors(op)[0];
                let target = self.func.dfg.successor_block(normal);
                let args = self.func.dfg.successor_args(normal).to_vec();
                let loc = self.func.dfg.loc(op);
                self.func.dfg.ops[op].kind = OpKind::Call { callee, sig, flags };
                self.func.dfg.clear_successors(op);
                let block = self.func.layout.op_block(op).expect("placed");
                self.at_end(block, loc).br(target, &args);
            }
            OpKind::Throw { .. } => self.func.dfg.clear_successors(op),
            _ => {}
        }
    }

    pub(super) fn rewrite_end_catch(&mut self, block: Block, end: Op) -> Result<(), Diagnostic> {
        let token = self
            .func
            .dfg
            .operands(end)
            .first()
            .copied()
            .ok_or_else(|| self.error(end, "cir.end_catch without token"))?;
        let term = self.op_after(end, "cir.end_catch without terminator")?;
        let loc = self.func.dfg.loc(end);
        let direct = matches!(self.kind(term), OpKind::Br) && {
            let s = self.func.dfg.successors(term)[0];
            self.func.dfg.successor_args(s).is_empty()
                && self
                    .func
                    .dfg
                    .block_params(self.func.dfg.successor_block(s))
                    .is_empty()
        };
        let target = if direct {
            let target = self.func.dfg.successor_blocks(term).next().expect("br");
            self.func.layout.remove_op(term);
            target
        } else {
            let cont = self.func.dfg.make_block();
            self.func.layout.insert_block_after(cont, block);
            self.func.layout.remove_op(term);
            self.func.layout.append_op(term, cont);
            cont
        };
        self.before(end, loc).catchret(token, target);
        self.func.layout.remove_op(end);
        Ok(())
    }

    /// Removes `!cir.eh_token` parameters and arguments (their values are gone) and the
    /// token operand of `cir.eh.terminate`.
    pub(super) fn remove_token_params(&mut self) -> Result<(), Diagnostic> {
        for block in self.blocks() {
            let params: Vec<Value> = self.func.dfg.block_params(block).to_vec();
            if params.iter().any(|&p| self.is_eh_token(p)) {
                let keep: Vec<Value> = params
                    .iter()
                    .copied()
                    .filter(|&p| !self.is_eh_token(p))
                    .collect();
                let dfg = &mut self.func.dfg;
                dfg.clear_block_params(block);
                for (i, &v) in keep.iter().enumerate() {
                    dfg.values[v].def = ValueDef::Param(block, i as u32);
                    dfg.blocks[block].params.push(v, &mut dfg.value_lists);
                }
            }
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for op in ops {
                let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                for s in succs {
                    let args = self.func.dfg.successor_args(s).to_vec();
                    if args.iter().any(|&a| self.is_eh_token(a)) {
                        let keep: Vec<Value> =
                            args.into_iter().filter(|&a| !self.is_eh_token(a)).collect();
                        let target = self.func.dfg.successor_block(s);
                        self.func.dfg.set_successor(s, target, &keep);
                    }
                }
                if matches!(self.kind(op), OpKind::EhTerminate) {
                    self.func.dfg.set_operands(op, &[]);
                }
            }
        }
        Ok(())
    }

    /// No ABI-agnostic EH op and no use of a flat `!cir.eh_token` survives.
    pub(super) fn check_no_flat_ops(&self) -> Result<(), Diagnostic> {
        for block in self.blocks() {
            for op in self.func.layout.ops(block) {
                let kind = self.kind(op);
                let flat_only = matches!(
                    kind,
                    OpKind::EhInitiate { .. }
                        | OpKind::EhDispatch { .. }
                        | OpKind::BeginCleanup
                        | OpKind::EndCleanup
                        | OpKind::BeginCatch
                        | OpKind::EndCatch
                        | OpKind::Resume
                );
                let token_use = !matches!(kind, OpKind::CatchPad { .. })
                    && self
                        .func
                        .dfg
                        .operands(op)
                        .iter()
                        .any(|&v| self.is_eh_token(v));
                if flat_only || token_use {
                    return Err(self.error(
                        op,
                        format!(
                            "eh-abi-lowering=msvc: {} could not be lowered here",
                            kind.name()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
