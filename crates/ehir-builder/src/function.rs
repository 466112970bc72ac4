//! The EHScopeStack-style function builder: builds one structured-phase CIR function the
//! way Clang's `CodeGenFunction` drives `EHScopeStack`, so a front end never creates
//! `cir.cleanup.scope` or `cir.try` by hand.
//!
//! # The model
//!
//! The builder keeps an insertion point (always the end of a block) and a stack of
//! *frames*: the function body, regions of structured ops the front end entered
//! (`cir.scope`, `cir.if`, loops, `cir.switch` cases, ...), cleanups and try operations.
//!
//! * [`FunctionBuilder::push_cleanup`] is called when an object's construction completes.
//!   It creates a `cir.cleanup.scope` at the insertion point, emits the cleanup code into
//!   its cleanup region (through the closure it is given) and moves the insertion point
//!   into the body region. Everything emitted until the matching
//!   [`FunctionBuilder::pop_cleanup`] is covered by the cleanup.
//!   [`FunctionBuilder::push_cleanup_with`] does the same with an emitter that gets the
//!   front end's own context and may fail.
//! * [`FunctionBuilder::pop_cleanup`] closes the body (with `cir.yield` unless it already
//!   ends in a terminator) and continues right after the `cir.cleanup.scope`.
//!   [`FunctionBuilder::force_cleanups`] pops every cleanup of the innermost lexical scope;
//!   [`FunctionBuilder::exit_scope`] and [`FunctionBuilder::exit_region`] do it
//!   implicitly, like Clang's `RunCleanupsScope`.
//! * Temporaries live until the end of their full expression:
//!   [`FunctionBuilder::begin_full_expression`] / [`FunctionBuilder::end_full_expression`]
//!   bracket it and [`FunctionBuilder::push_temporary_cleanup`] registers a temporary's
//!   destructor.
//! * Conditional cleanups: a temporary constructed in only one arm of `?:`, `&&` or `||`
//!   must be destroyed only on the paths that constructed it. Between
//!   [`FunctionBuilder::begin_conditional`] and [`FunctionBuilder::end_conditional`],
//!   `push_temporary_cleanup` allocates a boolean flag, sets it where the object is
//!   constructed, and when the outermost conditional ends the ops emitted since it began
//!   are wrapped into a `cir.cleanup.scope` whose cleanup tests the flag (cleared before
//!   the scope).
//! * Loops: [`FunctionBuilder::begin_while`] / [`FunctionBuilder::begin_do_while`] /
//!   [`FunctionBuilder::begin_for`] return a [`crate::LoopBuilder`] that moves through the
//!   condition, body (and step) regions in order.
//! * `try`: [`FunctionBuilder::enter_try`], then [`FunctionBuilder::emit_catch`] per
//!   handler (it returns the `cir.catch_param` value), then [`FunctionBuilder::exit_try`]
//!   (which adds `unwind { cir.resume }` when no handler catches everything). Exception
//!   specifications use [`FunctionBuilder::emit_filter`] (`throw(T...)`) and
//!   [`FunctionBuilder::emit_terminate`] (`noexcept`).
//! * [`FunctionBuilder::emit_throw`] / [`FunctionBuilder::emit_rethrow`] build `cir.throw`.
//! * [`FunctionBuilder::emit_break`], [`FunctionBuilder::emit_continue`],
//!   [`FunctionBuilder::emit_return`] and [`FunctionBuilder::emit_goto`] build the
//!   structured branch and record, in [`FunctionBuilder::branch_exits`], which cleanup
//!   scopes it leaves, so a flattening pass (or a reader of the builder's output) knows
//!   where it must be routed through cleanups.
//!
//! Allocas are hoisted to the start of the innermost *alloca scope* (the function body or
//! a `cir.scope`), as ClangIR does.
//!
//! # Errors
//!
//! Misuse never panics and is never silently accepted. Every failing call records a
//! [`BuilderError`] (a [`BuilderErrorKind`], the location set with
//! [`FunctionBuilder::set_loc`], a message) and builds nothing; a call that should have
//! returned a value returns a poison handle (see [`crate::handles`]), whose later uses
//! are skipped without further errors. The error is observable at the call
//! ([`FunctionBuilder::last_error`], [`FunctionBuilder::check`],
//! [`FunctionBuilder::checked`]), [`FunctionBuilder::finish`] returns all of them, and
//! [`FunctionBuilder::print_partial`] prints what was built so far.
//!
//! # Example
//!
//! `void someFunc() { SomeClass c; c.doSomething(); }` (the seed's first example):
//!
//! ```
//! use ehir_core::{CallFlags, CleanupKind, ModuleCtx};
//! use ehir_builder::FunctionBuilder;
//!
//! let mut ctx = ModuleCtx::default();
//! let alias = ctx.sym("rec_SomeClass");
//! let rec = ctx.types.record(alias);
//! let rec_ptr = ctx.types.ptr(rec);
//! let method_sig = ctx.types.func(vec![rec_ptr], None, false);
//! let ctor = ctx.sym("_ZN9SomeClassC1Ev");
//! let dtor = ctx.sym("_ZN9SomeClassD1Ev");
//! let method = ctx.sym("_ZN9SomeClass11doSomethingEv");
//! let sig = ctx.types.func(vec![], None, false);
//!
//! let mut b = FunctionBuilder::new(&mut ctx, "someFunc", sig, &[]);
//! let c = b.alloca(rec, "c", true, 0);
//! b.call(ctor, method_sig, &[c], CallFlags::default());
//! b.push_cleanup(CleanupKind::Normal, move |b| {
//!     b.call(dtor, method_sig, &[c], CallFlags::default());
//! });
//! b.call(method, method_sig, &[c], CallFlags::default());
//! b.pop_cleanup();
//! let func = b.finish().unwrap();
//!
//! let text = ehir_core::printer::function_to_string(&ctx, &func);
//! assert_eq!(text, "\
//! cir.func @someFunc() {
//!   %0 = cir.alloca \"c\" init : !cir.ptr<!rec_SomeClass>
//!   cir.call @_ZN9SomeClassC1Ev(%0) : (!cir.ptr<!rec_SomeClass>) -> ()
//!   cir.cleanup.scope {
//!     cir.call @_ZN9SomeClass11doSomethingEv(%0) : (!cir.ptr<!rec_SomeClass>) -> ()
//!     cir.yield
//!   } cleanup normal {
//!     cir.call @_ZN9SomeClassD1Ev(%0) : (!cir.ptr<!rec_SomeClass>) -> ()
//!     cir.yield
//!   }
//!   cir.return
//! }
//! ");
//! ```

