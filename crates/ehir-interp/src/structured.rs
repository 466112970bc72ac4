//! Structured control flow, executed directly on the nested regions (never by
//! flattening them), so that the interpreter is an independent oracle for
//! `flatten-cfg`:
//!
//! - every structured op pushes a [`Ctrl`] entry while one of its regions runs; the
//!   allocas made inside the region die when the region is left (use after scope is a
//!   reported error);
//! - `cir.yield`, `cir.condition`, `cir.break`, `cir.continue`, `cir.return`,
//!   `cir.goto` and branches that leave their region are *exits*: [`Machine::perform`]
//!   walks outwards through the entries, running the cleanup region of every
//!   `cir.cleanup.scope` whose kind runs on normal exits (`normal`, `all`) before the
//!   transfer continues, innermost first, and ending the catch of every handler it
//!   leaves;
//! - an exception unwinds through the same entries ([`Machine::unwind_structured`]):
//!   cleanups of kind `eh`/`all` run, the first matching handler of a `cir.try` gets
//!   control (`catch` by type, `catch all`), an `unwind` handler runs and continues
//!   unwinding with `cir.resume`, a violated `filter` calls `std::unexpected`, a
//!   `terminate` handler calls `std::terminate` (without running the cleanups between
//!   the throwing call and it, as g++ does); a partially constructed
//!   `cir.array.ctor` destroys the constructed elements in reverse order;
//! - an exception escaping a cleanup region or an `unwind` region that runs during
//!   unwinding terminates (a destructor throwing during unwinding).

use crate::machine::{Ctrl, CtrlState, Machine, Pending, Stop};
use crate::trace::Event;
use ehir_core::{
    Attr, AttrData, Block, CaseKind, ExtraData, Function, HandlerKey, Op, OpKind, Region, Value,
};

impl<'m> Machine<'m> {
    /// Frees the allocas made since `mark`.
    fn free_allocas_to(&mut self, mark: u32) {
        while self.cur.allocas.len() > mark as usize {
            if let Some(p) = self.cur.allocas.pop() {
                let _ = self.mem.release(p);
            }
        }
    }

    fn push_ctrl(&mut self, op: Op, state: CtrlState) {
        if has_terminate_key(self.cur.func, op) {
            self.cur.boundaries += 1;
        }
        let mark = self.cur.allocas.len() as u32;
        self.cur.ctrl.push(Ctrl {
            op,
            region: 0,
            mark,
            state,
        });
    }

    /// Leaves the innermost construct (its allocas die) and returns it.
    pub(crate) fn pop_ctrl(&mut self) -> Option<Ctrl> {
        let c = self.cur.ctrl.pop()?;
        if has_terminate_key(self.cur.func, c.op) {
            self.cur.boundaries = self.cur.boundaries.saturating_sub(1);
        }
        if runs_during_unwinding(&c.state) {
            self.cur.boundaries = self.cur.boundaries.saturating_sub(1);
        }
        self.free_allocas_to(c.mark);
        Some(c)
    }

    /// Changes the state of the innermost construct, keeping the count of terminate
    /// boundaries (`Frame::boundaries`) in step.
    fn set_top_state(&mut self, state: CtrlState) -> Result<(), Stop> {
        let Some(top) = self.cur.ctrl.last_mut() else {
            return Err(self.error("no structured op to change".into()));
        };
        let was = runs_during_unwinding(&top.state);
        let is = runs_during_unwinding(&state);
        top.state = state;
        match (was, is) {
            (false, true) => self.cur.boundaries += 1,
            (true, false) => self.cur.boundaries = self.cur.boundaries.saturating_sub(1),
            _ => {}
        }
        Ok(())
    }

