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
//!   [`FunctionBuilder::begin_for`] return a [`LoopBuilder`] that moves through the
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
//!   %0 = cir.alloca !rec_SomeClass, !cir.ptr<!rec_SomeClass>, [\"c\", init]
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
    Extra, ExtraData, FuncCursor, Function, HandlerKey, Loc, ModuleCtx, OpKind, Symbol, Type,
    TypeData, UnaryOp,
};

/// The core entities behind the handles.
type CoreValue = ehir_core::Value;
type CoreOp = ehir_core::Op;
type CoreBlock = ehir_core::Block;

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
    depth: usize,
}

/// A pushed cleanup, for [`FunctionBuilder::deactivate_cleanup`]: its
/// `cir.cleanup.scope` op.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CleanupHandle(pub Op);

/// A position in the cleanup stack, for [`FunctionBuilder::pop_cleanups_to`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CleanupDepth(usize);

/// Which loop op a [`LoopBuilder`] builds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum LoopKind {
    /// `cir.while { cond } do { body }`
    While,
    /// `cir.do { body } while { cond }`
    DoWhile,
    /// `cir.for : cond { } body { } step { }`
    For,
}

/// A loop under construction, from [`FunctionBuilder::begin_while`],
/// [`FunctionBuilder::begin_do_while`] or [`FunctionBuilder::begin_for`]. Its methods
/// move the insertion point through the loop's regions in source order; each region is
/// closed by the next call (the condition region with `cir.condition`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LoopBuilder {
    op: Op,
    kind: LoopKind,
}

impl LoopBuilder {
    /// The loop op.
    pub fn op(self) -> Op {
        self.op
    }

    /// Which loop this is.
    pub fn kind(self) -> LoopKind {
        self.kind
    }

    fn region_index(self, part: LoopPart) -> usize {
        match (self.kind, part) {
            (LoopKind::While | LoopKind::For, LoopPart::Condition) => 0,
            (LoopKind::While | LoopKind::For, LoopPart::Body) => 1,
            (LoopKind::DoWhile, LoopPart::Body) => 0,
            (LoopKind::DoWhile, LoopPart::Condition) => 1,
            (_, LoopPart::Step) => 2,
        }
    }

    /// Closes the condition region with `cir.condition(%cond)` (`cond` must be a
    /// `!cir.bool`). For `while` and `for` the insertion point moves to the body; for
    /// `do`/`while` the loop is finished.
    pub fn condition(self, b: &mut FunctionBuilder<'_>, cond: Value) {
        if !b.in_loop_part(self, LoopPart::Condition, "condition") {
            return;
        }
        b.emit_condition(cond);
        b.exit_region();
        match self.kind {
            LoopKind::While | LoopKind::For => b.enter_loop_part(self, LoopPart::Body),
            LoopKind::DoWhile => {}
        }
    }

    /// Ends the body: for `do`/`while` the insertion point moves to the condition, for
    /// `for` to the step region, for `while` the loop is finished.
    pub fn end_body(self, b: &mut FunctionBuilder<'_>) {
        if !b.in_loop_part(self, LoopPart::Body, "end_body") {
            return;
        }
        b.exit_region();
        match self.kind {
            LoopKind::DoWhile => b.enter_loop_part(self, LoopPart::Condition),
            LoopKind::For => b.enter_loop_part(self, LoopPart::Step),
            LoopKind::While => {}
        }
    }

    /// Ends the step region of a `for` loop (the loop is finished).
    pub fn end_step(self, b: &mut FunctionBuilder<'_>) {
        if b.in_loop_part(self, LoopPart::Step, "end_step") {
            b.exit_region();
        }
    }
}

/// A region of a loop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum LoopPart {
    Condition,
    Body,
    Step,
}

/// Where hoisted allocas go.
#[derive(Copy, Clone, Debug)]
pub(crate) struct AllocaSlot {
    block: CoreBlock,
    last: Option<CoreOp>,
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
    kind: FrameKind,
    alloca: Option<AllocaSlot>,
}