use crate::error::{BuildErrors, BuilderError, BuilderErrorKind};
use crate::handles::{Block, BuilderId, Op, Value};
use crate::module::{ItemsRef, ModuleItems, SuspendedFunction};
use ehir_core::{
    AttrData, BinaryOp, CallFlags, CastKind, CleanupKind, CmpPredicate, CursorPosition, EntityRef,
    Extra, FuncCursor, Function, Loc, ModuleCtx, OpKind, Symbol, Type, TypeData, UnaryOp,
};

/// The core entities behind the handles.
pub(crate) type CoreValue = ehir_core::Value;
pub(crate) type CoreOp = ehir_core::Op;
pub(crate) type CoreBlock = ehir_core::Block;

/// What a structured branch does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BranchKind {
    /// `cir.break`
    Break,
    /// `cir.continue`
    Continue,
    /// `cir.return`
    Return,
    /// `cir.goto` to this label.
    Goto(Symbol),
}

/// A branch that may leave cleanup scopes, recorded for flattening.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BranchExit {
    /// The `cir.break` / `cir.continue` / `cir.return` / `cir.goto` op.
    pub op: Op,
    /// What the branch does.
    pub kind: BranchKind,
    /// The `cir.cleanup.scope` ops the branch leaves, innermost first. For `goto` this is
    /// every enclosing cleanup scope; the label's position decides how many are left.
    pub cleanups: Vec<Op>,
}

/// What a catch handler catches.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CatchKind {
    /// Exceptions whose type's typeinfo is this symbol (`catch (T ...)`).
    Type(Symbol),
    /// `catch (...)`
    All,
}

/// A mark returned by [`FunctionBuilder::begin_full_expression`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct FullExpressionMark {
    pub(crate) depth: usize,
}

/// A pushed cleanup, for [`FunctionBuilder::deactivate_cleanup`]: its
/// `cir.cleanup.scope` op.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CleanupHandle(pub Op);

/// A position in the cleanup stack, for [`FunctionBuilder::pop_cleanups_to`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CleanupDepth(pub(crate) usize);