    /// g++'s rule for a terminate boundary — a `cir.try` with a `terminate` handler (a
    /// noexcept boundary), or code that runs during unwinding (an EH cleanup region, an
    /// `unwind` handler, a partial array destruction), whose calls g++ leaves in
    /// call-site gaps: when, going outwards from the running point of this frame, such a
    /// boundary comes before any try with catching handlers, the exception would meet
    /// only cleanups before the boundary — g++ calls `std::terminate` at once, without
    /// running them (see docs/notes/noexcept-gxx-behaviour.md).
    fn doomed(&self) -> bool {
        if self.cur.boundaries == 0 {
            return false;
        }
        let func = self.cur.func;
        for c in self.cur.ctrl.iter().rev() {
            if runs_during_unwinding(&c.state) {
                return true;
            }
            if matches!(c.state, CtrlState::TryBody) {
                if has_catching_keys(func, c.op) {
                    return false;
                }
                if has_terminate_key(func, c.op) {
                    return true;
                }
            }
        }
        false
    }

    /// `std::terminate` at a noexcept boundary: with the exception made current
    /// (`__cxa_call_terminate`) when it reached the boundary directly, without when
    /// unwinding already passed a non-matching try in this frame (g++ then calls
    /// `std::terminate` from the landing pad's fall-through).
    pub(crate) fn terminate_at_boundary(&mut self, exn: u32) -> Result<(), Stop> {
        if self.cur.passed_catch == Some(exn) {
            self.terminate()
        } else {
            self.terminate_for(exn)
        }
    }

    /// Starts region `index` of the innermost construct with the given block arguments.
    pub(crate) fn enter_region(&mut self, index: u32, args: &[u64]) -> Result<(), Stop> {
        self.enter_region_with_token(index, args, None)
    }

    /// Starts region `index` of the innermost construct; an entry block declaring one
    /// token parameter and given no arguments receives `token`.
    fn enter_region_with_token(
        &mut self,
        index: u32,
        args: &[u64],
        token: Option<u64>,
    ) -> Result<(), Stop> {
        let func = self.cur.func;
        let Some(top) = self.cur.ctrl.last_mut() else {
            return Err(self.error("no structured op to enter".into()));
        };
        top.region = index;
        let (op, mark) = (top.op, top.mark);
        self.free_allocas_to(mark);
        let Some(&region) = func.dfg.regions(op).get(index as usize) else {
            return Err(self.error(format!(
                "{} has no region {index}",
                func.dfg.kind(op).name()
            )));
        };
        let Some(entry) = func.layout.entry_block(region) else {
            return Err(self.error(format!("{} has an empty region", func.dfg.kind(op).name())));
        };
        self.enter_block(entry, args, token)
    }

    /// Sets the results of a structured op and continues after it.
    fn complete(&mut self, op: Op, values: &[u64]) -> Result<(), Stop> {
        let func = self.cur.func;
        for (&r, &v) in func.dfg.results(op).iter().zip(values) {
            self.set(r, v);
        }
        self.next(op)
    }

    fn cleanup_event(&mut self, kind: &'static str) {
        if self.config.record_trace {
            self.record(Event::Cleanup { kind });
        }
    }

    /// Executes a structured op: enters the region its semantics choose.
    pub(crate) fn enter_structured(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        let kind = *func.dfg.kind(op);
        let operands = func.dfg.operands(op);
        match kind {
            OpKind::Scope | OpKind::While | OpKind::DoWhile | OpKind::For | OpKind::Case { .. } => {
                self.push_ctrl(op, CtrlState::Plain);
                self.enter_region(0, &[])
            }
            OpKind::If | OpKind::Ternary => {
                let cond = operands.first().map(|&c| self.get(c)).unwrap_or(0);
                if cond != 0 {
                    self.push_ctrl(op, CtrlState::Plain);
                    self.enter_region(0, &[])
                } else if func.dfg.regions(op).len() > 1 {
                    self.push_ctrl(op, CtrlState::Plain);
                    self.enter_region(1, &[])
                } else {
                    self.next(op)
                }
            }
            OpKind::Switch => {
                let Some(&v) = operands.first() else {
                    return Err(self.error("cir.switch without a value".into()));
                };
                match self.find_case(op, v)? {
                    Some(case) => {
                        self.push_ctrl(op, CtrlState::Plain);
                        self.cur.pc = case;
                        Ok(())
                    }
                    None => self.next(op),
                }
            }
            OpKind::CleanupScope { .. } => {
                self.push_ctrl(op, CtrlState::CleanupBody);
                self.enter_region(0, &[])
            }
            OpKind::Try { .. } => {
                self.push_ctrl(op, CtrlState::TryBody);
                self.enter_region(0, &[])
            }
            OpKind::ArrayCtor | OpKind::ArrayDtor => {
                let (base, count, elem) = self.array_shape(op)?;
                if count == 0 {
                    return self.next(op);
                }
                if matches!(kind, OpKind::ArrayCtor) {
                    self.push_ctrl(
                        op,
                        CtrlState::ArrayCtor {
                            base,
                            index: 0,
                            count,
                            elem,
                        },
                    );
                    self.enter_region(0, &[base])
                } else {
                    self.push_ctrl(
                        op,
                        CtrlState::ArrayDestroy {
                            base,
                            remaining: count,
                            elem,
                            unwinding: None,
                        },
                    );
                    let last = element(base, count - 1, elem);
                    self.enter_region(0, &[last])
                }
            }
            _ => Err(self.error(format!("{} is not a structured op", kind.name()))),
        }
    }

