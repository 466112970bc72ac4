//! Exceptions: `cir.try` with its handlers (typed catch, catch all, filter, terminate,
//! the implicit `unwind { cir.resume }`), and `cir.throw` (with its exception storage).

use crate::error::BuilderErrorKind;
use crate::function::{CatchKind, CoreOp, Frame, FrameKind, FunctionBuilder};
use crate::handles::{Op, Value};
use ehir_core::{AttrData, Extra, ExtraData, HandlerKey, Symbol, Type};

impl FunctionBuilder<'_> {
    /// Starts a `cir.try`; the insertion point is its body.
    ///
    /// ```
    /// use ehir_core::{CallFlags, ModuleCtx};
    /// use ehir_builder::{CatchKind, FunctionBuilder};
    ///
    /// // try { f(); } catch (int e) { g(*e); } catch (...) { throw; }
    /// let mut ctx = ModuleCtx::default();
    /// let s32 = ctx.types.common().s32;
    /// let s32_ptr = ctx.types.ptr(s32);
    /// let void_sig = ctx.types.func(vec![], None, false);
    /// let g_sig = ctx.types.func(vec![s32], None, false);
    /// let (f, g, ti) = (ctx.sym("_Z1fv"), ctx.sym("_Z1gi"), ctx.sym("_ZTIi"));
    /// let mut b = FunctionBuilder::new(&mut ctx, "h", void_sig, &[]);
    /// b.enter_try();
    /// b.call(f, void_sig, &[], CallFlags::default());
    /// let e = b.emit_catch(CatchKind::Type(ti), s32_ptr);
    /// let v = b.load(e, 4);
    /// b.call(g, g_sig, &[v], CallFlags::default());
    /// b.emit_catch(CatchKind::All, s32_ptr);
    /// b.emit_rethrow();
    /// b.exit_try();
    /// let func = b.finish().unwrap();
    /// assert_eq!(ehir_core::printer::function_to_string(&ctx, &func), "\
    /// cir.func @h() {
    ///   cir.try {
    ///     cir.call @_Z1fv() : () -> ()
    ///     cir.yield
    ///   } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
    ///     %0 = cir.catch_param : !cir.ptr<!s32i>
    ///     %1 = cir.load align(4) %0 : !cir.ptr<!s32i>, !s32i
    ///     cir.call @_Z1gi(%1) : (!s32i) -> ()
    ///     cir.yield
    ///   } catch all {
    ///     %2 = cir.catch_param : !cir.ptr<!void>
    ///     cir.throw
    ///     cir.unreachable
    ///   }
    ///   cir.return
    /// }
    /// ");
    /// ```
    pub fn enter_try(&mut self) -> Op {
        let handlers = self
            .state
            .func
            .dfg
            .make_extra(ExtraData::Handlers(Vec::new()));
        let (op, body) = self.cursor().try_op(handlers);
        self.state.block = body;
        self.state.frames.push(Frame {
            kind: FrameKind::Try {
                op,
                handlers,
                region: 0,
            },
            alloca: None,
        });
        self.op_handle(op)
    }

    /// Pops the cleanups pushed inside the current region and returns the `cir.try` op
    /// and handler list of the innermost frame, which must be a try; otherwise records
    /// `message` as an error of `kind` and returns `None`.
    fn innermost_try(
        &mut self,
        kind: BuilderErrorKind,
        message: impl Into<String>,
    ) -> Option<(CoreOp, Extra)> {
        self.pop_cleanups_above_region();
        if let Some(Frame {
            kind: FrameKind::Try { op, handlers, .. },
            ..
        }) = self.state.frames.last().copied()
        {
            return Some((op, handlers));
        }
        self.fail(kind, message);
        None
    }

    /// Closes the open region of the innermost try and opens a new handler region.
    pub(crate) fn open_handler(&mut self, key: HandlerKey, what: &str) -> bool {
        let Some((op, handlers)) = self.innermost_try(
            BuilderErrorKind::Misplaced,
            format!("{what}: a handler outside a try (or inside an inner scope of one)"),
        ) else {
            return false;
        };
        if !self.is_terminated() {
            self.cursor().yield_values(&[]);
        }
        if let ExtraData::Handlers(h) = &mut self.state.func.dfg.extras[handlers] {
            h.push(key);
        }
        let region = self.state.func.dfg.make_region(Some(op));
        self.state.func.dfg.attach_region(op, region);
        self.state.block = self.region_entry(region);
        let index = self.state.func.dfg.regions(op).len() - 1;
        if let Some(Frame {
            kind: FrameKind::Try { region, .. },
            ..
        }) = self.state.frames.last_mut()
        {
            *region = index;
        }
        true
    }

    /// Starts a catch handler of the innermost try. Returns the `cir.catch_param` value:
    /// the address of the exception object, typed `param_ty` (`!cir.ptr<!void>` for
    /// [`CatchKind::All`] whatever `param_ty` says).
    pub fn emit_catch(&mut self, kind: CatchKind, param_ty: Type) -> Value {
        if !self.check_type(param_ty, "emit_catch") {
            return self.poison();
        }
        if let CatchKind::Type(ti) = kind
            && !self.check_symbol(ti, "emit_catch")
        {
            return self.poison();
        }
        let key = match kind {
            CatchKind::Type(ti) => {
                let u8p = self.ctx.types.common().u8_ptr;
                HandlerKey::Catch(self.ctx.attrs.intern(AttrData::GlobalView {
                    symbol: ti,
                    indices: Vec::new(),
                    ty: Some(u8p),
                }))
            }
            CatchKind::All => HandlerKey::CatchAll,
        };
        let ty = match kind {
            CatchKind::All => self.ctx.types.common().void_ptr,
            CatchKind::Type(_) => param_ty,
        };
        if !self.open_handler(key, "emit_catch") {
            return self.poison();
        }
        let value = self.cursor().catch_param(ty);
        self.value_handle(value)
    }

    /// `cir.copy_catch_param %exn to %dest [using @ctor]`, right after the
    /// [`FunctionBuilder::emit_catch`] that yielded `exn`: the by-value catch parameter
    /// at `dest` (of `exn`'s type) is a copy of the exception object, made by the copy
    /// constructor `ctor` (bitwise without one) — on the Microsoft ABI by the runtime.
    pub fn copy_catch_param(&mut self, exn: Value, dest: Value, ctor: Option<Symbol>) {
        let Some([exn, dest]) = self
            .values(&[exn, dest], "copy_catch_param")
            .map(|v| [v[0], v[1]])
        else {
            return;
        };
        if ctor.is_some_and(|c| !self.check_symbol(c, "copy_catch_param")) {
            return;
        }
        let (exn_ty, dest_ty) = (self.core_type(exn), self.core_type(dest));
        if exn_ty != dest_ty {
            let expected = self.type_name(exn_ty);
            self.mismatch("copy_catch_param", &expected, dest_ty);
            return;
        }
        self.cursor().copy_catch_param(exn, dest, ctor);
    }

    /// Adds a `filter [typeinfos...] { cir.unreachable }` handler (a dynamic exception
    /// specification `throw(T...)`; empty for `throw()`).
    pub fn emit_filter(&mut self, typeinfos: &[Symbol]) {
        if !typeinfos
            .iter()
            .all(|&ti| self.check_symbol(ti, "emit_filter"))
        {
            return;
        }
        let u8p = self.ctx.types.common().u8_ptr;
        let items: Vec<_> = typeinfos
            .iter()
            .map(|&s| {
                self.ctx.attrs.intern(AttrData::GlobalView {
                    symbol: s,
                    indices: Vec::new(),
                    ty: Some(u8p),
                })
            })
            .collect();
        let list = self.ctx.attrs.intern(AttrData::List(items));
        if self.open_handler(HandlerKey::Filter(list), "emit_filter") {
            self.cursor().unreachable();
        }
    }

    /// Adds a `terminate { cir.unreachable }` handler (a `noexcept` boundary).
    pub fn emit_terminate(&mut self) {
        if self.open_handler(HandlerKey::Terminate, "emit_terminate") {
            self.cursor().unreachable();
        }
    }

    /// Ends the innermost try: closes the open region, adds `unwind { cir.resume }` when
    /// no handler catches everything (or stops unwinding), and continues after the op.
    pub fn exit_try(&mut self) {
        let Some((op, handlers)) = self.innermost_try(
            BuilderErrorKind::Unbalanced,
            "exit_try: the innermost frame is not a try",
        ) else {
            return;
        };
        let complete = self.state.func.dfg.handlers(handlers).iter().any(|h| {
            matches!(
                h,
                HandlerKey::CatchAll | HandlerKey::Filter(_) | HandlerKey::Terminate
            )
        });
        if !complete && self.open_handler(HandlerKey::Unwind, "exit_try") {
            self.cursor().resume(None);
        }
        if !self.is_terminated() {
            self.cursor().yield_values(&[]);
        }
        self.state.frames.pop();
        self.continue_after(op);
    }

    // ---- throw ---------------------------------------------------------------------------

    /// `cir.alloc.exception SIZE -> !cir.ptr<ty>`: storage for the object to throw.
    pub fn alloc_exception(&mut self, ty: Type, size: u64) -> Value {
        if !self.check_type(ty, "alloc_exception") {
            return self.poison();
        }
        let pty = self.ctx.types.ptr(ty);
        let value = self.cursor().alloc_exception(size, pty);
        self.value_handle(value)
    }

    /// `cir.free.exception %obj`: releases storage from [`FunctionBuilder::alloc_exception`]
    /// whose object's construction threw (emit it in an `eh` cleanup around the
    /// construction, as clang's `FreeException` cleanup does).
    pub fn free_exception(&mut self, obj: Value) {
        if let Some(obj) = self.value(obj, "free_exception") {
            self.cursor().free_exception(obj);
        }
    }

    /// `cir.throw %obj, @typeinfo[, @dtor]` (after the object was constructed in storage
    /// from [`FunctionBuilder::alloc_exception`]).
    pub fn emit_throw(&mut self, obj: Value, typeinfo: Symbol, dtor: Option<Symbol>) {
        let Some(obj) = self.value(obj, "emit_throw") else {
            return;
        };
        if !self.check_symbol(typeinfo, "emit_throw")
            || !dtor.is_none_or(|d| self.check_symbol(d, "emit_throw"))
        {
            return;
        }
        let ty = self.core_type(obj);
        if !self.ctx.types.is_ptr(ty) {
            self.mismatch("emit_throw", "a pointer to the exception object", ty);
            return;
        }
        self.cursor().throw(Some((obj, typeinfo)), dtor);
    }

    /// `cir.throw` with no operands: rethrow the exception being handled.
    pub fn emit_rethrow(&mut self) {
        self.cursor().throw(None, None);
    }
}