type CleanupEmitter = Box<dyn FnOnce(&mut FunctionBuilder<'_>)>;

pub(crate) struct DeferredCleanup {
    kind: CleanupKind,
    flag: Value,
    emit: CleanupEmitter,
}

pub(crate) struct ConditionalFrame {
    block: CoreBlock,
    /// The last op of `block` when the conditional began.
    after: Option<CoreOp>,
    deferred: Vec<DeferredCleanup>,
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

    fn close_for_finish(&mut self) {
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

    fn value_handle(&self, v: CoreValue) -> Value {
        Value::new(self.state.id, v)
    }

    fn op_handle(&self, op: CoreOp) -> Op {
        Op::new(self.state.id, op)
    }

    fn block_handle(&self, block: CoreBlock) -> Block {
        Block::new(self.state.id, block)
    }

    fn poison(&self) -> Value {
        Value::poison(self.state.id)
    }

    fn foreign(&mut self, what: &str, entity: &str, owner: BuilderId) {
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
    fn value(&mut self, v: Value, what: &str) -> Option<CoreValue> {
        if v.owner() != self.state.id {
            self.foreign(what, "value", v.owner());
            return None;
        }
        v.raw()
    }

    /// The core values of handles; `None` when any is poison or foreign (every foreign
    /// one gets an error).
    fn values(&mut self, vs: &[Value], what: &str) -> Option<Vec<CoreValue>> {
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

    fn op(&mut self, op: Op, what: &str) -> Option<CoreOp> {
        if op.owner() != self.state.id {
            self.foreign(what, "op", op.owner());
            return None;
        }
        op.raw()
    }

    fn block(&mut self, block: Block, what: &str) -> Option<CoreBlock> {
        if block.owner() != self.state.id {
            self.foreign(what, "block", block.owner());
            return None;
        }
        block.raw()
    }

    /// Whether `t` is a type of this module (an error otherwise).
    fn check_type(&mut self, t: Type, what: &str) -> bool {
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
    fn check_symbol(&mut self, symbol: Symbol, what: &str) -> bool {
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

    fn type_name(&self, t: Type) -> String {
        let mut out = Vec::new();
        let _ = ehir_core::printer::write_type(&mut out, self.ctx, t);
        String::from_utf8_lossy(&out).into_owned()
    }

    fn mismatch(&mut self, what: &str, expected: &str, found: Type) {
        let found = self.type_name(found);
        self.fail(
            BuilderErrorKind::TypeMismatch,
            format!("{what}: expected {expected}, found {found}"),
        );
    }

    fn core_type(&self, v: CoreValue) -> Type {
        self.state.func.dfg.value_type(v)
    }

    /// Whether `v` is a `!cir.bool` (an error otherwise).
    fn expect_bool(&mut self, v: CoreValue, what: &str) -> bool {
        let ty = self.core_type(v);
        if ty == self.ctx.types.common().bool {
            return true;
        }
        self.mismatch(what, "a !cir.bool", ty);
        false
    }

    /// Whether `a` and `b` have the same type (an error otherwise).
    fn expect_same(&mut self, a: CoreValue, b: CoreValue, what: &str) -> bool {
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

    fn insertion_block(&mut self) -> CoreBlock {
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
    fn cursor_at(&mut self, pos: CursorPosition) -> FuncCursor<'_> {
        let types = *self.ctx.types.common();
        FuncCursor::at(&mut self.state.func, &types, pos).with_loc(self.state.loc)
    }

    /// A cursor at the insertion point (a fresh block after a terminator).
    fn cursor(&mut self) -> FuncCursor<'_> {
        let block = self.insertion_block();
        self.cursor_at(CursorPosition::End(block))
    }

    /// Builds an op of `kind` at the insertion point (for ops without a dedicated method;
    /// the operands, results and region count must follow the layout the [`OpKind`]
    /// variant documents, which the verifier checks). A poison op, building nothing, when
    /// an operand is poison or foreign.
    pub fn build(
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
        let op = self.build(kind, operands, &[ty], 0);
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

    fn constant(&mut self, data: AttrData, ty: Type) -> Value {
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
    fn build_call(
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
        let Some(v) = self.values(&[a, b], "binop") else {
            return self.poison();
        };
        if !self.expect_same(v[0], v[1], "binop") {
            return self.poison();
        }
        let value = self.cursor().binop(kind, v[0], v[1]);
        self.value_handle(value)
    }

    /// `cir.unary(kind, %a) : T, T`.
    pub fn unary(&mut self, kind: UnaryOp, a: Value) -> Value {
        let Some(a) = self.value(a, "unary") else {
            return self.poison();
        };
        let value = self.cursor().unary(kind, a);
        self.value_handle(value)
    }

    /// `cir.cmp(pred, %a, %b) : T, !cir.bool` (both operands of type `T`).
    pub fn cmp(&mut self, pred: CmpPredicate, a: Value, b: Value) -> Value {
        let Some(v) = self.values(&[a, b], "cmp") else {
            return self.poison();
        };
        if !self.expect_same(v[0], v[1], "cmp") {
            return self.poison();
        }
        let value = self.cursor().cmp(pred, v[0], v[1]);
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
        let Some(p) = self.value(p, "get_member") else {
            return self.poison();
        };
        if !self.check_type(field_ty, "get_member") {
            return self.poison();
        }
        let name = self.ctx.sym(name);
        let ty = self.ctx.types.ptr(field_ty);
        let value = self.cursor().get_member(p, index, name, ty);
        self.value_handle(value)
    }

    /// `cir.base_class_addr %p [offset]`: the address of a base subobject.
    pub fn base_class_addr(&mut self, p: Value, base: Type, offset: u32, nonnull: bool) -> Value {
        let Some(p) = self.value(p, "base_class_addr") else {
            return self.poison();
        };
        if !self.check_type(base, "base_class_addr") {
            return self.poison();
        }
        let ty = self.ctx.types.ptr(base);
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
        let Some(p) = self.value(p, "derived_class_addr") else {
            return self.poison();
        };
        if !self.check_type(derived, "derived_class_addr") {
            return self.poison();
        }
        let ty = self.ctx.types.ptr(derived);
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

    /// Builds an op with `num_regions` empty regions at the insertion point (for ops
    /// without a dedicated method: `cir.ternary`, `cir.switch`, `cir.case`,
    /// `cir.array.dtor`, ...). Enter its regions with [`FunctionBuilder::enter_region`].
    /// A poison op (with an error) when an operand is foreign.
    pub fn create_region_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        num_regions: usize,
    ) -> Op {
        self.build(kind, operands, result_types, num_regions)
    }

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

    fn enter_core_region(&mut self, op: CoreOp, index: usize, alloca_scope: bool) {
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

    fn region_entry(&mut self, region: ehir_core::Region) -> CoreBlock {
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
            Some(FrameKind::Region { op, .. }) => {
                self.state.frames.pop();
                if !self.is_terminated() {
                    self.cursor().yield_values(&[]);
                }
                self.continue_after(op);
            }
            _ => self.fail(
                BuilderErrorKind::Unbalanced,
                "exit_region: the innermost frame is not an entered region",
            ),
        }
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

    fn continue_after(&mut self, op: CoreOp) {
        match self.state.func.layout.op_block(op) {
            Some(b) => self.state.block = b,
            None => self.fail(BuilderErrorKind::InvalidEntity, "the op is not placed"),
        }
    }

    /// Pops every cleanup frame above the innermost non-cleanup frame.
    fn pop_cleanups_above_region(&mut self) {
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

    /// `cir.condition(%c)`: terminates a loop condition region (`c` a `!cir.bool`).
    pub fn emit_condition(&mut self, cond: Value) {
        let cond = self.bool_operand(cond, "emit_condition");
        self.cursor().condition(cond);
    }

    /// `cond` as a core `!cir.bool` operand; after an error (or for poison) a `false`
    /// constant instead, so that structure built on it stays balanced (the function
    /// cannot be finished anyway).
    fn bool_operand(&mut self, cond: Value, what: &str) -> CoreValue {
        if let Some(core) = self.value(cond, what)
            && self.expect_bool(core, what)
        {
            return core;
        }
        let bool_ty = self.ctx.types.common().bool;
        let off = self.ctx.attrs.intern(AttrData::Bool(false));
        self.cursor().constant(off, bool_ty)
    }

    // ---- loops ---------------------------------------------------------------------------

    /// Starts `cir.while { cond } do { body }`; the insertion point is the condition
    /// region. Continue with [`LoopBuilder::condition`] and [`LoopBuilder::end_body`].
    ///
    /// ```
    /// use ehir_core::{BinaryOp, CmpPredicate, ModuleCtx};
    /// use ehir_builder::FunctionBuilder;
    ///
    /// // int count(int n) { int i = 0; while (i < n) { if (i == 7) break; i = i + 1; } return i; }
    /// let mut ctx = ModuleCtx::default();
    /// let s32 = ctx.types.common().s32;
    /// let sig = ctx.types.func(vec![s32], Some(s32), false);
    /// let mut b = FunctionBuilder::new(&mut ctx, "count", sig, &[s32]);
    /// let n = b.params()[0];
    /// let i = b.alloca(s32, "i", true, 4);
    /// let zero = b.const_int(s32, 0);
    /// b.store(zero, i, 4);
    /// let lp = b.begin_while();
    /// let iv = b.load(i, 4);
    /// let more = b.cmp(CmpPredicate::Lt, iv, n);
    /// lp.condition(&mut b, more);
    /// let iv = b.load(i, 4);
    /// let seven = b.const_int(s32, 7);
    /// let hit = b.cmp(CmpPredicate::Eq, iv, seven);
    /// b.begin_if(hit, false);
    /// b.emit_break();
    /// b.end_if();
    /// let one = b.const_int(s32, 1);
    /// let next = b.binop(BinaryOp::Add, iv, one);
    /// b.store(next, i, 4);
    /// lp.end_body(&mut b);
    /// let result = b.load(i, 4);
    /// b.emit_return(Some(result));
    /// let func = b.finish().unwrap();
    /// let text = ehir_core::printer::function_to_string(&ctx, &func);
    /// assert!(text.contains("cir.while {"), "{text}");
    /// assert!(text.contains("cir.break"), "{text}");
    /// ```
    pub fn begin_while(&mut self) -> LoopBuilder {
        let (op, _, _) = self.cursor().while_loop();
        self.begin_loop(op, LoopKind::While)
    }

    /// Starts `cir.do { body } while { cond }`; the insertion point is the body. Continue
    /// with [`LoopBuilder::end_body`] and [`LoopBuilder::condition`].
    pub fn begin_do_while(&mut self) -> LoopBuilder {
        let (op, _, _) = self.cursor().do_while();
        self.begin_loop(op, LoopKind::DoWhile)
    }

    /// Starts `cir.for : cond {} body {} step {}` (initialization goes before, in a
    /// [`FunctionBuilder::enter_scope`] if it declares variables); the insertion point is
    /// the condition. Continue with [`LoopBuilder::condition`], [`LoopBuilder::end_body`]
    /// and [`LoopBuilder::end_step`].
    pub fn begin_for(&mut self) -> LoopBuilder {
        let (op, _) = self.cursor().for_loop();
        self.begin_loop(op, LoopKind::For)
    }

    fn begin_loop(&mut self, op: CoreOp, kind: LoopKind) -> LoopBuilder {
        let lp = LoopBuilder {
            op: self.op_handle(op),
            kind,
        };
        let first = match kind {
            LoopKind::While | LoopKind::For => LoopPart::Condition,
            LoopKind::DoWhile => LoopPart::Body,
        };
        self.enter_loop_part(lp, first);
        lp
    }

    fn enter_loop_part(&mut self, lp: LoopBuilder, part: LoopPart) {
        if let Some(op) = lp.op.raw() {
            // The body is an alloca scope: a variable declared in it is fresh per
            // iteration.
            self.enter_core_region(op, lp.region_index(part), part == LoopPart::Body);
        }
    }

    /// Whether the insertion point is in `part` of the loop `lp` (an error otherwise;
    /// cleanups pushed inside the part are popped first).
    fn in_loop_part(&mut self, lp: LoopBuilder, part: LoopPart, what: &str) -> bool {
        let Some(op) = self.op(lp.op, what) else {
            return false;
        };
        let index = lp.region_index(part);
        let in_part = self.state.frames.iter().rev().find_map(|f| match f.kind {
            FrameKind::Cleanup { .. } => None,
            FrameKind::Region { op: o, index: i } => Some(o == op && i == index),
            _ => Some(false),
        });
        if in_part != Some(true) {
            self.fail(
                BuilderErrorKind::Unbalanced,
                format!("loop {what}: the insertion point is not in the loop's {part:?} region (close inner scopes first)"),
            );
            return false;
        }
        true
    }

    // ---- cleanups ------------------------------------------------------------------------

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
    ///     b.call_named(name, sig, &[], CallFlags { nothrow: true, exception: false });
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

    fn fill_cleanup_region<E>(
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
    fn exit_any(&mut self) {
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
            Some(FrameKind::Cleanup { op }) => {
                self.state.frames.pop();
                if !self.is_terminated() {
                    self.cursor().yield_values(&[]);
                }
                self.continue_after(op);
            }
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
    ///   %0 = cir.alloca !rec_T, !cir.ptr<!rec_T>, [\"ref.tmp\"]
    ///   %1 = cir.alloca !cir.bool, !cir.ptr<!cir.bool>, [\"cleanup.cond\"] {alignment = 1 : i64}
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
            if !matches!(self.state.func.dfg.kind(op), OpKind::Alloca { .. }) {
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

    // ---- try / catch ---------------------------------------------------------------------

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

    /// Closes the open region of the innermost try and opens a new handler region.
    fn open_handler(&mut self, key: HandlerKey, what: &str) -> bool {
        self.pop_cleanups_above_region();
        let Some(Frame {
            kind: FrameKind::Try { op, handlers, .. },
            ..
        }) = self.state.frames.last().copied()
        else {
            self.fail(
                BuilderErrorKind::Misplaced,
                format!("{what}: a handler outside a try (or inside an inner scope of one)"),
            );
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
        self.pop_cleanups_above_region();
        let Some(Frame {
            kind: FrameKind::Try { op, handlers, .. },
            ..
        }) = self.state.frames.last().copied()
        else {
            self.fail(
                BuilderErrorKind::Unbalanced,
                "exit_try: the innermost frame is not a try",
            );
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

    // ---- branches ------------------------------------------------------------------------

    fn cleanups_until(&self, stop: impl Fn(&FrameKind, &Function) -> bool) -> Option<Vec<CoreOp>> {
        let mut out = Vec::new();
        for f in self.state.frames.iter().rev() {
            if stop(&f.kind, &self.state.func) {
                return Some(out);
            }
            if let FrameKind::Cleanup { op } = f.kind {
                out.push(op);
            }
        }
        None
    }

    /// The cleanups of every enclosing frame, innermost first.
    fn all_cleanups(&self) -> Vec<CoreOp> {
        self.state
            .frames
            .iter()
            .rev()
            .filter_map(|f| match f.kind {
                FrameKind::Cleanup { op } => Some(op),
                _ => None,
            })
            .collect()
    }

    /// Notes a branch op that leaves the scopes of `cleanups` (innermost first).
    fn note_exit(&mut self, op: CoreOp, branch: BranchKind, cleanups: Vec<CoreOp>) {
        let exit = BranchExit {
            op: self.op_handle(op),
            kind: branch,
            cleanups: cleanups.into_iter().map(|c| self.op_handle(c)).collect(),
        };
        self.state.exits.push(exit);
    }

    fn is_loop_body(kind: &FrameKind, func: &Function) -> bool {
        match *kind {
            FrameKind::Region { op, index } => matches!(
                (func.dfg.kind(op), index),
                (OpKind::While, 1) | (OpKind::DoWhile, 0) | (OpKind::For, 1)
            ),
            _ => false,
        }
    }

    /// `cir.break`: leaves the innermost loop or `cir.switch`.
    pub fn emit_break(&mut self) {
        let cleanups = self.cleanups_until(|k, f| {
            Self::is_loop_body(k, f)
                || matches!(*k, FrameKind::Region { op, .. } if matches!(f.dfg.kind(op), OpKind::Case { .. }))
        });
        let Some(cleanups) = cleanups else {
            self.fail(
                BuilderErrorKind::Misplaced,
                "emit_break: break outside a loop body or switch",
            );
            return;
        };
        let op = self.cursor().break_op();
        self.note_exit(op, BranchKind::Break, cleanups);
    }

    /// `cir.continue`: next iteration of the innermost loop.
    pub fn emit_continue(&mut self) {
        let Some(cleanups) = self.cleanups_until(Self::is_loop_body) else {
            self.fail(
                BuilderErrorKind::Misplaced,
                "emit_continue: continue outside a loop body",
            );
            return;
        };
        let op = self.cursor().continue_op();
        self.note_exit(op, BranchKind::Continue, cleanups);
    }

    /// `cir.return [%v]`: runs every enclosing cleanup on the way out. `value` must be
    /// given exactly when the function returns a value, and be of its result type.
    pub fn emit_return(&mut self, value: Option<Value>) {
        let value = match value {
            Some(v) => match self.value(v, "emit_return") {
                Some(core) => Some(core),
                None => return,
            },
            None => None,
        };
        match (self.state.ret, value) {
            (None, Some(_)) => {
                self.fail(
                    BuilderErrorKind::TypeMismatch,
                    "emit_return: a value returned from a function without a result",
                );
                return;
            }
            (Some(ret), None) => {
                let ret = self.type_name(ret);
                self.fail(
                    BuilderErrorKind::TypeMismatch,
                    format!("emit_return: no value returned from a function returning {ret}"),
                );
                return;
            }
            (Some(ret), Some(v)) if self.core_type(v) != ret => {
                let expected = self.type_name(ret);
                self.mismatch("emit_return", &expected, self.core_type(v));
                return;
            }
            _ => {}
        }
        let cleanups = self.all_cleanups();
        let op = self.cursor().ret(value);
        self.note_exit(op, BranchKind::Return, cleanups);
    }

    /// `cir.goto "label"`.
    pub fn emit_goto(&mut self, label: &str) {
        let label = self.ctx.sym(label);
        let cleanups = self.all_cleanups();
        let op = self.cursor().goto(label);
        self.note_exit(op, BranchKind::Goto(label), cleanups);
    }

    /// Starts a new block beginning with `cir.label "label"`; the current block falls
    /// through to it with `cir.br` unless it already ends in a terminator.
    pub fn emit_label(&mut self, label: &str) {
        let label = self.ctx.sym(label);
        let Some(region) = self.state.func.layout.block_region(self.state.block) else {
            self.fail(
                BuilderErrorKind::InvalidEntity,
                "emit_label: no current region",
            );
            return;
        };
        let terminated = self.is_terminated();
        let current = self.state.block;
        let mut cursor = self.cursor_at(CursorPosition::End(current));
        let block = cursor.append_block(region);
        if !terminated {
            cursor.br(block, &[]);
        }
        cursor.goto_end(block);
        cursor.label(label);
        self.state.block = block;
    }

    /// `cir.unreachable`.
    pub fn emit_unreachable(&mut self) {
        self.cursor().unreachable();
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