    /// Base pointer, element count and element size of a `cir.array.ctor/dtor`.
    fn array_shape(&self, op: Op) -> Result<(u64, u64, u64), Stop> {
        let func = self.cur.func;
        let ctx = &self.module.ctx;
        let Some(&arr) = func.dfg.operands(op).first() else {
            return Err(self.error("array op without an array operand".into()));
        };
        let base = self.get(arr);
        let total = self.pointee(arr).map(|t| self.layouts.size(t)).unwrap_or(0);
        // The element type is the pointee of the body's block argument.
        let elem_ty = func
            .dfg
            .regions(op)
            .first()
            .and_then(|&r| func.layout.entry_block(r))
            .and_then(|b| func.dfg.block_params(b).first().copied())
            .and_then(|p| ctx.types.pointee(func.dfg.value_type(p)));
        let Some(elem_ty) = elem_ty else {
            return Err(self.error(
                "the region of an array op must take the element pointer as its argument".into(),
            ));
        };
        let elem = self.layouts.size(elem_ty);
        if elem == 0 {
            return Err(self.error("array of zero-sized elements".into()));
        }
        Ok((base, total / elem, elem))
    }

    /// The `cir.case` op a switch value selects.
    fn find_case(&self, switch: Op, v: Value) -> Result<Option<Op>, Stop> {
        let func = self.cur.func;
        let value = self.get(v);
        let scalar = self.scalar_of(v);
        let signed = matches!(scalar, crate::type_layout::Scalar::Int { signed: true, .. });
        let as_reg = |a: Attr| -> Option<u64> {
            match self.module.ctx.attrs.get(a) {
                AttrData::Int { value, .. } => Some(match scalar {
                    crate::type_layout::Scalar::Int { width, signed } => {
                        crate::values::canon(*value as u64, width, signed)
                    }
                    _ => *value as u64,
                }),
                AttrData::Bool(b) => Some(u64::from(*b)),
                _ => None,
            }
        };
        let le = |a: u64, b: u64| {
            if signed {
                (a as i64) <= (b as i64)
            } else {
                a <= b
            }
        };
        let Some(&region) = func.dfg.regions(switch).first() else {
            return Ok(None);
        };
        let mut default = None;
        for block in func.layout.blocks(region) {
            for op in func.layout.ops(block) {
                let OpKind::Case { kind, values } = *func.dfg.kind(op) else {
                    continue;
                };
                let vals: Vec<u64> = match func.dfg.extra(values) {
                    ExtraData::CaseValues(v) => v.iter().filter_map(|&a| as_reg(a)).collect(),
                    _ => Vec::new(),
                };
                let hit = match kind {
                    CaseKind::Default => {
                        default.get_or_insert(op);
                        false
                    }
                    CaseKind::Equal | CaseKind::AnyOf => vals.contains(&value),
                    CaseKind::Range => vals.len() == 2 && le(vals[0], value) && le(value, vals[1]),
                };
                if hit {
                    return Ok(Some(op));
                }
            }
        }
        Ok(default)
    }

