//! Cleanups: `cir.cleanup.scope` pushed when an object's construction completes and popped
//! when its scope ends, deactivation, full expressions with temporaries, and conditional
//! cleanups (flags for temporaries constructed on only some paths).

use crate::error::BuilderErrorKind;
use crate::function::{
    CleanupDepth, CleanupHandle, ConditionalFrame, CoreOp, DeferredCleanup, Frame, FrameKind,
    FullExpressionMark, FunctionBuilder,
};
use crate::handles::{Block, Op, Value};
use ehir_core::{AttrData, CleanupKind, CursorPosition, OpKind, Type};

impl FunctionBuilder<'_> {
    /// The current depth of the cleanup stack.
    pub fn cleanup_depth(&self) -> CleanupDepth {
        CleanupDepth(self.state.frames.len())
    }

    /// Pushes a cleanup: creates a `cir.cleanup.scope` of `kind` at the insertion point,
    /// emits the cleanup code with `emit` (into the cleanup region, which is closed with
    /// `cir.yield`, or `cir.resume` for EH-only cleanups) and moves the insertion point
    /// into the body. Call it right after the object's construction completes.
    pub fn push_cleanup(
        &mut self,
        kind: CleanupKind,
        emit: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> CleanupHandle {
        let result: Result<CleanupHandle, std::convert::Infallible> =
            self.push_cleanup_with(kind, &mut (), |b, _| {
                emit(b);
                Ok(())
            });
        match result {
            Ok(handle) => handle,
            Err(never) => match never {},
        }
    }

    /// [`FunctionBuilder::push_cleanup`] with an emitter that gets the front end's own
    /// context (`cx`) and may fail. On `Err` nothing is pushed (the half-built
    /// `cir.cleanup.scope` is removed) and the error is returned.
    ///
    /// ```
    /// use ehir_core::{CallFlags, CleanupKind, ModuleCtx};
    /// use ehir_builder::FunctionBuilder;
    ///
    /// struct Frontend { deferred: Vec<&'static str> }
    /// let mut ctx = ModuleCtx::default();
    /// let sig = ctx.types.func(vec![], None, false);
    /// let mut b = FunctionBuilder::new(&mut ctx, "f", sig, &[]);
    /// let mut fe = Frontend { deferred: vec!["close", "???"] };
    /// let pushed = b.push_cleanup_with(CleanupKind::All, &mut fe, |b, fe| {
    ///     let name = fe.deferred.remove(0);
    ///     let sig = b.ctx.types.func(vec![], None, false);
    ///     b.call_named(name, sig, &[], CallFlags { nothrow: true, ..CallFlags::default() });
    ///     Ok::<_, String>(())
    /// });
    /// assert!(pushed.is_ok());
    /// let failed = b.push_cleanup_with(CleanupKind::All, &mut fe, |_, fe| {
    ///     Err(format!("unknown function {}", fe.deferred[0]))
    /// });
    /// assert_eq!(failed.unwrap_err(), "unknown function ???");
    /// b.pop_cleanup();
    /// assert!(b.finish().is_ok());
    /// ```
    pub fn push_cleanup_with<C: ?Sized, E>(
        &mut self,
        kind: CleanupKind,
        cx: &mut C,
        emit: impl FnOnce(&mut FunctionBuilder<'_>, &mut C) -> Result<(), E>,
    ) -> Result<CleanupHandle, E> {
        let (op, body, _) = self.cursor().cleanup_scope(kind);
        if let Err(e) = self.fill_cleanup_region(op, kind, |b| emit(b, cx)) {
            self.state.func.layout.remove_op(op);
            return Err(e);
        }
        self.state.block = body;
        self.state.frames.push(Frame {
            kind: FrameKind::Cleanup { op },
            alloca: None,
        });
        Ok(CleanupHandle(self.op_handle(op)))
    }

    /// Deactivates a cleanup: from now on it does not run on any exit. When it is the
    /// innermost cleanup and EH-only it is simply popped; otherwise its cleanup region is
    /// guarded by a flag (`cleanup.isactive`, set before the scope and cleared here), as
    /// Clang does for a cleanup buried under later ones (e.g. the `operator delete` of a
    /// new-expression under the temporaries of its constructor arguments).
    pub fn deactivate_cleanup(&mut self, handle: CleanupHandle) {
        let Some(op) = self.op(handle.0, "deactivate_cleanup") else {
            return;
        };
        let on_top = matches!(
            self.state.frames.last().map(|f| f.kind),
            Some(FrameKind::Cleanup { op: o }) if o == op
        );
        let kind = match self.state.func.dfg.kind(op) {
            OpKind::CleanupScope { kind } => *kind,
            _ => {
                self.fail(
                    BuilderErrorKind::InvalidEntity,
                    "deactivate_cleanup: not a cleanup scope",
                );
                return;
            }
        };
        if on_top && kind == CleanupKind::Eh {
            self.pop_cleanup();
            return;
        }
        let regions = self.state.func.dfg.regions(op).to_vec();
        let Some(cleanup_block) = self.state.func.layout.entry_block(regions[1]) else {
            self.fail(
                BuilderErrorKind::InvalidEntity,
                "deactivate_cleanup: cleanup region without a block",
            );
            return;
        };
        if self.state.func.layout.blocks(regions[1]).count() != 1 {
            self.fail(
                BuilderErrorKind::InvalidEntity,
                "deactivate_cleanup: the cleanup region has several blocks",
            );
            return;
        }
        // Guard the cleanup region with a flag, set before the scope.
        let bool_ty = self.ctx.types.common().bool;
        let flag = self.alloca(bool_ty, "cleanup.isactive", false, 1);
        let Some(flag) = flag.raw() else {
            return;
        };
        let true_attr = self.ctx.attrs.intern(AttrData::Bool(true));
        let false_attr = self.ctx.attrs.intern(AttrData::Bool(false));
        {
            let mut at_scope = self.cursor_at(CursorPosition::Before(op));
            let on = at_scope.constant(true_attr, bool_ty);
            at_scope.store_aligned(on, flag, 1);
        }
        // Move the cleanup code under `cir.if (flag)`.
        let ops: Vec<CoreOp> = self.state.func.layout.ops(cleanup_block).collect();
        let (terminator, body_ops) = match ops.split_last() {
            Some((&last, rest)) if self.state.func.dfg.kind(last).is_terminator() => {
                (Some(last), rest.to_vec())
            }
            _ => (None, ops.clone()),
        };
        for &o in &ops {
            self.state.func.layout.remove_op(o);
        }
        let then_block = {
            let mut in_cleanup = self.cursor_at(CursorPosition::End(cleanup_block));
            let active = in_cleanup.load_aligned(flag, bool_ty, 1);
            let (_, then_block, _) = in_cleanup.if_op(active, false);
            then_block
        };
        for o in body_ops {
            self.state.func.layout.append_op(o, then_block);
        }
        self.cursor_at(CursorPosition::End(then_block))
            .yield_values(&[]);
        if let Some(t) = terminator {
            self.state.func.layout.append_op(t, cleanup_block);
        }
        // Clear the flag at the deactivation point.
        let mut here = self.cursor();
        let off = here.constant(false_attr, bool_ty);
        here.store_aligned(off, flag, 1);
    }

    /// The structured ops (and region index) enclosing the insertion point, outermost
    /// first: a label is reachable by `cir.goto` from code whose path extends it.
    pub fn frame_path(&self) -> Vec<(Op, usize)> {
        self.state
            .frames
            .iter()
            .filter_map(|f| match f.kind {
                FrameKind::Body => None,
                FrameKind::Region { op, index } => Some((op, index)),
                FrameKind::Cleanup { op } => Some((op, 0)),
                FrameKind::Try { op, region, .. } => Some((op, region)),
            })
            .map(|(op, index)| (self.op_handle(op), index))
            .collect()
    }

    /// Adds a parameter to a block (entry blocks of `cir.array.ctor` / `cir.array.dtor`).
    pub fn add_block_param(&mut self, block: Block, ty: Type) -> Value {
        let Some(block) = self.block(block, "add_block_param") else {
            return self.poison();
        };
        if !self.check_type(ty, "add_block_param") {
            return self.poison();
        }
        let value = self.state.func.dfg.append_block_param(block, ty);
        self.value_handle(value)
    }

    pub(crate) fn fill_cleanup_region<E>(
        &mut self,
        op: CoreOp,
        kind: CleanupKind,
        emit: impl FnOnce(&mut FunctionBuilder<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let saved = self.state.block;
        let depth = self.state.frames.len();
        self.enter_core_region(op, 1, false);
        let result = emit(self);
        // Whatever the emitter left open is closed here.
        while self.state.frames.len() > depth + 1 {
            self.exit_any();
        }
        let in_region = matches!(
            self.state.frames.last().map(|f| f.kind),
            Some(FrameKind::Region { op: o, index: 1 }) if o == op
        );
        if !in_region {
            self.fail(
                BuilderErrorKind::Unbalanced,
                "push_cleanup: the cleanup emitter closed its own region",
            );
            self.state.frames.truncate(depth);
            self.state.block = saved;
            return result;
        }
        self.state.frames.pop();
        if !self.is_terminated() {
            if kind == CleanupKind::Eh {
                self.cursor().resume(None);
            } else {
                self.cursor().yield_values(&[]);
            }
        }
        self.state.block = saved;
        result
    }

    /// Closes whatever frame is on top (used when an emitter leaves frames open).
    pub(crate) fn exit_any(&mut self) {
        match self.state.frames.last().map(|f| f.kind) {
            Some(FrameKind::Cleanup { .. }) => self.pop_cleanup(),
            Some(FrameKind::Try { .. }) => self.exit_try(),
            Some(FrameKind::Region { .. }) => self.exit_region(),
            _ => {
                self.state.frames.pop();
            }
        }
    }

    /// Pops the innermost cleanup: closes its body (with `cir.yield` unless it ends in a
    /// terminator) and continues after the `cir.cleanup.scope`.
    pub fn pop_cleanup(&mut self) {
        match self.state.frames.last().map(|f| f.kind) {
            Some(FrameKind::Cleanup { op }) => self.close_frame(op),
            _ => self.fail(
                BuilderErrorKind::Unbalanced,
                "pop_cleanup: the innermost frame is not a cleanup",
            ),
        }
    }

    /// Pops cleanups until the stack is back at `depth`.
    pub fn pop_cleanups_to(&mut self, depth: CleanupDepth) {
        while self.state.frames.len() > depth.0 {
            match self.state.frames.last().map(|f| f.kind) {
                Some(FrameKind::Cleanup { .. }) => self.pop_cleanup(),
                _ => {
                    self.fail(
                        BuilderErrorKind::Unbalanced,
                        "pop_cleanups_to: crosses a region or try (exit it first)",
                    );
                    return;
                }
            }
        }
    }

    /// Pops every cleanup pushed since the innermost scope, region or try was entered.
    pub fn force_cleanups(&mut self) {
        self.pop_cleanups_above_region();
    }

    /// Whether any cleanup is active in the innermost scope (so a value computed now
    /// cannot be used after [`FunctionBuilder::force_cleanups`]).
    pub fn has_cleanups_in_scope(&self) -> bool {
        matches!(
            self.state.frames.last().map(|f| f.kind),
            Some(FrameKind::Cleanup { .. })
        )
    }

    /// Begins a full expression; temporaries registered with
    /// [`FunctionBuilder::push_temporary_cleanup`] are destroyed at its end.
    pub fn begin_full_expression(&mut self) -> FullExpressionMark {
        FullExpressionMark {
            depth: self.state.frames.len(),
        }
    }

    /// Ends a full expression: destroys its temporaries (pops their cleanups).
    pub fn end_full_expression(&mut self, mark: FullExpressionMark) {
        self.pop_cleanups_to(CleanupDepth(mark.depth));
    }

    /// Whether the full expression begun at `mark` has pushed cleanups.
    pub fn full_expression_has_cleanups(&self, mark: FullExpressionMark) -> bool {
        self.state.frames.len() > mark.depth
    }

    /// Registers the destruction of a temporary at the end of the full expression. Inside
    /// a conditional (see [`FunctionBuilder::begin_conditional`]) the cleanup is
    /// conditional on a flag set here.
    pub fn push_temporary_cleanup(
        &mut self,
        kind: CleanupKind,
        emit: impl FnOnce(&mut FunctionBuilder<'_>) + 'static,
    ) {
        if self.state.conditionals.is_empty() {
            let _ = self.push_cleanup(kind, emit);
            return;
        }
        let bool_ty = self.ctx.types.common().bool;
        let flag = self.alloca(bool_ty, "cleanup.cond", false, 1);
        let on = self.const_bool(true);
        self.store(on, flag, 1);
        self.state.conditionals[0].deferred.push(DeferredCleanup {
            kind,
            flag,
            emit: Box::new(emit),
        });
    }

    /// Begins code that runs on only some paths of a full expression (an arm of `?:`, the
    /// right operand of `&&`/`||`). Call it before building the conditional op.
    ///
    /// ```
    /// use ehir_core::{CallFlags, CleanupKind, ModuleCtx, OpKind};
    /// use ehir_builder::FunctionBuilder;
    ///
    /// // `c && T().ok()`: the temporary exists only when `c` is true.
    /// let mut ctx = ModuleCtx::default();
    /// let bool_ty = ctx.types.common().bool;
    /// let rec = { let a = ctx.sym("rec_T"); ctx.types.record(a) };
    /// let rec_ptr = ctx.types.ptr(rec);
    /// let method = ctx.types.func(vec![rec_ptr], None, false);
    /// let ok_sig = ctx.types.func(vec![rec_ptr], Some(bool_ty), false);
    /// let (ctor, dtor, ok) = (ctx.sym("_ZN1TC1Ev"), ctx.sym("_ZN1TD1Ev"), ctx.sym("_ZN1T2okEv"));
    /// let sig = ctx.types.func(vec![bool_ty], None, false);
    /// let mut b = FunctionBuilder::new(&mut ctx, "f", sig, &[bool_ty]);
    /// let c = b.params()[0];
    /// let tmp = b.alloca(rec, "ref.tmp", false, 0);
    /// let full = b.begin_full_expression();
    /// b.begin_conditional();
    /// let and = b.create_region_op(OpKind::Ternary, &[c], &[bool_ty], 2);
    /// b.enter_region(and, 0, false);
    /// b.call(ctor, method, &[tmp], CallFlags::default());
    /// b.push_temporary_cleanup(CleanupKind::All, move |b| {
    ///     b.call(dtor, method, &[tmp], CallFlags::default());
    /// });
    /// let v = b.call(ok, ok_sig, &[tmp], CallFlags::default()).unwrap();
    /// b.exit_region_yielding(&[v]);
    /// b.enter_region(and, 1, false);
    /// let f = b.const_bool(false);
    /// b.exit_region_yielding(&[f]);
    /// b.end_conditional();
    /// b.end_full_expression(full);
    /// let func = b.finish().unwrap();
    /// // The flag is cleared before the cleanup scope, set after construction, and
    /// // tested by the cleanup.
    /// assert_eq!(ehir_core::printer::function_to_string(&ctx, &func), "\
    /// cir.func @f(%arg0: !cir.bool) {
    ///   %0 = cir.alloca \"ref.tmp\" : !cir.ptr<!rec_T>
    ///   %1 = cir.alloca \"cleanup.cond\" align(1) : !cir.ptr<!cir.bool>
    ///   %2 = cir.const #false
    ///   cir.store align(1) %2, %1 : !cir.bool, !cir.ptr<!cir.bool>
    ///   cir.cleanup.scope {
    ///     %3 = cir.ternary(%arg0, true {
    ///       cir.call @_ZN1TC1Ev(%0) : (!cir.ptr<!rec_T>) -> ()
    ///       %4 = cir.const #true
    ///       cir.store align(1) %4, %1 : !cir.bool, !cir.ptr<!cir.bool>
    ///       %5 = cir.call @_ZN1T2okEv(%0) : (!cir.ptr<!rec_T>) -> !cir.bool
    ///       cir.yield %5 : !cir.bool
    ///     }, false {
    ///       %6 = cir.const #false
    ///       cir.yield %6 : !cir.bool
    ///     }) : (!cir.bool) -> !cir.bool
    ///     cir.yield
    ///   } cleanup all {
    ///     %7 = cir.load align(1) %1 : !cir.ptr<!cir.bool>, !cir.bool
    ///     cir.if %7 {
    ///       cir.call @_ZN1TD1Ev(%0) : (!cir.ptr<!rec_T>) -> ()
    ///       cir.yield
    ///     }
    ///     cir.yield
    ///   }
    ///   cir.return
    /// }
    /// ");
    /// ```
    pub fn begin_conditional(&mut self) {
        // Code after a terminator goes to a fresh block first.
        let block = self.insertion_block();
        let after = self.state.func.layout.last_op(block);
        self.state.conditionals.push(ConditionalFrame {
            block,
            after,
            deferred: Vec::new(),
        });
    }

    /// Ends a conditional. When the outermost conditional ends, the temporaries
    /// registered inside it get cleanup scopes that wrap the code emitted since
    /// [`FunctionBuilder::begin_conditional`] and test their flags.
    pub fn end_conditional(&mut self) {
        let Some(frame) = self.state.conditionals.pop() else {
            self.fail(
                BuilderErrorKind::Unbalanced,
                "end_conditional without begin_conditional",
            );
            return;
        };
        if !self.state.conditionals.is_empty() {
            // Nested: the outermost conditional owns the deferred cleanups.
            self.state.conditionals[0].deferred.extend(frame.deferred);
            return;
        }
        if frame.deferred.is_empty() {
            return;
        }
        if frame.block != self.state.block {
            self.fail(
                BuilderErrorKind::Unbalanced,
                "end_conditional: the conditional ended in another block than it began",
            );
            return;
        }
        // The ops to wrap: everything after the anchor except hoisted allocas.
        let layout = &self.state.func.layout;
        let mut to_move = Vec::new();
        let mut cur = match frame.after {
            Some(a) => layout.next_op(a),
            None => layout.first_op(frame.block),
        };
        while let Some(op) = cur {
            cur = layout.next_op(op);
            let hoisted = matches!(self.state.func.dfg.kind(op), OpKind::Alloca { .. })
                && self.state.func.dfg.operands(op).is_empty();
            if !hoisted {
                to_move.push(op);
            }
        }
        for &op in &to_move {
            self.state.func.layout.remove_op(op);
        }
        // Clear the flags, then nest one cleanup scope per deferred cleanup.
        let off = self.const_bool(false);
        for d in &frame.deferred {
            self.store(off, d.flag, 1);
        }
        for d in frame.deferred {
            let flag = d.flag;
            let emit = d.emit;
            let _ = self.push_cleanup(d.kind, move |b| {
                let v = b.load(flag, 1);
                b.begin_if(v, false);
                emit(b);
                b.end_if();
            });
        }
        for op in to_move {
            self.state.func.layout.append_op(op, self.state.block);
        }
    }

    /// Whether the builder is inside a conditional.
    pub fn in_conditional(&self) -> bool {
        !self.state.conditionals.is_empty()
    }
}