/// Where hoisted allocas go.
#[derive(Copy, Clone, Debug)]
pub(crate) struct AllocaSlot {
    pub(crate) block: CoreBlock,
    pub(crate) last: Option<CoreOp>,
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum FrameKind {
    /// The function body.
    Body,
    /// Region `index` of a structured op.
    Region { op: CoreOp, index: usize },
    /// The body of a `cir.cleanup.scope`.
    Cleanup { op: CoreOp },
    /// The body or a handler (`region`) of a `cir.try`.
    Try {
        op: CoreOp,
        handlers: Extra,
        region: usize,
    },
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct Frame {
    pub(crate) kind: FrameKind,
    pub(crate) alloca: Option<AllocaSlot>,
}

pub(crate) type CleanupEmitter = Box<dyn FnOnce(&mut FunctionBuilder<'_>)>;

pub(crate) struct DeferredCleanup {
    pub(crate) kind: CleanupKind,
    pub(crate) flag: Value,
    pub(crate) emit: CleanupEmitter,
}

pub(crate) struct ConditionalFrame {
    pub(crate) block: CoreBlock,
    /// The last op of `block` when the conditional began.
    pub(crate) after: Option<CoreOp>,
    pub(crate) deferred: Vec<DeferredCleanup>,
}

/// The builder's state apart from the module it builds into (what
/// [`FunctionBuilder::suspend`] keeps).
pub(crate) struct FunctionState {
    pub(crate) id: BuilderId,
    pub(crate) func: Function,
    /// The result type of the signature (`None` for `void`).
    pub(crate) ret: Option<Type>,
    pub(crate) block: CoreBlock,
    pub(crate) loc: Loc,
    pub(crate) frames: Vec<Frame>,
    pub(crate) conditionals: Vec<ConditionalFrame>,
    pub(crate) exits: Vec<BranchExit>,
    pub(crate) errors: Vec<BuilderError>,
    /// How many of `errors` [`FunctionBuilder::check`] has reported.
    pub(crate) checked: usize,
}

/// Builds one function in the structured phase. See the module documentation.
pub struct FunctionBuilder<'m> {
    /// The module's interners (types, attributes, symbols).
    pub ctx: &'m mut ModuleCtx,
    pub(crate) items: ItemsRef<'m>,
    pub(crate) state: FunctionState,
}

impl<'m> FunctionBuilder<'m> {
    /// Starts a definition of `name` with signature `sig` (a `!cir.func` type) whose entry
    /// block takes `params`. The insertion point is the entry block.
    ///
    /// A builder made this way is on its own: callees declared by
    /// [`FunctionBuilder::call_named`] and string literals are kept in the builder
    /// ([`FunctionBuilder::finish_with_items`] returns them). A builder from
    /// [`crate::ModuleBuilder::function`] puts them into its module.
    pub fn new(ctx: &'m mut ModuleCtx, name: &str, sig: Type, params: &[Type]) -> Self {
        let prefix = format!(".str.{name}");
        Self::with_items(
            ctx,
            ItemsRef::Own(ModuleItems::new(prefix)),
            name,
            sig,
            params,
        )
    }

    pub(crate) fn with_items(
        ctx: &'m mut ModuleCtx,
        items: ItemsRef<'m>,
        name: &str,
        sig: Type,
        params: &[Type],
    ) -> Self {
        let sym = ctx.sym(name);
        let mut errors = Vec::new();
        let ret = match (sig.index() < ctx.types.len())
            .then(|| ctx.types.func_info(sig))
            .flatten()
        {
            Some((sig_params, ret, _)) => {
                if sig_params != params {
                    errors.push(BuilderError::new(
                        BuilderErrorKind::SignatureMismatch,
                        Loc::NONE,
                        format!(
                            "function @{name}: the entry block's {} parameter type(s) differ from the signature's {}",
                            params.len(),
                            sig_params.len()
                        ),
                    ));
                }
                ret
            }
            None => {
                errors.push(BuilderError::new(
                    BuilderErrorKind::TypeMismatch,
                    Loc::NONE,
                    format!("function @{name}: the signature is not a !cir.func type"),
                ));
                None
            }
        };
        let params: Vec<Type> = params
            .iter()
            .copied()
            .filter(|t| t.index() < ctx.types.len())
            .collect();
        let func = Function::new_definition(sym, sig, &params);
        let entry = func.entry_block().unwrap_or_else(|| CoreBlock::new(0));
        FunctionBuilder {
            ctx,
            items,
            state: FunctionState {
                id: BuilderId::fresh(),
                func,
                ret,
                block: entry,
                loc: Loc::NONE,
                frames: vec![Frame {
                    kind: FrameKind::Body,
                    alloca: Some(AllocaSlot {
                        block: entry,
                        last: None,
                    }),
                }],
                conditionals: Vec::new(),
                exits: Vec::new(),
                errors,
                checked: 0,
            },
        }
    }

    /// Detaches the builder from its module context so that other functions can be built
    /// (or the context used) meanwhile; [`SuspendedFunction::resume`] or
    /// [`crate::ModuleBuilder::resume`] continues where it stopped. Handles stay valid.
    pub fn suspend(self) -> SuspendedFunction {
        let own_items = match self.items {
            ItemsRef::Own(items) => Some(items),
            ItemsRef::Module(_) => None,
        };
        SuspendedFunction {
            state: self.state,
            own_items,
        }
    }

    /// This builder's identity (the owner of every handle it hands out).
    pub fn id(&self) -> BuilderId {
        self.state.id
    }

    /// The function being built (for setting linkage, `nothrow`, ...). Changing its body
    /// directly bypasses the builder's checks.
    pub fn func_mut(&mut self) -> &mut Function {
        &mut self.state.func
    }

    /// The function being built.
    pub fn func(&self) -> &Function {
        &self.state.func
    }

    /// The parameters of the entry block.
    pub fn params(&self) -> Vec<Value> {
        match self.state.func.entry_block() {
            Some(entry) => self
                .state
                .func
                .dfg
                .block_params(entry)
                .iter()
                .map(|&v| self.value_handle(v))
                .collect(),
            None => Vec::new(),
        }
    }

    /// Ops built from now on carry this source location, and errors recorded from now on
    /// are reported there.
    pub fn set_loc(&mut self, loc: Loc) {
        self.state.loc = loc;
    }

    /// The location set by [`FunctionBuilder::set_loc`].
    pub fn loc(&self) -> Loc {
        self.state.loc
    }

    /// The type of a value (`void` for poison and, with an error, for a foreign value).
    pub fn value_type(&mut self, v: Value) -> Type {
        match self.value(v, "value_type") {
            Some(v) => self.state.func.dfg.value_type(v),
            None => self.ctx.types.common().void,
        }
    }

    /// The `index`th result of `op` (poison, with an error, when it has none).
    pub fn result(&mut self, op: Op, index: usize) -> Value {
        let Some(core) = self.op(op, "result") else {
            return self.poison();
        };
        match self.state.func.dfg.results(core).get(index) {
            Some(&v) => self.value_handle(v),
            None => {
                let name = self.state.func.dfg.kind(core).name();
                self.fail(
                    BuilderErrorKind::InvalidEntity,
                    format!("result: {name} has no result {index}"),
                );
                self.poison()
            }
        }
    }

    /// Structured branches recorded so far.
    pub fn branch_exits(&self) -> &[BranchExit] {
        &self.state.exits
    }

    // ---- errors ----------------------------------------------------------------------------

    /// Every error recorded so far, oldest first.
    pub fn errors(&self) -> &[BuilderError] {
        &self.state.errors
    }

    /// The most recent error, if any: right after a call, whether that call failed can be
    /// seen by comparing [`FunctionBuilder::errors`]' length, or with
    /// [`FunctionBuilder::check`] / [`FunctionBuilder::checked`].
    pub fn last_error(&self) -> Option<&BuilderError> {
        self.state.errors.last()
    }

    /// The first error recorded since the previous `check` (or since the start), as a
    /// `Result` a front end can `?`. Later `check`s do not report it again; `finish`
    /// still does.
    pub fn check(&mut self) -> Result<(), BuilderError> {
        let first_new = self.state.errors.get(self.state.checked).cloned();
        self.state.checked = self.state.errors.len();
        match first_new {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs `build` and returns its result, or the first error recorded while it ran.
    ///
    /// ```
    /// use ehir_core::{BinaryOp, ModuleCtx};
    /// use ehir_builder::{BuilderErrorKind, FunctionBuilder};
    ///
    /// let mut ctx = ModuleCtx::default();
    /// let (s32, bool_ty) = (ctx.types.common().s32, ctx.types.common().bool);
    /// let sig = ctx.types.func(vec![s32, bool_ty], Some(s32), false);
    /// let mut b = FunctionBuilder::new(&mut ctx, "f", sig, &[s32, bool_ty]);
    /// let [x, flag] = b.params()[..] else { unreachable!() };
    /// let err = b.checked(|b| b.binop(BinaryOp::Add, x, flag)).unwrap_err();
    /// assert_eq!(err.kind, BuilderErrorKind::TypeMismatch);
    /// let sum = b.checked(|b| b.binop(BinaryOp::Add, x, x)).unwrap();
    /// b.emit_return(Some(sum));
    /// assert_eq!(b.finish().unwrap_err().errors.len(), 1); // finish reports it too
    /// ```
    pub fn checked<T>(&mut self, build: impl FnOnce(&mut Self) -> T) -> Result<T, BuilderError> {
        let before = self.state.errors.len();
        self.state.checked = self.state.checked.min(before);
        let out = build(self);
        match self.state.errors.get(before).cloned() {
            Some(e) => {
                self.state.checked = self.state.errors.len();
                Err(e)
            }
            None => Ok(out),
        }
    }

    /// Records an error of `kind` at the current location.
    pub fn fail(&mut self, kind: BuilderErrorKind, message: impl Into<String>) {
        let error = BuilderError::new(kind, self.state.loc, message);
        self.state.errors.push(error);
    }

    /// The function as built so far, printed with the core printer (open regions print
    /// as they are; for debugging a front end).
    pub fn print_partial(&self) -> String {
        ehir_core::printer::function_to_string(self.ctx, &self.state.func)
    }

    /// Finishes the function: closes the body with `cir.return` when its last block has no
    /// terminator (an error when the function returns a value: it could fall off its end;
    /// end such paths with [`FunctionBuilder::emit_unreachable`] if the front end knows
    /// they are never taken). Every scope, region, cleanup and try must have been exited.
    /// Returns every recorded error otherwise.
    pub fn finish(self) -> Result<Function, BuildErrors> {
        self.finish_with_items().map(|(func, _)| func)
    }

    /// [`FunctionBuilder::finish`], also returning what a builder made by
    /// [`FunctionBuilder::new`] declared (callees of [`FunctionBuilder::call_named`],
    /// string literals) for [`ModuleItems::add_to`]. A module's builder already put them
    /// into the module: the items returned are then empty.
    pub fn finish_with_items(mut self) -> Result<(Function, ModuleItems), BuildErrors> {
        self.close_for_finish();
        if !self.state.errors.is_empty() {
            return Err(BuildErrors {
                errors: self.state.errors,
            });
        }
        let items = match self.items {
            ItemsRef::Own(items) => items,
            ItemsRef::Module(_) => ModuleItems::new(String::new()),
        };
        Ok((self.state.func, items))
    }

    /// Finishes the function and adds it to the module of a builder made by
    /// [`crate::ModuleBuilder::function`] (an error for a builder made by
    /// [`FunctionBuilder::new`], which has no module). Returns its symbol.
    pub fn define(mut self) -> Result<Symbol, BuildErrors> {
        self.close_for_finish();
        if matches!(self.items, ItemsRef::Own(_)) {
            self.fail(
                BuilderErrorKind::Misplaced,
                "define: this builder was not made by a ModuleBuilder; use finish",
            );
        }
        if !self.state.errors.is_empty() {
            return Err(BuildErrors {
                errors: self.state.errors,
            });
        }
        let name = self.state.func.name;
        if let ItemsRef::Module(items) = self.items {
            items.definitions.push(self.state.func);
        }
        Ok(name)
    }

    pub(crate) fn close_for_finish(&mut self) {
        if self.state.frames.len() != 1 {
            let open: Vec<String> = self.state.frames[1..]
                .iter()
                .map(|f| match f.kind {
                    FrameKind::Body => "body".to_string(),
                    FrameKind::Region { op, index } => {
                        format!("region {index} of {}", self.state.func.dfg.kind(op).name())
                    }
                    FrameKind::Cleanup { .. } => "cleanup".to_string(),
                    FrameKind::Try { .. } => "try".to_string(),
                })
                .collect();
            self.fail(
                BuilderErrorKind::Unbalanced,
                format!(
                    "finish: {} scope(s) still open at the end of the function: {}",
                    self.state.frames.len() - 1,
                    open.join(", ")
                ),
            );
        } else if !self.is_terminated() {
            if self.state.ret.is_some() {
                let name = self.ctx.name(self.state.func.name).to_string();
                self.fail(
                    BuilderErrorKind::MissingReturn,
                    format!(
                        "finish: control can reach the end of @{name}, which returns a value, without a return"
                    ),
                );
            } else {
                self.cursor().ret(None);
            }
        }
        if !self.state.conditionals.is_empty() {
            self.fail(
                BuilderErrorKind::Unbalanced,
                "finish: a conditional is still open at the end of the function",
            );
        }
    }

    // ---- handles ---------------------------------------------------------------------------

    pub(crate) fn value_handle(&self, v: CoreValue) -> Value {
        Value::new(self.state.id, v)
    }

    pub(crate) fn op_handle(&self, op: CoreOp) -> Op {
        Op::new(self.state.id, op)
    }

    pub(crate) fn block_handle(&self, block: CoreBlock) -> Block {
        Block::new(self.state.id, block)
    }

    pub(crate) fn poison(&self) -> Value {
        Value::poison(self.state.id)
    }

    pub(crate) fn foreign(&mut self, what: &str, entity: &str, owner: BuilderId) {
        self.fail(
            BuilderErrorKind::ForeignEntity,
            format!(
                "{what}: the {entity} belongs to another function (builder {owner:?}, this is {:?})",
                self.state.id
            ),
        );
    }

    /// The core value of a handle of this builder; `None` for poison (silently) and for
    /// a foreign handle (with an error).
    pub(crate) fn value(&mut self, v: Value, what: &str) -> Option<CoreValue> {
        if v.owner() != self.state.id {
            self.foreign(what, "value", v.owner());
            return None;
        }
        v.raw()
    }

    /// The core values of handles; `None` when any is poison or foreign (every foreign
    /// one gets an error).
    pub(crate) fn values(&mut self, vs: &[Value], what: &str) -> Option<Vec<CoreValue>> {
        let mut out = Vec::with_capacity(vs.len());
        let mut ok = true;
        for &v in vs {
            match self.value(v, what) {
                Some(core) => out.push(core),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    pub(crate) fn op(&mut self, op: Op, what: &str) -> Option<CoreOp> {
        if op.owner() != self.state.id {
            self.foreign(what, "op", op.owner());
            return None;
        }
        op.raw()
    }

    pub(crate) fn block(&mut self, block: Block, what: &str) -> Option<CoreBlock> {
        if block.owner() != self.state.id {
            self.foreign(what, "block", block.owner());
            return None;
        }
        block.raw()
    }

    /// Whether `t` is a type of this module (an error otherwise).
    pub(crate) fn check_type(&mut self, t: Type, what: &str) -> bool {
        if t.index() < self.ctx.types.len() {
            return true;
        }
        self.fail(
            BuilderErrorKind::InvalidEntity,
            format!("{what}: type #{} is not a type of this module", t.index()),
        );
        false
    }

    /// Whether `symbol` was interned in this module (an error otherwise).
    pub(crate) fn check_symbol(&mut self, symbol: Symbol, what: &str) -> bool {
        if self.ctx.symbols.get(symbol).is_some() {
            return true;
        }
        self.fail(
            BuilderErrorKind::InvalidEntity,
            format!(
                "{what}: symbol #{} is not a symbol of this module",
                symbol.index()
            ),
        );
        false
    }

    pub(crate) fn type_name(&self, t: Type) -> String {
        let mut out = Vec::new();
        let _ = ehir_core::printer::write_type(&mut out, self.ctx, t);
        String::from_utf8_lossy(&out).into_owned()
    }

    pub(crate) fn mismatch(&mut self, what: &str, expected: &str, found: Type) {
        let found = self.type_name(found);
        self.fail(
            BuilderErrorKind::TypeMismatch,
            format!("{what}: expected {expected}, found {found}"),
        );
    }

    pub(crate) fn core_type(&self, v: CoreValue) -> Type {
        self.state.func.dfg.value_type(v)
    }

    /// Whether `v` is a `!cir.bool` (an error otherwise).
    pub(crate) fn expect_bool(&mut self, v: CoreValue, what: &str) -> bool {
        let ty = self.core_type(v);
        if ty == self.ctx.types.common().bool {
            return true;
        }
        self.mismatch(what, "a !cir.bool", ty);
        false
    }

    /// Whether `a` and `b` have the same type (an error otherwise).
    pub(crate) fn expect_same(&mut self, a: CoreValue, b: CoreValue, what: &str) -> bool {
        let (ta, tb) = (self.core_type(a), self.core_type(b));
        if ta == tb {
            return true;
        }
        let expected = format!("both operands of type {}", self.type_name(ta));
        self.mismatch(what, &expected, tb);
        false
    }

    // ---- insertion ---------------------------------------------------------------------

    /// Whether the current block already ends in a terminator (code emitted now is
    /// unreachable and goes to a fresh block).
    pub fn is_terminated(&self) -> bool {
        let func = &self.state.func;
        func.layout
            .last_op(self.state.block)
            .is_some_and(|op| func.dfg.kind(op).is_terminator())
    }

    /// The block at the insertion point.
    pub fn current_block(&self) -> Block {
        self.block_handle(self.state.block)
    }

    pub(crate) fn insertion_block(&mut self) -> CoreBlock {
        if self.is_terminated() {
            // Unreachable code after a terminator: a fresh block in the same region.
            if let Some(region) = self.state.func.layout.block_region(self.state.block) {
                let block = self.cursor_at(CursorPosition::Nowhere).append_block(region);
                self.state.block = block;
            }
        }
        self.state.block
    }

    /// A cursor at `pos` giving ops the current location.
    pub(crate) fn cursor_at(&mut self, pos: CursorPosition) -> FuncCursor<'_> {
        let types = *self.ctx.types.common();
        FuncCursor::at(&mut self.state.func, &types, pos).with_loc(self.state.loc)
    }

    /// A cursor at the insertion point (a fresh block after a terminator).
    pub(crate) fn cursor(&mut self) -> FuncCursor<'_> {
        let block = self.insertion_block();
        self.cursor_at(CursorPosition::End(block))
    }

    /// Builds an op of `kind` with `num_regions` empty regions at the insertion point
    /// (for ops without a dedicated method: `cir.ternary`, `cir.switch`, `cir.case`,
    /// `cir.array.dtor`, ...; the operands, results and region count must follow the
    /// layout the [`OpKind`] variant documents, which the verifier checks). Enter its
    /// regions with [`FunctionBuilder::enter_region`]. A poison op, building nothing, when
    /// an operand is poison or foreign.
    pub fn create_region_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        num_regions: usize,
    ) -> Op {
        let Some(operands) = self.values(operands, kind.name()) else {
            return Op::poison(self.state.id);
        };
        if !result_types
            .iter()
            .all(|&t| self.check_type(t, kind.name()))
        {
            return Op::poison(self.state.id);
        }
        let op = self
            .cursor()
            .build(kind, &operands, result_types, &[], num_regions);
        self.op_handle(op)
    }

    /// Builds an op with one result and returns the result (poison when an operand is).
    pub fn build_value(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.create_region_op(kind, operands, &[ty], 0);
        self.result(op, 0)
    }

    // ---- common ops --------------------------------------------------------------------

    /// `cir.alloca`, hoisted to the start of the innermost alloca scope.
    pub fn alloca(&mut self, ty: Type, name: &str, init: bool, align: u16) -> Value {
        if !self.check_type(ty, "alloca") {
            return self.poison();
        }
        let name = self.ctx.sym(name);
        let ptr = self.ctx.types.ptr(ty);
        let Some(idx) = self.state.frames.iter().rposition(|f| f.alloca.is_some()) else {
            self.fail(BuilderErrorKind::Misplaced, "alloca: no alloca scope");
            return self.poison();
        };
        let Some(slot) = self.state.frames[idx].alloca else {
            return self.poison();
        };
        let pos = match slot.last {
            Some(last) => match self.state.func.layout.next_op(last) {
                Some(next) => CursorPosition::Before(next),
                None => CursorPosition::End(slot.block),
            },
            None => match self.state.func.layout.first_op(slot.block) {
                Some(first) => CursorPosition::Before(first),
                None => CursorPosition::End(slot.block),
            },
        };
        let value = self.cursor_at(pos).alloca(ty, ptr, name, init, align);
        let op = match self.state.func.dfg.value_def(value) {
            ehir_core::ValueDef::Result(op, _) => Some(op),
            _ => None,
        };
        self.state.frames[idx].alloca = Some(AllocaSlot {
            block: slot.block,
            last: op.or(slot.last),
        });
        self.value_handle(value)
    }

    /// `cir.alloca T, !cir.ptr<T>, %count : I, ["name"]`: `count` `T`s allocated here
    /// (`__builtin_alloca`, a variable-length array), not at the start of the scope.
    pub fn dynamic_alloca(&mut self, ty: Type, count: Value, name: &str, align: u16) -> Value {
        if !self.check_type(ty, "alloca") {
            return self.poison();
        }
        let Some(v) = self.values(&[count], "alloca") else {
            return self.poison();
        };
        let count_ty = self.core_type(v[0]);
        if !self.ctx.types.is_int(count_ty) {
            self.mismatch("alloca", "an integer element count", count_ty);
            return self.poison();
        }
        let name = self.ctx.sym(name);
        let ptr = self.ctx.types.ptr(ty);
        let value = self.cursor().dynamic_alloca(ty, ptr, v[0], name, align);
        self.value_handle(value)
    }

    pub(crate) fn constant(&mut self, data: AttrData, ty: Type) -> Value {
        if !self.check_type(ty, "const") {
            return self.poison();
        }
        let attr = self.ctx.attrs.intern(data);
        let value = self.cursor().constant(attr, ty);
        self.value_handle(value)
    }

    /// `cir.const #cir.int<v> : ty`.
    pub fn const_int(&mut self, ty: Type, v: i128) -> Value {
        if self.check_type(ty, "const_int") && !self.ctx.types.is_int(ty) {
            self.mismatch("const_int", "an integer type", ty);
            return self.poison();
        }
        self.constant(AttrData::Int { value: v, ty }, ty)
    }

    /// `cir.const #true` / `#false`.
    pub fn const_bool(&mut self, v: bool) -> Value {
        let ty = self.ctx.types.common().bool;
        self.constant(AttrData::Bool(v), ty)
    }

    /// `cir.const #cir.fp<v> : ty`.
    pub fn const_float(&mut self, ty: Type, v: f64) -> Value {
        let bits = v.to_bits();
        self.constant(AttrData::Float { bits, ty }, ty)
    }

    /// `cir.const #cir.ptr<null> : ty`.
    pub fn const_null(&mut self, ty: Type) -> Value {
        self.constant(AttrData::Null(ty), ty)
    }

    /// `cir.load [align(N)] %ptr`.
    pub fn load(&mut self, ptr: Value, align: u16) -> Value {
        let Some(ptr) = self.value(ptr, "load") else {
            return self.poison();
        };
        let pty = self.core_type(ptr);
        let Some(ty) = self.ctx.types.pointee(pty) else {
            self.mismatch("load", "a pointer", pty);
            return self.poison();
        };
        let value = self.cursor().load_aligned(ptr, ty, align);
        self.value_handle(value)
    }

    /// `cir.store [align(N)] %value, %ptr` (`ptr` must point to `value`'s type).
    pub fn store(&mut self, value: Value, ptr: Value, align: u16) {
        let Some([value, ptr]) = self.values(&[value, ptr], "store").map(|v| [v[0], v[1]]) else {
            return;
        };
        let pty = self.core_type(ptr);
        let vty = self.core_type(value);
        if self.ctx.types.pointee(pty) != Some(vty) {
            let expected = format!("a pointer to {}", self.type_name(vty));
            self.mismatch("store", &expected, pty);
            return;
        }
        self.cursor().store_aligned(value, ptr, align);
    }

    /// A direct `cir.call`. Returns the result when `sig` has one.
    pub fn call(
        &mut self,
        callee: Symbol,
        sig: Type,
        args: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        self.build_call(Some(callee), sig, None, args, flags)
    }

    /// A direct `cir.call` of the function `name`, declared (in the module of a
    /// [`crate::ModuleBuilder`], else in this builder's items) with `sig` on its first
    /// call. A later call or declaration with another signature is a
    /// [`BuilderErrorKind::SignatureMismatch`].
    pub fn call_named(
        &mut self,
        name: &str,
        sig: Type,
        args: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        let callee = self.ctx.sym(name);
        if !self.check_type(sig, "call") {
            return None;
        }
        if let Err(message) = self.items.get().declare(self.ctx, callee, sig, false) {
            self.fail(
                BuilderErrorKind::SignatureMismatch,
                format!("call: {message}"),
            );
            return None;
        }
        self.build_call(Some(callee), sig, None, args, flags)
    }

    /// Checks `args` against `sig` and builds the call.
    pub(crate) fn build_call(
        &mut self,
        callee: Option<Symbol>,
        sig: Type,
        fn_ptr: Option<Value>,
        args: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        if !self.check_type(sig, "call") || !callee.is_none_or(|c| self.check_symbol(c, "call")) {
            return None;
        }
        let Some((params, ret, vararg)) = self
            .ctx
            .types
            .func_info(sig)
            .map(|(p, r, v)| (p.to_vec(), r, v))
        else {
            self.mismatch("call", "a !cir.func signature", sig);
            return None;
        };
        let mut operands: Vec<Value> = fn_ptr.into_iter().collect();
        operands.extend_from_slice(args);
        let operands = self.values(&operands, "call")?;
        let arg_values = &operands[fn_ptr.is_some() as usize..];
        let count_ok = if vararg {
            arg_values.len() >= params.len()
        } else {
            arg_values.len() == params.len()
        };
        let callee_name = match callee {
            Some(s) => format!("@{}", self.ctx.name(s)),
            None => "an indirect callee".to_string(),
        };
        if !count_ok {
            self.fail(
                BuilderErrorKind::SignatureMismatch,
                format!(
                    "call of {callee_name}: {} argument(s) given, the signature takes {}",
                    arg_values.len(),
                    params.len()
                ),
            );
            return None;
        }
        for (i, (&arg, &param)) in arg_values.iter().zip(&params).enumerate() {
            let found = self.core_type(arg);
            if found != param {
                let (expected, found) = (self.type_name(param), self.type_name(found));
                self.fail(
                    BuilderErrorKind::SignatureMismatch,
                    format!(
                        "call of {callee_name}: argument {i} has type {found}, the signature takes {expected}"
                    ),
                );
                return None;
            }
        }
        let op = self.cursor().call(callee, sig, flags, &operands, ret);
        let result = self.state.func.dfg.results(op).first().copied();
        result.map(|v| self.value_handle(v))
    }

    /// An indirect `cir.call` through a function pointer.
    pub fn call_indirect(
        &mut self,
        fn_ptr: Value,
        sig: Type,
        args: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        self.build_call(None, sig, Some(fn_ptr), args, flags)
    }

    /// `cir.binop(kind, %a, %b) : T` (both operands of type `T`).
    pub fn binop(&mut self, kind: BinaryOp, a: Value, b: Value) -> Value {
        let Some([a, b]) = self.same_typed_pair(a, b, "binop") else {
            return self.poison();
        };
        let value = self.cursor().binop(kind, a, b);
        self.value_handle(value)
    }

    /// The core values of two operands that must have the same type; `None` (with the
    /// error recorded) when either is not a live value or their types differ.
    fn same_typed_pair(&mut self, a: Value, b: Value, what: &str) -> Option<[CoreValue; 2]> {
        let values = self.values(&[a, b], what)?;
        if !self.expect_same(values[0], values[1], what) {
            return None;
        }
        Some([values[0], values[1]])
    }

    /// `cir.unary(kind, %a) : T, T`.
    pub fn unary(&mut self, kind: UnaryOp, a: Value) -> Value {
        let Some(a) = self.value(a, "unary") else {
            return self.poison();
        };
        let value = self.cursor().unary(kind, a);
        self.value_handle(value)
    }

    /// `cir.cmp pred %a, %b : T` (both operands of type `T`).
    pub fn cmp(&mut self, pred: CmpPredicate, a: Value, b: Value) -> Value {
        let Some([a, b]) = self.same_typed_pair(a, b, "cmp") else {
            return self.poison();
        };
        let value = self.cursor().cmp(pred, a, b);
        self.value_handle(value)
    }

    /// `cir.cast kind %v : T -> to`.
    pub fn cast(&mut self, kind: CastKind, v: Value, to: Type) -> Value {
        let Some(v) = self.value(v, "cast") else {
            return self.poison();
        };
        if !self.check_type(to, "cast") {
            return self.poison();
        }
        let value = self.cursor().cast(kind, v, to);
        self.value_handle(value)
    }

    /// `cir.select if %c then %a else %b`.
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let Some(v) = self.values(&[c, a, b], "select") else {
            return self.poison();
        };
        if !self.expect_bool(v[0], "select") || !self.expect_same(v[1], v[2], "select") {
            return self.poison();
        }
        let value = self.cursor().select(v[0], v[1], v[2]);
        self.value_handle(value)
    }

    /// `cir.ptr_stride %p, %n`.
    pub fn ptr_stride(&mut self, p: Value, n: Value) -> Value {
        let Some(v) = self.values(&[p, n], "ptr_stride") else {
            return self.poison();
        };
        let (pty, nty) = (self.core_type(v[0]), self.core_type(v[1]));
        if !self.ctx.types.is_ptr(pty) {
            self.mismatch("ptr_stride", "a pointer", pty);
            return self.poison();
        }
        if !self.ctx.types.is_int(nty) {
            self.mismatch("ptr_stride", "an integer stride", nty);
            return self.poison();
        }
        let value = self.cursor().ptr_stride(v[0], v[1]);
        self.value_handle(value)
    }

    /// `cir.get_member %p[index] {name = "..."}`: the address of field `index`.
    pub fn get_member(&mut self, p: Value, index: u32, name: &str, field_ty: Type) -> Value {
        let Some((p, ty)) = self.address_operand(p, field_ty, "get_member") else {
            return self.poison();
        };
        let name = self.ctx.sym(name);
        let value = self.cursor().get_member(p, index, name, ty);
        self.value_handle(value)
    }

    /// The core value of address operand `p` and the pointer type to `pointee` of the
    /// address computed from it; `None` (with the error recorded) when `p` is not a live
    /// value or `pointee` not a type of the module.
    fn address_operand(
        &mut self,
        p: Value,
        pointee: Type,
        what: &str,
    ) -> Option<(CoreValue, Type)> {
        let p = self.value(p, what)?;
        if !self.check_type(pointee, what) {
            return None;
        }
        Some((p, self.ctx.types.ptr(pointee)))
    }

    /// `cir.base_class_addr %p [offset]`: the address of a base subobject.
    pub fn base_class_addr(&mut self, p: Value, base: Type, offset: u32, nonnull: bool) -> Value {
        let Some((p, ty)) = self.address_operand(p, base, "base_class_addr") else {
            return self.poison();
        };
        let value = self.cursor().base_class_addr(p, offset, nonnull, ty);
        self.value_handle(value)
    }

    /// `cir.derived_class_addr %p [offset]`: from a base subobject to the derived object.
    pub fn derived_class_addr(
        &mut self,
        p: Value,
        derived: Type,
        offset: u32,
        nonnull: bool,
    ) -> Value {
        let Some((p, ty)) = self.address_operand(p, derived, "derived_class_addr") else {
            return self.poison();
        };
        let value = self.cursor().derived_class_addr(p, offset, nonnull, ty);
        self.value_handle(value)
    }

    /// `cir.get_global @sym : !cir.ptr<ty>`.
    pub fn get_global(&mut self, symbol: Symbol, ty: Type) -> Value {
        if !self.check_type(ty, "get_global") || !self.check_symbol(symbol, "get_global") {
            return self.poison();
        }
        let pty = self.ctx.types.ptr(ty);
        let value = self.cursor().get_global(symbol, pty);
        self.value_handle(value)
    }

    /// A pointer (`!cir.ptr<!s8i>`) to the first byte of a string literal: `bytes` plus a
    /// terminating NUL in a private constant global (one per distinct string, in the
    /// module of a [`crate::ModuleBuilder`], else in this builder's items).
    pub fn string_literal(&mut self, bytes: &[u8]) -> Value {
        let (symbol, array_ty) = self.items.get().string(self.ctx, bytes);
        let addr = self.get_global(symbol, array_ty);
        let s8 = self.ctx.types.common().s8;
        let s8_ptr = self.ctx.types.ptr(s8);
        self.cast(CastKind::ArrayToPtrDecay, addr, s8_ptr)
    }

    // ---- structured regions --------------------------------------------------------------

    /// Moves the insertion point into region `index` of `op` (creating its entry block).
    /// `alloca_scope` makes the region receive the allocas of the code inside it.
    /// A poison op (from a failed call) is skipped: the insertion point stays.
    pub fn enter_region(&mut self, op: Op, index: usize, alloca_scope: bool) -> Block {
        let Some(core) = self.op(op, "enter_region") else {
            return self.current_block();
        };
        self.enter_core_region(core, index, alloca_scope);
        self.current_block()
    }

    pub(crate) fn enter_core_region(&mut self, op: CoreOp, index: usize, alloca_scope: bool) {
        let Some(&region) = self.state.func.dfg.regions(op).get(index) else {
            let name = self.state.func.dfg.kind(op).name();
            self.fail(
                BuilderErrorKind::InvalidEntity,
                format!("enter_region: {name} has no region {index}"),
            );
            return;
        };
        let entry = self.region_entry(region);
        self.state.block = entry;
        self.state.frames.push(Frame {
            kind: FrameKind::Region { op, index },
            alloca: alloca_scope.then_some(AllocaSlot {
                block: entry,
                last: None,
            }),
        });
    }

    pub(crate) fn region_entry(&mut self, region: ehir_core::Region) -> CoreBlock {
        match self.state.func.layout.entry_block(region) {
            Some(b) => b,
            None => self.cursor_at(CursorPosition::Nowhere).append_block(region),
        }
    }

    /// Leaves the innermost entered region: pops the cleanups pushed inside it, closes its
    /// last block with `cir.yield` unless it has a terminator, and continues after the op.
    pub fn exit_region(&mut self) {
        self.pop_cleanups_above_region();
        match self.state.frames.last().map(|f| f.kind) {
            Some(FrameKind::Region { op, .. }) => self.close_frame(op),
            _ => self.fail(
                BuilderErrorKind::Unbalanced,
                "exit_region: the innermost frame is not an entered region",
            ),
        }
    }

    /// Pops the innermost frame, whose region belongs to `op`: closes its last block with
    /// `cir.yield` unless it has a terminator, and continues after `op`.
    pub(crate) fn close_frame(&mut self, op: CoreOp) {
        self.state.frames.pop();
        if !self.is_terminated() {
            self.cursor().yield_values(&[]);
        }
        self.continue_after(op);
    }

    /// Closes the current block with `cir.yield %values` (for regions that produce
    /// values, like `cir.ternary`), then leaves the region like
    /// [`FunctionBuilder::exit_region`].
    pub fn exit_region_yielding(&mut self, values: &[Value]) {
        if !self.is_terminated()
            && let Some(values) = self.values(values, "exit_region_yielding")
        {
            self.cursor().yield_values(&values);
        }
        self.exit_region();
    }

    pub(crate) fn continue_after(&mut self, op: CoreOp) {
        match self.state.func.layout.op_block(op) {
            Some(b) => self.state.block = b,
            None => self.fail(BuilderErrorKind::InvalidEntity, "the op is not placed"),
        }
    }

    /// Pops every cleanup frame above the innermost non-cleanup frame.
    pub(crate) fn pop_cleanups_above_region(&mut self) {
        while let Some(Frame {
            kind: FrameKind::Cleanup { .. },
            ..
        }) = self.state.frames.last()
        {
            self.pop_cleanup();
        }
    }

    /// `cir.scope { ... }`: a lexical scope that also receives the allocas of its code.
    pub fn enter_scope(&mut self) -> Op {
        let (op, _) = self.cursor().scope();
        self.enter_core_region(op, 0, true);
        self.op_handle(op)
    }

    /// Leaves the innermost `cir.scope`, popping the cleanups pushed inside it.
    pub fn exit_scope(&mut self) {
        self.exit_region();
    }

    /// Starts a `cir.if %cond` (`cond` a `!cir.bool`); the insertion point is the
    /// then-region.
    ///
    /// With a bad condition (an error), the `cir.if` is still built, on a `false`
    /// constant, so that the front end's `end_if` stays balanced.
    pub fn begin_if(&mut self, cond: Value, has_else: bool) -> Op {
        let cond = self.bool_operand(cond, "begin_if");
        let (op, _, _) = self.cursor().if_op(cond, has_else);
        self.enter_core_region(op, 0, false);
        self.op_handle(op)
    }

    /// Switches from the then-region of `if_op` to its else-region.
    pub fn begin_else(&mut self, if_op: Op) {
        if if_op.is_poison() {
            return;
        }
        let Some(core) = self.op(if_op, "begin_else") else {
            return;
        };
        self.exit_region();
        self.enter_core_region(core, 1, false);
    }

    /// Ends the `cir.if` (closing the open region).
    pub fn end_if(&mut self) {
        self.exit_region();
    }

    /// Starts a `cir.case` region of the `cir.switch` whose region is the insertion point
    /// (`kind` with its constant `values`); end it with [`FunctionBuilder::exit_region`].
    pub fn enter_case(&mut self, kind: ehir_core::CaseKind, values: Vec<ehir_core::Attr>) {
        let values = self
            .func_mut()
            .dfg
            .make_extra(ehir_core::ExtraData::CaseValues(values));
        let op = self.create_region_op(OpKind::Case { kind, values }, &[], &[], 1);
        self.enter_region(op, 0, false);
    }

    /// `cir.condition(%c)`: terminates a loop condition region (`c` a `!cir.bool`).
    pub fn emit_condition(&mut self, cond: Value) {
        let cond = self.bool_operand(cond, "emit_condition");
        self.cursor().condition(cond);
    }

    /// `cond` as a core `!cir.bool` operand; after an error (or for poison) a `false`
    /// constant instead, so that structure built on it stays balanced (the function
    /// cannot be finished anyway).
    pub(crate) fn bool_operand(&mut self, cond: Value, what: &str) -> CoreValue {
        if let Some(core) = self.value(cond, what)
            && self.expect_bool(core, what)
        {
            return core;
        }
        let bool_ty = self.ctx.types.common().bool;
        let off = self.ctx.attrs.intern(AttrData::Bool(false));
        self.cursor().constant(off, bool_ty)
    }

    // ---- helpers for front ends ------------------------------------------------------------

    /// The `!cir.ptr<T>` type.
    pub fn ptr_type(&mut self, t: Type) -> Type {
        self.ctx.types.ptr(t)
    }

    /// Whether a type is a record.
    pub fn is_record(&self, t: Type) -> bool {
        t.index() < self.ctx.types.len() && matches!(self.ctx.types.get(t), TypeData::Record(_))
    }

    /// The symbol of the Itanium typeinfo object of a builtin type (`_ZTIi` for `int`),
    /// which the interpreter and the LLVM emitter provide (no declaration needed).
    pub fn builtin_typeinfo(&mut self, ty: crate::BuiltinType) -> Symbol {
        self.ctx.sym(ty.typeinfo_name())
    }

    /// Moves the ops of the single-block body (region 0) of `op` out of it, deleting `op`,
    /// when nothing inside may throw. For ops whose other regions run only for exceptions:
    /// a `cir.try` whose handlers are only `terminate`/`filter`, or an `eh` cleanup scope.
    /// Returns whether it did.
    pub fn unwrap_if_nothrow(&mut self, op: Op) -> bool {
        let Some(op) = self.op(op, "unwrap_if_nothrow") else {
            return false;
        };
        let func = &mut self.state.func;
        let regions = func.dfg.regions(op).to_vec();
        let Some(&body) = regions.first() else {
            return false;
        };
        // Only a single-block body without nested may-throw ops.
        let blocks: Vec<CoreBlock> = func.layout.blocks(body).collect();
        if blocks.len() != 1 {
            return false;
        }
        let mut may_throw = false;
        func.visit_region_in_order(body, &mut |v| {
            if let ehir_core::Visit::Op(inner) = v
                && func.dfg.kind(inner).may_throw()
            {
                may_throw = true;
            }
        });
        if may_throw {
            return false;
        }
        let block = blocks[0];
        let ops: Vec<CoreOp> = func.layout.ops(block).collect();
        for inner in ops {
            func.layout.remove_op(inner);
            if matches!(func.dfg.kind(inner), OpKind::Yield) {
                continue;
            }
            func.layout.insert_op_before(inner, op);
        }
        func.layout.remove_op(op);
        true
    }
}