    /// `cir.yield`: ends the running region.
    pub(crate) fn exec_yield(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        let values: Vec<u64> = func.dfg.operands(op).iter().map(|&v| self.get(v)).collect();
        let Some(top) = self.cur.ctrl.last() else {
            return Err(self.error("cir.yield outside a structured op".into()));
        };
        let (owner, region, state) = (top.op, top.region, top.state.clone());
        match (*func.dfg.kind(owner), region, state) {
            (OpKind::While, 1, _) => self.enter_region(0, &[]),
            (OpKind::DoWhile, 0, _) => self.enter_region(1, &[]),
            (OpKind::For, 1, _) => self.enter_region(2, &[]),
            (OpKind::For, 2, _) => self.enter_region(0, &[]),
            (OpKind::While | OpKind::DoWhile | OpKind::For, _, _) => {
                Err(self.error("a loop condition region must end with cir.condition".into()))
            }
            (OpKind::Case { .. }, _, _) => {
                // Fall through to whatever follows the case in the switch body.
                self.pop_ctrl();
                self.next(owner)
            }
            (OpKind::CleanupScope { kind }, _, CtrlState::CleanupBody)
                if kind.runs_on_normal_exit() =>
            {
                self.set_top_state(CtrlState::CleanupRun(Pending::Complete(values)))?;
                self.cleanup_event("normal");
                self.enter_region(1, &[])
            }
            (OpKind::CleanupScope { .. }, _, CtrlState::CleanupRun(pending)) => {
                self.pop_ctrl();
                match pending {
                    Pending::Complete(vals) => self.complete(owner, &vals),
                    other => self.perform(other),
                }
            }
            (OpKind::Try { .. }, _, CtrlState::Catch { .. }) => {
                self.pop_ctrl();
                self.complete(owner, &values)?;
                self.end_catch()
            }
            (OpKind::Try { .. }, _, CtrlState::UnwindRegion { exn }) => {
                // An `unwind` handler that ends without `cir.resume` still continues
                // unwinding: it cannot swallow the exception.
                self.pop_ctrl();
                self.unwind(exn)
            }
            (
                OpKind::ArrayCtor,
                _,
                CtrlState::ArrayCtor {
                    base,
                    index,
                    count,
                    elem,
                },
            ) => {
                if index + 1 < count {
                    self.set_top_state(CtrlState::ArrayCtor {
                        base,
                        index: index + 1,
                        count,
                        elem,
                    })?;
                    self.enter_region(0, &[element(base, index + 1, elem)])
                } else {
                    self.pop_ctrl();
                    self.next(owner)
                }
            }
            (
                array @ (OpKind::ArrayCtor | OpKind::ArrayDtor),
                _,
                CtrlState::ArrayDestroy {
                    base,
                    remaining,
                    elem,
                    unwinding,
                },
            ) => {
                if remaining > 1 {
                    self.set_top_state(CtrlState::ArrayDestroy {
                        base,
                        remaining: remaining - 1,
                        elem,
                        unwinding,
                    })?;
                    // The ctor's destroy region is its second; the dtor has only one.
                    let region = if matches!(array, OpKind::ArrayCtor) {
                        1
                    } else {
                        0
                    };
                    self.enter_region(region, &[element(base, remaining - 2, elem)])
                } else {
                    self.pop_ctrl();
                    match unwinding {
                        Some(exn) => self.unwind(exn),
                        None => self.next(owner),
                    }
                }
            }
            _ => {
                self.pop_ctrl();
                self.complete(owner, &values)
            }
        }
    }

    /// `cir.condition(%c)`: ends a loop condition region.
    pub(crate) fn exec_condition(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        let c = func
            .dfg
            .operands(op)
            .first()
            .map(|&v| self.get(v))
            .unwrap_or(0);
        let Some(top) = self.cur.ctrl.last() else {
            return Err(self.error("cir.condition outside a loop".into()));
        };
        let (owner, region) = (top.op, top.region);
        let body = match (*func.dfg.kind(owner), region) {
            (OpKind::While, 0) | (OpKind::For, 0) => 1,
            (OpKind::DoWhile, 1) => 0,
            _ => return Err(self.error("cir.condition outside a loop condition region".into())),
        };
        if c != 0 {
            self.enter_region(body, &[])
        } else {
            self.pop_ctrl();
            self.next(owner)
        }
    }

    /// `cir.catch_param`: the pointer the enclosing handler received
    /// ([`Machine::catch_param_value`]).
    pub(crate) fn exec_catch_param(&mut self, op: Op) -> Result<(), Stop> {
        let caught = self.cur.ctrl.iter().rev().find_map(|c| match c.state {
            CtrlState::Catch { exn, adjusted } => Some((exn, adjusted)),
            _ => None,
        });
        let Some((exn, adjusted)) = caught else {
            return Err(self.error("cir.catch_param outside a catch handler".into()));
        };
        if let Some(&r) = self.cur.func.dfg.results(op).first() {
            let value = self.catch_param_value(exn, adjusted, self.cur.func.dfg.value_type(r));
            self.set(r, value);
        }
        self.next(op)
    }

    /// Carries out a control transfer from the running point, leaving constructs and
    /// running the normal cleanups on the way.
    pub(crate) fn perform(&mut self, action: Pending) -> Result<(), Stop> {
        let func = self.cur.func;
        loop {
            if let Pending::Unwind(exn) = action {
                return self.unwind(exn);
            }
            let Some(top) = self.cur.ctrl.last() else {
                return match action {
                    Pending::Return(v) => self.do_return(v),
                    Pending::Branch(block, args) => match func
                        .body
                        .and_then(|body| entry_path(func, body, block))
                    {
                        Some(path) => self.enter_nested(&path, block, &args),
                        None => Err(self.error("branch to a block outside the function".into())),
                    },
                    Pending::Break => Err(self.error("cir.break outside a loop or switch".into())),
                    Pending::Continue => Err(self.error("cir.continue outside a loop".into())),
                    Pending::Complete(_) | Pending::Unwind(_) => {
                        Err(self.error("internal: completion without a construct".into()))
                    }
                };
            };
            let (owner, region, state) = (top.op, top.region, top.state.clone());
            let kind = *func.dfg.kind(owner);
            let is_loop = matches!(kind, OpKind::While | OpKind::DoWhile | OpKind::For);
            match action {
                Pending::Break if is_loop || matches!(kind, OpKind::Switch) => {
                    self.pop_ctrl();
                    return self.next(owner);
                }
                Pending::Continue if is_loop => {
                    let target = match kind {
                        OpKind::While => 0,
                        OpKind::DoWhile => 1,
                        _ => 2,
                    };
                    return self.enter_region(target, &[]);
                }
                Pending::Branch(block, ref args)
                    if let Some(&running) = func.dfg.regions(owner).get(region as usize)
                        && let Some(path) = entry_path(func, running, block) =>
                {
                    let args = args.clone();
                    return self.enter_nested(&path, block, &args);
                }
                _ => {}
            }
            match state {
                CtrlState::CleanupBody => {
                    let runs =
                        matches!(kind, OpKind::CleanupScope { kind } if kind.runs_on_normal_exit());
                    if runs {
                        let mark = top.mark;
                        self.free_allocas_to(mark);
                        self.set_top_state(CtrlState::CleanupRun(action))?;
                        self.cleanup_event("normal");
                        return self.enter_region(1, &[]);
                    }
                    self.pop_ctrl();
                }
                CtrlState::Catch { .. } => {
                    self.pop_ctrl();
                    self.end_catch()?;
                }
                CtrlState::UnwindRegion { .. }
                | CtrlState::ArrayDestroy {
                    unwinding: Some(_), ..
                } => {
                    return Err(self.error(
                        "control left a region that runs during unwinding without continuing to unwind"
                            .into(),
                    ));
                }
                _ => {
                    self.pop_ctrl();
                }
            }
        }
    }

    /// Enters the constructs of `path` (from the outermost, see [`entry_path`]) and then
    /// `block`: a `goto` into a nested scope, which C++ allows when it skips no
    /// initialization. Each entered region's leading `cir.alloca`s (its variables) are
    /// allocated, as on entering the region from its start. Only plain constructs (scopes,
    /// `if`, loop bodies, `switch`) can be entered so; C++ forbids jumping into a `try`
    /// block or past a variable with a destructor.
    fn enter_nested(&mut self, path: &[(Op, u32)], block: Block, args: &[u64]) -> Result<(), Stop> {
        let func = self.cur.func;
        for &(op, index) in path {
            let kind = *func.dfg.kind(op);
            // Constructs whose regions run with a state of their own (or an expression's).
            if matches!(
                kind,
                OpKind::CleanupScope { .. }
                    | OpKind::Try { .. }
                    | OpKind::ArrayCtor
                    | OpKind::ArrayDtor
                    | OpKind::Ternary
            ) {
                return Err(self.error(format!(
                    "a branch into a region of {} is not supported",
                    kind.name()
                )));
            }
            self.push_ctrl(op, CtrlState::Plain);
            if let Some(top) = self.cur.ctrl.last_mut() {
                top.region = index;
            }
            let region = func.dfg.regions(op)[index as usize];
            let entry = func.layout.entry_block(region);
            let mut next = entry.and_then(|b| func.layout.first_op(b));
            while let Some(alloca) = next
                && entry != Some(block)
                && let OpKind::Alloca { alloc_ty, name, .. } = *func.dfg.kind(alloca)
            {
                self.allocate_local(alloca, alloc_ty, name)?;
                next = func.layout.next_op(alloca);
            }
        }
        self.enter_block(block, args, None)
    }

    /// Unwinds `exn` through the structured constructs of the running frame. Returns
    /// whether code of this frame now runs (a cleanup or handler region); `false` when
    /// the exception leaves the frame.
    pub(crate) fn unwind_structured(&mut self, exn: u32) -> Result<bool, Stop> {
        let func = self.cur.func;
        loop {
            if self.doomed() {
                return self.terminate_at_boundary(exn).map(|_| true);
            }
            let Some(top) = self.cur.ctrl.last() else {
                return Ok(false);
            };
            let (owner, mark, state) = (top.op, top.mark, top.state.clone());
            let kind = *func.dfg.kind(owner);
            match state {
                CtrlState::CleanupBody => {
                    if matches!(kind, OpKind::CleanupScope { kind } if kind.runs_on_eh_exit()) {
                        self.free_allocas_to(mark);
                        self.set_top_state(CtrlState::CleanupRun(Pending::Unwind(exn)))?;
                        self.cleanup_event("eh");
                        self.enter_region(1, &[])?;
                        return Ok(true);
                    }
                    self.pop_ctrl();
                }
                state if runs_during_unwinding(&state) => {
                    // A new exception escapes code that runs during unwinding (`doomed`
                    // sees this first).
                    return self.terminate_at_boundary(exn).map(|_| true);
                }
                CtrlState::TryBody => {
                    let OpKind::Try { handlers } = kind else {
                        self.pop_ctrl();
                        continue;
                    };
                    let keys = func.dfg.handlers(handlers).to_vec();
                    let catching = has_catching_keys(func, owner);
                    for (i, key) in keys.iter().enumerate() {
                        let region = i as u32 + 1;
                        match key {
                            HandlerKey::Catch(attr) => {
                                let Some(ty) = self.attr_type(*attr) else {
                                    continue;
                                };
                                if let Some(adjust) = self.catch_adjust(&ty, exn) {
                                    let adjusted = self.select_handler(exn, adjust, Some(ty))?;
                                    return self.enter_handler(exn, adjusted, region).map(|_| true);
                                }
                            }
                            HandlerKey::CatchAll => {
                                let adjusted = self.select_handler(
                                    exn,
                                    crate::cxx_types::Adjust::object(),
                                    None,
                                )?;
                                return self.enter_handler(exn, adjusted, region).map(|_| true);
                            }
                            HandlerKey::Unwind => {
                                if catching {
                                    self.cur.passed_catch = Some(exn);
                                }
                                self.free_allocas_to(mark);
                                self.set_top_state(CtrlState::UnwindRegion { exn })?;
                                self.cleanup_event("unwind");
                                self.enter_region(region, &[])?;
                                return Ok(true);
                            }
                            HandlerKey::Filter(list) => {
                                let allowed = self.attr_type_list(*list);
                                if !self.spec_allows(&allowed, exn) {
                                    self.pop_ctrl();
                                    self.call_unexpected(exn, allowed)?;
                                    return Ok(true);
                                }
                            }
                            HandlerKey::Terminate => {
                                if catching {
                                    self.cur.passed_catch = Some(exn);
                                }
                                return self.terminate_at_boundary(exn).map(|_| true);
                            }
                        }
                    }
                    if catching {
                        self.cur.passed_catch = Some(exn);
                    }
                    self.pop_ctrl();
                }
                CtrlState::Catch { .. } => {
                    // Leaving a handler by an exception ends its catch.
                    self.pop_ctrl();
                    self.end_catch()?;
                }
                CtrlState::ArrayCtor {
                    base, index, elem, ..
                } => {
                    // The constructed elements are destroyed (by the second region).
                    if func.dfg.regions(owner).len() > 1 && index > 0 {
                        return self.destroy_elements(base, index, elem, 1, exn);
                    }
                    self.pop_ctrl();
                }
                CtrlState::ArrayDestroy {
                    base,
                    remaining,
                    elem,
                    unwinding: None,
                } => {
                    // A destructor threw: the elements before it are still destroyed
                    // (in reverse order), then unwinding continues.
                    if remaining > 1 {
                        return self.destroy_elements(base, remaining - 1, elem, 0, exn);
                    }
                    self.pop_ctrl();
                }
                _ => {
                    self.pop_ctrl();
                }
            }
        }
    }

    /// Partial array destruction while `exn` unwinds: destroys the first `count`
    /// elements, last first, with region `region` of the innermost array op.
    fn destroy_elements(
        &mut self,
        base: u64,
        count: u64,
        elem: u64,
        region: u32,
        exn: u32,
    ) -> Result<bool, Stop> {
        if let Some(mark) = self.cur.ctrl.last().map(|c| c.mark) {
            self.free_allocas_to(mark);
        }
        self.set_top_state(CtrlState::ArrayDestroy {
            base,
            remaining: count,
            elem,
            unwinding: Some(exn),
        })?;
        self.cleanup_event("eh");
        self.enter_region(region, &[element(base, count - 1, elem)])?;
        Ok(true)
    }

    /// Switches the innermost `cir.try` to handler region `region` for `exn`.
    fn enter_handler(&mut self, exn: u32, adjusted: u64, region: u32) -> Result<(), Stop> {
        let Some(mark) = self.cur.ctrl.last().map(|c| c.mark) else {
            return Err(self.error("no cir.try to enter a handler of".into()));
        };
        self.free_allocas_to(mark);
        self.set_top_state(CtrlState::Catch { exn, adjusted })?;
        self.begin_catch(exn)?;
        // A handler region that declares a token (`catch all (%t : !cir.eh_token)`)
        // receives the exception's token, as the flat handler block does.
        self.enter_region_with_token(region, &[], Some(u64::from(exn)))
    }

    /// Phase 1 in a structured frame: whether unwinding stops in it (a handler, a
    /// violated exception specification, or a terminate boundary).
    pub(crate) fn search_structured(
        &self,
        ctrl: &[Ctrl],
        func: &ehir_core::Function,
        exn: u32,
    ) -> bool {
        // A `terminate` boundary stops the search only when no try with catching
        // handlers comes before it (g++ encodes it as a call-site gap then; otherwise
        // the call site's actions are the inner try's and the search goes on).
        let mut passed_catching = false;
        for (depth, c) in ctrl.iter().enumerate().rev() {
            match &c.state {
                state if runs_during_unwinding(state) => return true,
                CtrlState::TryBody => {
                    let OpKind::Try { handlers } = *func.dfg.kind(c.op) else {
                        continue;
                    };
                    for key in func.dfg.handlers(handlers) {
                        if self.key_handles(key, exn) {
                            return true;
                        }
                        match key {
                            HandlerKey::Terminate => {
                                if !passed_catching && !has_catching_keys(func, c.op) {
                                    return true;
                                }
                                // The call site's actions end at the boundary: nothing
                                // further out in this frame is searched (the outer
                                // tries are unreachable from here), except that code
                                // running during unwinding stops the search (g++'s
                                // call-site gap of a cleanup).
                                return ctrl[..depth]
                                    .iter()
                                    .any(|c| runs_during_unwinding(&c.state));
                            }
                            // Handled by `key_handles` above; `unwind` goes on searching.
                            HandlerKey::Catch(_)
                            | HandlerKey::CatchAll
                            | HandlerKey::Filter(_)
                            | HandlerKey::Unwind => {}
                        }
                    }
                    if has_catching_keys(func, c.op) {
                        passed_catching = true;
                    }
                }
                _ => {}
            }
        }
        false
    }

    /// `cir.resume` in a structured function: continue unwinding the exception of the
    /// innermost `unwind` handler or EH cleanup region.
    pub(crate) fn resume_structured(&mut self) -> Result<(), Stop> {
        let found = self
            .cur
            .ctrl
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, c)| unwinding_exception(&c.state).map(|exn| (i, exn)));
        let Some((index, exn)) = found else {
            return Err(self.error("cir.resume with no exception being unwound".into()));
        };
        while self.cur.ctrl.len() > index {
            if let Some(c) = self.pop_ctrl()
                && matches!(c.state, CtrlState::Catch { .. })
            {
                self.end_catch()?;
            }
        }
        self.unwind(exn)
    }
}

/// Whether a `cir.try` has handlers that test the exception's type (catch, catch all,
/// filter): a landing pad with type actions in Itanium terms.
fn has_catching_keys(func: &ehir_core::Function, op: Op) -> bool {
    match *func.dfg.kind(op) {
        OpKind::Try { handlers } => func.dfg.handlers(handlers).iter().any(|k| {
            matches!(
                k,
                HandlerKey::Catch(_) | HandlerKey::CatchAll | HandlerKey::Filter(_)
            )
        }),
        _ => false,
    }
}

/// The exception being unwound when a construct is in a state that runs code during
/// unwinding (an EH cleanup region, an `unwind` handler, a partial array destruction): an
/// exception escaping it terminates, and `cir.resume` continues unwinding this one.
fn unwinding_exception(state: &CtrlState) -> Option<u32> {
    match *state {
        CtrlState::CleanupRun(Pending::Unwind(exn))
        | CtrlState::UnwindRegion { exn }
        | CtrlState::ArrayDestroy {
            unwinding: Some(exn),
            ..
        } => Some(exn),
        _ => None,
    }
}

/// Whether a construct is in a state that runs code during unwinding (see
/// [`unwinding_exception`]).
pub(crate) fn runs_during_unwinding(state: &CtrlState) -> bool {
    unwinding_exception(state).is_some()
}

/// Whether an op is a `cir.try` with a `terminate` handler (a noexcept boundary).
fn has_terminate_key(func: &ehir_core::Function, op: Op) -> bool {
    match *func.dfg.kind(op) {
        OpKind::Try { handlers } => func
            .dfg
            .handlers(handlers)
            .iter()
            .any(|k| matches!(k, HandlerKey::Terminate)),
        _ => false,
    }
}

/// The address of element `index`.
fn element(base: u64, index: u64, elem: u64) -> u64 {
    crate::memory::offset_by(base, index.wrapping_mul(elem) as i64)
}

/// The constructs a branch from region `from` enters to reach `block`, nested in `from`:
/// each op with the index of its region the path goes through, the outermost first
/// (empty when `block` is in `from` itself); `None` when `block` is not inside `from`.
fn entry_path(func: &Function, from: Region, block: Block) -> Option<Vec<(Op, u32)>> {
    let mut path = Vec::new();
    let mut region = func.layout.block_region(block)?;
    while region != from {
        let op = func.dfg.region_parent(region)?;
        let index = func.dfg.regions(op).iter().position(|&r| r == region)?;
        path.push((op, index as u32));
        region = func.layout.block_region(func.layout.op_block(op)?)?;
    }
    path.reverse();
    Some(path)
}
