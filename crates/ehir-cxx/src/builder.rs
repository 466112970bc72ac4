//! The EHScopeStack-style builder: builds one structured-phase CIR function the way
//! Clang's `CodeGenFunction` drives `EHScopeStack`, so a front end never creates
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
//! Misuse (popping a cleanup that is not on top, `break` outside a loop, ...) never panics:
//! the first error is remembered and returned by [`FunctionBuilder::finish`].
//!
//! # Example
//!
//! `void someFunc() { SomeClass c; c.doSomething(); }` (the seed's first example):
//!
//! ```
//! use ehir_core::{CallFlags, CleanupKind, ModuleCtx, RecordDecl, RecordKind, Loc, TypeData};
//! use ehir_cxx::builder::FunctionBuilder;
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

use ehir_core::{
    AttrData, BinaryOp, Block, CallFlags, CastKind, CleanupKind, CmpPredicate, Extra, ExtraData,
    Function, HandlerKey, Loc, ModuleCtx, Op, OpKind, Region, Symbol, Type, TypeData, UnaryOp,
    Value,
};

/// What a structured branch does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BranchKind {
    Break,
    Continue,
    Return,
    Goto(Symbol),
}

/// A branch that may leave cleanup scopes, recorded for flattening.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BranchExit {
    /// The `cir.break` / `cir.continue` / `cir.return` / `cir.goto` op.
    pub op: Op,
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

/// A pushed cleanup, for [`FunctionBuilder::deactivate_cleanup`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CleanupHandle(pub Op);

/// A position in the cleanup stack, for [`FunctionBuilder::pop_cleanups_to`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CleanupDepth(usize);

/// Where hoisted allocas go.
#[derive(Copy, Clone, Debug)]
struct AllocaSlot {
    block: Block,
    last: Option<Op>,
}

#[derive(Copy, Clone, Debug)]
enum FrameKind {
    /// The function body.
    Body,
    /// Region `index` of a structured op.
    Region { op: Op, index: usize },
    /// The body of a `cir.cleanup.scope`.
    Cleanup { op: Op },
    /// The body or a handler (`region`) of a `cir.try`.
    Try {
        op: Op,
        handlers: Extra,
        region: usize,
    },
}

#[derive(Copy, Clone, Debug)]
struct Frame {
    kind: FrameKind,
    alloca: Option<AllocaSlot>,
}

type CleanupEmitter = Box<dyn FnOnce(&mut FunctionBuilder<'_>)>;

struct DeferredCleanup {
    kind: CleanupKind,
    flag: Value,
    emit: CleanupEmitter,
}

struct ConditionalFrame {
    block: Block,
    /// The last op of `block` when the conditional began.
    after: Option<Op>,
    deferred: Vec<DeferredCleanup>,
}

/// Builds one function in the structured phase. See the module documentation.
pub struct FunctionBuilder<'m> {
    /// The module's interners (types, attributes, symbols).
    pub ctx: &'m mut ModuleCtx,
    func: Function,
    block: Block,
    loc: Loc,
    frames: Vec<Frame>,
    conditionals: Vec<ConditionalFrame>,
    exits: Vec<BranchExit>,
    error: Option<String>,
}

/// A misuse of the builder (a front-end bug, not a user error).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("builder misuse: {0}")]
pub struct BuilderError(pub String);

impl<'m> FunctionBuilder<'m> {
    /// Starts a definition of `name` with signature `sig` (a `!cir.func` type) whose entry
    /// block takes `params`. The insertion point is the entry block.
    pub fn new(ctx: &'m mut ModuleCtx, name: &str, sig: Type, params: &[Type]) -> Self {
        let sym = ctx.sym(name);
        let func = Function::new_definition(sym, sig, params);
        let entry = func.entry_block().expect("a definition has an entry block");
        FunctionBuilder {
            ctx,
            func,
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
            error: None,
        }
    }

    /// The function being built (for setting linkage, `nothrow`, ...).
    pub fn func_mut(&mut self) -> &mut Function {
        &mut self.func
    }

    /// The function being built.
    pub fn func(&self) -> &Function {
        &self.func
    }

    /// The parameters of the entry block.
    pub fn params(&self) -> Vec<Value> {
        let entry = self.func.entry_block().expect("entry");
        self.func.dfg.block_params(entry).to_vec()
    }

    /// Ops built from now on carry this source location.
    pub fn set_loc(&mut self, loc: Loc) {
        self.loc = loc;
    }

    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    /// Structured branches recorded so far.
    pub fn branch_exits(&self) -> &[BranchExit] {
        &self.exits
    }

    /// The first misuse, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn fail(&mut self, msg: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(msg.into());
        }
    }

    /// Finishes the function: closes the body with `cir.return` when its last block has no
    /// terminator. Every scope, region, cleanup and try must have been exited.
    pub fn finish(mut self) -> Result<Function, BuilderError> {
        if self.frames.len() != 1 {
            let open: Vec<String> = self.frames[1..]
                .iter()
                .map(|f| match f.kind {
                    FrameKind::Body => "body".to_string(),
                    FrameKind::Region { op, index } => {
                        format!("region {index} of {}", self.func.dfg.kind(op).name())
                    }
                    FrameKind::Cleanup { .. } => "cleanup".to_string(),
                    FrameKind::Try { .. } => "try".to_string(),
                })
                .collect();
            self.fail(format!(
                "{} scope(s) still open at the end of the function: {}",
                self.frames.len() - 1,
                open.join(", ")
            ));
        }
        if !self.conditionals.is_empty() {
            self.fail("conditional still open at the end of the function");
        }
        if let Some(e) = self.error.take() {
            return Err(BuilderError(e));
        }
        if !self.is_terminated() {
            self.build(OpKind::Return, &[], &[], 0);
        }
        Ok(self.func)
    }

    // ---- insertion ---------------------------------------------------------------------

    /// Whether the current block already ends in a terminator (code emitted now is
    /// unreachable and goes to a fresh block).
    pub fn is_terminated(&self) -> bool {
        self.func
            .layout
            .last_op(self.block)
            .is_some_and(|op| self.func.dfg.kind(op).is_terminator())
    }

    /// The block at the insertion point.
    pub fn current_block(&self) -> Block {
        self.block
    }

    fn insertion_block(&mut self) -> Block {
        if self.is_terminated() {
            // Unreachable code after a terminator: a fresh block in the same region.
            let region = self.func.layout.block_region(self.block).expect("placed");
            let b = self.func.dfg.make_block();
            self.func.layout.append_block(region, b);
            self.block = b;
        }
        self.block
    }

    /// Builds an op at the insertion point.
    pub fn build(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        num_regions: usize,
    ) -> Op {
        let block = self.insertion_block();
        let op = self
            .func
            .dfg
            .make_op(kind, operands, result_types, &[], num_regions, self.loc);
        self.func.layout.append_op(op, block);
        op
    }

    /// Builds an op with one result and returns the result.
    pub fn build_value(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.build(kind, operands, &[ty], 0);
        self.func.dfg.result(op)
    }

    /// Builds a terminator with successor edges (`cir.br`, `cir.brcond`).
    pub fn build_branch(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        successors: &[(Block, &[Value])],
    ) -> Op {
        let block = self.insertion_block();
        let op = self
            .func
            .dfg
            .make_op(kind, operands, &[], successors, 0, self.loc);
        self.func.layout.append_op(op, block);
        op
    }

    // ---- common ops --------------------------------------------------------------------

    /// `cir.alloca`, hoisted to the start of the innermost alloca scope.
    pub fn alloca(&mut self, ty: Type, name: &str, init: bool, align: u16) -> Value {
        let name = self.ctx.sym(name);
        let ptr = self.ctx.types.ptr(ty);
        let op = self.func.dfg.make_op(
            OpKind::Alloca {
                alloc_ty: ty,
                name,
                init,
                align,
            },
            &[],
            &[ptr],
            &[],
            0,
            self.loc,
        );
        let Some(idx) = self.frames.iter().rposition(|f| f.alloca.is_some()) else {
            self.fail("no alloca scope");
            self.func.layout.append_op(op, self.block);
            return self.func.dfg.result(op);
        };
        let slot = self.frames[idx].alloca.expect("checked");
        match slot.last {
            Some(last) => match self.func.layout.next_op(last) {
                Some(next) => self.func.layout.insert_op_before(op, next),
                None => self.func.layout.append_op(op, slot.block),
            },
            None => self.func.layout.prepend_op(op, slot.block),
        }
        self.frames[idx].alloca = Some(AllocaSlot {
            block: slot.block,
            last: Some(op),
        });
        self.func.dfg.result(op)
    }

    /// `cir.const #cir.int<v> : ty`.
    pub fn const_int(&mut self, ty: Type, v: i128) -> Value {
        let a = self.ctx.attrs.intern(AttrData::Int { value: v, ty });
        self.build_value(OpKind::Const { value: a }, &[], ty)
    }

    /// `cir.const #true` / `#false`.
    pub fn const_bool(&mut self, v: bool) -> Value {
        let a = self.ctx.attrs.intern(AttrData::Bool(v));
        let ty = self.ctx.types.common().bool;
        self.build_value(OpKind::Const { value: a }, &[], ty)
    }

    /// `cir.const #cir.fp<v> : ty`.
    pub fn const_float(&mut self, ty: Type, v: f64) -> Value {
        let a = self.ctx.attrs.intern(AttrData::Float {
            bits: v.to_bits(),
            ty,
        });
        self.build_value(OpKind::Const { value: a }, &[], ty)
    }

    /// `cir.const #cir.ptr<null> : ty`.
    pub fn const_null(&mut self, ty: Type) -> Value {
        let a = self.ctx.attrs.intern(AttrData::Null(ty));
        self.build_value(OpKind::Const { value: a }, &[], ty)
    }

    /// `cir.load [align(N)] %ptr`.
    pub fn load(&mut self, ptr: Value, align: u16) -> Value {
        let pty = self.value_type(ptr);
        let Some(ty) = self.ctx.types.pointee(pty) else {
            self.fail("load from a non-pointer");
            return ptr;
        };
        self.build_value(
            OpKind::Load {
                align,
                volatile: false,
            },
            &[ptr],
            ty,
        )
    }

    /// `cir.store [align(N)] %value, %ptr`.
    pub fn store(&mut self, value: Value, ptr: Value, align: u16) {
        self.build(
            OpKind::Store {
                align,
                volatile: false,
            },
            &[value, ptr],
            &[],
            0,
        );
    }

    /// A direct `cir.call`. Returns the result when `sig` has one.
    pub fn call(
        &mut self,
        callee: Symbol,
        sig: Type,
        args: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        self.build_call(Some(callee), sig, args, flags)
    }

    /// A `cir.call` of `callee` (indirect through `operands[0]` when `None`).
    fn build_call(
        &mut self,
        callee: Option<Symbol>,
        sig: Type,
        operands: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        let ret = self.ctx.types.func_info(sig).and_then(|(_, r, _)| r);
        let results: Vec<Type> = ret.into_iter().collect();
        let op = self.build(
            OpKind::Call {
                callee: callee.into(),
                sig,
                flags,
            },
            operands,
            &results,
            0,
        );
        self.func.dfg.results(op).first().copied()
    }

    /// An indirect `cir.call` through a function pointer.
    pub fn call_indirect(
        &mut self,
        fn_ptr: Value,
        sig: Type,
        args: &[Value],
        flags: CallFlags,
    ) -> Option<Value> {
        let mut operands = vec![fn_ptr];
        operands.extend_from_slice(args);
        self.build_call(None, sig, &operands, flags)
    }

    /// `cir.binop(kind, %a, %b) : T`.
    pub fn binop(&mut self, kind: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.value_type(a);
        self.build_value(OpKind::Binary(kind), &[a, b], ty)
    }

    /// `cir.unary(kind, %a) : T, T`.
    pub fn unary(&mut self, kind: UnaryOp, a: Value) -> Value {
        let ty = self.value_type(a);
        self.build_value(OpKind::Unary(kind), &[a], ty)
    }

    /// `cir.cmp(pred, %a, %b) : T, !cir.bool`.
    pub fn cmp(&mut self, pred: CmpPredicate, a: Value, b: Value) -> Value {
        let ty = self.ctx.types.common().bool;
        self.build_value(OpKind::Cmp(pred), &[a, b], ty)
    }

    /// `cir.cast kind %v : T -> to`.
    pub fn cast(&mut self, kind: CastKind, v: Value, to: Type) -> Value {
        self.build_value(OpKind::Cast(kind), &[v], to)
    }

    /// `cir.select if %c then %a else %b`.
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.value_type(a);
        self.build_value(OpKind::Select, &[c, a, b], ty)
    }

    /// `cir.ptr_stride %p, %n`.
    pub fn ptr_stride(&mut self, p: Value, n: Value) -> Value {
        let ty = self.value_type(p);
        self.build_value(OpKind::PtrStride, &[p, n], ty)
    }

    /// `cir.get_member %p[index] {name = "..."}`: the address of field `index`.
    pub fn get_member(&mut self, p: Value, index: u32, name: &str, field_ty: Type) -> Value {
        let name = self.ctx.sym(name);
        let ty = self.ctx.types.ptr(field_ty);
        self.build_value(OpKind::GetMember { index, name }, &[p], ty)
    }

    /// `cir.base_class_addr %p [offset]`: the address of a base subobject.
    pub fn base_class_addr(&mut self, p: Value, base: Type, offset: u32, nonnull: bool) -> Value {
        let ty = self.ctx.types.ptr(base);
        self.build_value(OpKind::BaseClassAddr { offset, nonnull }, &[p], ty)
    }

    /// `cir.derived_class_addr %p [offset]`: from a base subobject to the derived object.
    pub fn derived_class_addr(
        &mut self,
        p: Value,
        derived: Type,
        offset: u32,
        nonnull: bool,
    ) -> Value {
        let ty = self.ctx.types.ptr(derived);
        self.build_value(OpKind::DerivedClassAddr { offset, nonnull }, &[p], ty)
    }

    /// `cir.get_global @sym : !cir.ptr<ty>`.
    pub fn get_global(&mut self, symbol: Symbol, ty: Type) -> Value {
        let pty = self.ctx.types.ptr(ty);
        self.build_value(OpKind::GetGlobal { symbol }, &[], pty)
    }

    // ---- structured regions --------------------------------------------------------------

    /// Builds an op with `num_regions` empty regions at the insertion point (for example
    /// `cir.if`, `cir.while`, `cir.switch`, `cir.ternary`). Enter its regions with
    /// [`FunctionBuilder::enter_region`].
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
    pub fn enter_region(&mut self, op: Op, index: usize, alloca_scope: bool) -> Block {
        let Some(&region) = self.func.dfg.regions(op).get(index) else {
            self.fail(format!("op has no region {index}"));
            return self.block;
        };
        let entry = self.region_entry(region);
        self.block = entry;
        self.frames.push(Frame {
            kind: FrameKind::Region { op, index },
            alloca: alloca_scope.then_some(AllocaSlot {
                block: entry,
                last: None,
            }),
        });
        entry
    }

    fn region_entry(&mut self, region: Region) -> Block {
        match self.func.layout.entry_block(region) {
            Some(b) => b,
            None => {
                let b = self.func.dfg.make_block();
                self.func.layout.append_block(region, b);
                b
            }
        }
    }

    /// Leaves the innermost entered region: pops the cleanups pushed inside it, closes its
    /// last block with `cir.yield` unless it has a terminator, and continues after the op.
    pub fn exit_region(&mut self) {
        self.pop_cleanups_above_region();
        match self.frames.last().map(|f| f.kind) {
            Some(FrameKind::Region { op, .. }) => {
                self.frames.pop();
                if !self.is_terminated() {
                    self.build(OpKind::Yield, &[], &[], 0);
                }
                self.continue_after(op);
            }
            _ => self.fail("exit_region without an entered region"),
        }
    }

    /// Closes the current block with `cir.yield %values` (for regions that produce
    /// values, like `cir.ternary`), then leaves the region like
    /// [`FunctionBuilder::exit_region`].
    pub fn exit_region_yielding(&mut self, values: &[Value]) {
        if !self.is_terminated() {
            self.build(OpKind::Yield, values, &[], 0);
        }
        self.exit_region();
    }

    fn continue_after(&mut self, op: Op) {
        match self.func.layout.op_block(op) {
            Some(b) => self.block = b,
            None => self.fail("op is not placed"),
        }
    }

    /// Pops every cleanup frame above the innermost non-cleanup frame.
    fn pop_cleanups_above_region(&mut self) {
        while let Some(Frame {
            kind: FrameKind::Cleanup { .. },
            ..
        }) = self.frames.last()
        {
            self.pop_cleanup();
        }
    }

    /// `cir.scope { ... }`: a lexical scope that also receives the allocas of its code.
    pub fn enter_scope(&mut self) -> Op {
        let op = self.create_region_op(OpKind::Scope, &[], &[], 1);
        self.enter_region(op, 0, true);
        op
    }

    /// Leaves the innermost `cir.scope`, popping the cleanups pushed inside it.
    pub fn exit_scope(&mut self) {
        self.exit_region();
    }

    /// Starts a `cir.if %cond`; the insertion point is the then-region.
    pub fn begin_if(&mut self, cond: Value, has_else: bool) -> Op {
        let op = self.create_region_op(OpKind::If, &[cond], &[], if has_else { 2 } else { 1 });
        self.enter_region(op, 0, false);
        op
    }

    /// Switches from the then-region of `if_op` to its else-region.
    pub fn begin_else(&mut self, if_op: Op) {
        self.exit_region();
        self.enter_region(if_op, 1, false);
    }

    /// Ends the `cir.if` (closing the open region).
    pub fn end_if(&mut self) {
        self.exit_region();
    }

    /// `cir.condition(%c)`: terminates a loop condition region.
    pub fn emit_condition(&mut self, cond: Value) {
        self.build(OpKind::Condition, &[cond], &[], 0);
    }

    // ---- cleanups ------------------------------------------------------------------------

    /// The current depth of the cleanup stack.
    pub fn cleanup_depth(&self) -> CleanupDepth {
        CleanupDepth(self.frames.len())
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
        let op = self.create_region_op(OpKind::CleanupScope { kind }, &[], &[], 2);
        self.fill_cleanup_region(op, kind, emit);
        let regions = self.func.dfg.regions(op).to_vec();
        let body = self.region_entry(regions[0]);
        self.block = body;
        self.frames.push(Frame {
            kind: FrameKind::Cleanup { op },
            alloca: None,
        });
        CleanupHandle(op)
    }

    /// Deactivates a cleanup: from now on it does not run on any exit. When it is the
    /// innermost cleanup and EH-only it is simply popped; otherwise its cleanup region is
    /// guarded by a flag (`cleanup.isactive`, set before the scope and cleared here), as
    /// Clang does for a cleanup buried under later ones (e.g. the `operator delete` of a
    /// new-expression under the temporaries of its constructor arguments).
    pub fn deactivate_cleanup(&mut self, handle: CleanupHandle) {
        let op = handle.0;
        let on_top = matches!(
            self.frames.last().map(|f| f.kind),
            Some(FrameKind::Cleanup { op: o }) if o == op
        );
        let kind = match self.func.dfg.kind(op) {
            OpKind::CleanupScope { kind } => *kind,
            _ => {
                self.fail("deactivate_cleanup: not a cleanup scope");
                return;
            }
        };
        if on_top && kind == CleanupKind::Eh {
            self.pop_cleanup();
            return;
        }
        // Guard the cleanup region with a flag.
        let bool_ty = self.ctx.types.common().bool;
        let flag = self.alloca(bool_ty, "cleanup.isactive", false, 1);
        let t = self.ctx.attrs.intern(AttrData::Bool(true));
        let f = self.ctx.attrs.intern(AttrData::Bool(false));
        let make_const = |b: &mut Self, a| {
            b.func
                .dfg
                .make_op(OpKind::Const { value: a }, &[], &[bool_ty], &[], 0, b.loc)
        };
        let c_true = make_const(self, t);
        let store_true = {
            let v = self.func.dfg.result(c_true);
            self.func.dfg.make_op(
                OpKind::Store {
                    align: 1,
                    volatile: false,
                },
                &[v, flag],
                &[],
                &[],
                0,
                self.loc,
            )
        };
        self.func.layout.insert_op_before(c_true, op);
        self.func.layout.insert_op_before(store_true, op);
        // Move the cleanup code under `cir.if (flag)`.
        let regions = self.func.dfg.regions(op).to_vec();
        let Some(cleanup_block) = self.func.layout.entry_block(regions[1]) else {
            self.fail("cleanup region without a block");
            return;
        };
        if self.func.layout.blocks(regions[1]).count() != 1 {
            self.fail("cannot deactivate a cleanup whose region has several blocks");
            return;
        }
        let ops: Vec<Op> = self.func.layout.ops(cleanup_block).collect();
        let (terminator, body_ops) = match ops.split_last() {
            Some((&last, rest)) if self.func.dfg.kind(last).is_terminator() => {
                (Some(last), rest.to_vec())
            }
            _ => (None, ops.clone()),
        };
        for &o in &ops {
            self.func.layout.remove_op(o);
        }
        let saved = self.block;
        self.block = cleanup_block;
        let v = self.load(flag, 1);
        let if_op = self.create_region_op(OpKind::If, &[v], &[], 1);
        let then_block = self.region_entry(self.func.dfg.regions(if_op)[0]);
        for o in body_ops {
            self.func.layout.append_op(o, then_block);
        }
        let y = self
            .func
            .dfg
            .make_op(OpKind::Yield, &[], &[], &[], 0, self.loc);
        self.func.layout.append_op(y, then_block);
        if let Some(t) = terminator {
            self.func.layout.append_op(t, cleanup_block);
        }
        self.block = saved;
        // Clear the flag at the deactivation point.
        let c_false = self.func.dfg.make_op(
            OpKind::Const { value: f },
            &[],
            &[bool_ty],
            &[],
            0,
            self.loc,
        );
        let block = self.insertion_block();
        self.func.layout.append_op(c_false, block);
        let fv = self.func.dfg.result(c_false);
        self.store(fv, flag, 1);
    }

    /// The structured ops (and region index) enclosing the insertion point, outermost
    /// first: a label is reachable by `cir.goto` from code whose path extends it.
    pub fn frame_path(&self) -> Vec<(Op, usize)> {
        self.frames
            .iter()
            .filter_map(|f| match f.kind {
                FrameKind::Body => None,
                FrameKind::Region { op, index } => Some((op, index)),
                FrameKind::Cleanup { op } => Some((op, 0)),
                FrameKind::Try { op, region, .. } => Some((op, region)),
            })
            .collect()
    }

    /// Adds a parameter to a block (entry blocks of `cir.array.ctor` / `cir.array.dtor`).
    pub fn add_block_param(&mut self, block: Block, ty: Type) -> Value {
        self.func.dfg.append_block_param(block, ty)
    }

    fn fill_cleanup_region(
        &mut self,
        op: Op,
        kind: CleanupKind,
        emit: impl FnOnce(&mut FunctionBuilder<'_>),
    ) {
        let saved = self.block;
        self.enter_region(op, 1, false);
        emit(self);
        // Whatever the emitter left open is closed here.
        while !matches!(
            self.frames.last().map(|f| f.kind),
            Some(FrameKind::Region { op: o, index: 1 }) if o == op
        ) {
            if self.frames.len() <= 1 {
                self.fail("cleanup emitter closed its own region");
                self.block = saved;
                return;
            }
            self.exit_any();
        }
        self.frames.pop();
        if !self.is_terminated() {
            if kind == CleanupKind::Eh {
                self.build(OpKind::Resume, &[], &[], 0);
            } else {
                self.build(OpKind::Yield, &[], &[], 0);
            }
        }
        self.block = saved;
    }

    /// Closes whatever frame is on top (used when an emitter leaves frames open).
    fn exit_any(&mut self) {
        match self.frames.last().map(|f| f.kind) {
            Some(FrameKind::Cleanup { .. }) => self.pop_cleanup(),
            Some(FrameKind::Try { .. }) => self.exit_try(),
            Some(FrameKind::Region { .. }) => self.exit_region(),
            _ => {}
        }
    }

    /// Pops the innermost cleanup: closes its body (with `cir.yield` unless it ends in a
    /// terminator) and continues after the `cir.cleanup.scope`.
    pub fn pop_cleanup(&mut self) {
        match self.frames.last().map(|f| f.kind) {
            Some(FrameKind::Cleanup { op }) => {
                self.frames.pop();
                if !self.is_terminated() {
                    self.build(OpKind::Yield, &[], &[], 0);
                }
                self.continue_after(op);
            }
            _ => self.fail("pop_cleanup: the innermost frame is not a cleanup"),
        }
    }

    /// Pops cleanups until the stack is back at `depth`.
    pub fn pop_cleanups_to(&mut self, depth: CleanupDepth) {
        while self.frames.len() > depth.0 {
            match self.frames.last().map(|f| f.kind) {
                Some(FrameKind::Cleanup { .. }) => self.pop_cleanup(),
                _ => {
                    self.fail("pop_cleanups_to crosses a non-cleanup frame");
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
            self.frames.last().map(|f| f.kind),
            Some(FrameKind::Cleanup { .. })
        )
    }

    /// Begins a full expression; temporaries registered with
    /// [`FunctionBuilder::push_temporary_cleanup`] are destroyed at its end.
    pub fn begin_full_expression(&mut self) -> FullExpressionMark {
        FullExpressionMark {
            depth: self.frames.len(),
        }
    }

    /// Ends a full expression: destroys its temporaries (pops their cleanups).
    pub fn end_full_expression(&mut self, mark: FullExpressionMark) {
        self.pop_cleanups_to(CleanupDepth(mark.depth));
    }

    /// Whether the full expression begun at `mark` has pushed cleanups.
    pub fn full_expression_has_cleanups(&self, mark: FullExpressionMark) -> bool {
        self.frames.len() > mark.depth
    }

    /// Registers the destruction of a temporary at the end of the full expression. Inside
    /// a conditional (see [`FunctionBuilder::begin_conditional`]) the cleanup is
    /// conditional on a flag set here.
    pub fn push_temporary_cleanup(
        &mut self,
        kind: CleanupKind,
        emit: impl FnOnce(&mut FunctionBuilder<'_>) + 'static,
    ) {
        if self.conditionals.is_empty() {
            let _ = self.push_cleanup(kind, emit);
            return;
        }
        let bool_ty = self.ctx.types.common().bool;
        let flag = self.alloca(bool_ty, "cleanup.cond", false, 1);
        let t = self.const_bool(true);
        self.store(t, flag, 1);
        self.conditionals[0].deferred.push(DeferredCleanup {
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
    /// use ehir_cxx::builder::FunctionBuilder;
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
        let after = self.func.layout.last_op(block);
        self.conditionals.push(ConditionalFrame {
            block,
            after,
            deferred: Vec::new(),
        });
    }

    /// Ends a conditional. When the outermost conditional ends, the temporaries
    /// registered inside it get cleanup scopes that wrap the code emitted since
    /// [`FunctionBuilder::begin_conditional`] and test their flags.
    pub fn end_conditional(&mut self) {
        let Some(frame) = self.conditionals.pop() else {
            self.fail("end_conditional without begin_conditional");
            return;
        };
        if !self.conditionals.is_empty() {
            // Nested: the outermost conditional owns the deferred cleanups.
            self.conditionals[0].deferred.extend(frame.deferred);
            return;
        }
        if frame.deferred.is_empty() {
            return;
        }
        if frame.block != self.block {
            self.fail("conditional ended in another block than it began");
            return;
        }
        // The ops to wrap: everything after the anchor except hoisted allocas.
        let mut to_move = Vec::new();
        let mut cur = match frame.after {
            Some(a) => self.func.layout.next_op(a),
            None => self.func.layout.first_op(frame.block),
        };
        while let Some(op) = cur {
            cur = self.func.layout.next_op(op);
            if !matches!(self.func.dfg.kind(op), OpKind::Alloca { .. }) {
                to_move.push(op);
            }
        }
        for &op in &to_move {
            self.func.layout.remove_op(op);
        }
        // Clear the flags, then nest one cleanup scope per deferred cleanup.
        let f = self.const_bool(false);
        for d in &frame.deferred {
            self.store(f, d.flag, 1);
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
            self.func.layout.append_op(op, self.block);
        }
    }

    /// Whether the builder is inside a conditional.
    pub fn in_conditional(&self) -> bool {
        !self.conditionals.is_empty()
    }

    // ---- try / catch ---------------------------------------------------------------------

    /// Starts a `cir.try`; the insertion point is its body.
    ///
    /// ```
    /// use ehir_core::{CallFlags, ModuleCtx};
    /// use ehir_cxx::builder::{CatchKind, FunctionBuilder};
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
        let handlers = self.func.dfg.make_extra(ExtraData::Handlers(Vec::new()));
        let op = self.create_region_op(OpKind::Try { handlers }, &[], &[], 1);
        let regions = self.func.dfg.regions(op).to_vec();
        self.block = self.region_entry(regions[0]);
        self.frames.push(Frame {
            kind: FrameKind::Try {
                op,
                handlers,
                region: 0,
            },
            alloca: None,
        });
        op
    }

    /// Closes the open region of the innermost try and opens a new handler region.
    fn open_handler(&mut self, key: HandlerKey) -> Option<Op> {
        self.pop_cleanups_above_region();
        let Some(Frame {
            kind: FrameKind::Try { op, handlers, .. },
            ..
        }) = self.frames.last().copied()
        else {
            self.fail("handler outside a try");
            return None;
        };
        if !self.is_terminated() {
            self.build(OpKind::Yield, &[], &[], 0);
        }
        if let ExtraData::Handlers(h) = &mut self.func.dfg.extras[handlers] {
            h.push(key);
        }
        let region = self.func.dfg.make_region(Some(op));
        self.func.dfg.attach_region(op, region);
        self.block = self.region_entry(region);
        let index = self.func.dfg.regions(op).len() - 1;
        if let Some(Frame {
            kind: FrameKind::Try { region, .. },
            ..
        }) = self.frames.last_mut()
        {
            *region = index;
        }
        Some(op)
    }

    /// Starts a catch handler of the innermost try. Returns the `cir.catch_param` value:
    /// the address of the exception object, typed `param_ty` (`!cir.ptr<!void>` for
    /// [`CatchKind::All`] whatever `param_ty` says).
    pub fn emit_catch(&mut self, kind: CatchKind, param_ty: Type) -> Value {
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
        if self.open_handler(key).is_none() {
            return self.const_null(ty);
        }
        self.build_value(OpKind::CatchParam, &[], ty)
    }

    /// Adds a `filter [typeinfos...] { cir.unreachable }` handler (a dynamic exception
    /// specification `throw(T...)`; empty for `throw()`).
    pub fn emit_filter(&mut self, typeinfos: &[Symbol]) {
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
        if self.open_handler(HandlerKey::Filter(list)).is_some() {
            self.build(OpKind::Unreachable, &[], &[], 0);
        }
    }

    /// Adds a `terminate { cir.unreachable }` handler (a `noexcept` boundary).
    pub fn emit_terminate(&mut self) {
        if self.open_handler(HandlerKey::Terminate).is_some() {
            self.build(OpKind::Unreachable, &[], &[], 0);
        }
    }

    /// Ends the innermost try: closes the open region, adds `unwind { cir.resume }` when
    /// no handler catches everything (or stops unwinding), and continues after the op.
    pub fn exit_try(&mut self) {
        self.pop_cleanups_above_region();
        let Some(Frame {
            kind: FrameKind::Try { op, handlers, .. },
            ..
        }) = self.frames.last().copied()
        else {
            self.fail("exit_try without a try");
            return;
        };
        let complete = self.func.dfg.handlers(handlers).iter().any(|h| {
            matches!(
                h,
                HandlerKey::CatchAll | HandlerKey::Filter(_) | HandlerKey::Terminate
            )
        });
        if !complete && self.open_handler(HandlerKey::Unwind).is_some() {
            self.build(OpKind::Resume, &[], &[], 0);
        }
        if !self.is_terminated() {
            self.build(OpKind::Yield, &[], &[], 0);
        }
        self.frames.pop();
        self.continue_after(op);
    }

    // ---- throw ---------------------------------------------------------------------------

    /// `cir.alloc.exception SIZE -> !cir.ptr<ty>`: storage for the object to throw.
    pub fn alloc_exception(&mut self, ty: Type, size: u64) -> Value {
        let pty = self.ctx.types.ptr(ty);
        self.build_value(OpKind::AllocException { size }, &[], pty)
    }

    /// `cir.free.exception %obj`: releases storage from [`FunctionBuilder::alloc_exception`]
    /// whose object's construction threw (emit it in an `eh` cleanup around the
    /// construction, as clang's `FreeException` cleanup does).
    pub fn free_exception(&mut self, obj: Value) {
        self.build(OpKind::FreeException, &[obj], &[], 0);
    }

    /// `cir.throw %obj, @typeinfo[, @dtor]` (after the object was constructed in storage
    /// from [`FunctionBuilder::alloc_exception`]).
    pub fn emit_throw(&mut self, obj: Value, typeinfo: Symbol, dtor: Option<Symbol>) {
        self.build(
            OpKind::Throw {
                type_info: typeinfo.into(),
                dtor: dtor.into(),
            },
            &[obj],
            &[],
            0,
        );
    }

    /// `cir.throw` with no operands: rethrow the exception being handled.
    pub fn emit_rethrow(&mut self) {
        self.build(
            OpKind::Throw {
                type_info: None.into(),
                dtor: None.into(),
            },
            &[],
            &[],
            0,
        );
    }

    // ---- branches ------------------------------------------------------------------------

    fn cleanups_until(&self, stop: impl Fn(&FrameKind, &Function) -> bool) -> Option<Vec<Op>> {
        let mut out = Vec::new();
        for f in self.frames.iter().rev() {
            if stop(&f.kind, &self.func) {
                return Some(out);
            }
            if let FrameKind::Cleanup { op } = f.kind {
                out.push(op);
            }
        }
        None
    }

    /// The cleanups of every enclosing frame, innermost first.
    fn all_cleanups(&self) -> Vec<Op> {
        self.frames
            .iter()
            .rev()
            .filter_map(|f| match f.kind {
                FrameKind::Cleanup { op } => Some(op),
                _ => None,
            })
            .collect()
    }

    /// Emits a branch op that leaves the scopes of `cleanups` (innermost first) and notes it.
    fn emit_exit(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        branch: BranchKind,
        cleanups: Vec<Op>,
    ) {
        let op = self.build(kind, operands, &[], 0);
        self.exits.push(BranchExit {
            op,
            kind: branch,
            cleanups,
        });
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
            self.fail("break outside a loop or switch");
            return;
        };
        self.emit_exit(OpKind::Break, &[], BranchKind::Break, cleanups);
    }

    /// `cir.continue`: next iteration of the innermost loop.
    pub fn emit_continue(&mut self) {
        let Some(cleanups) = self.cleanups_until(Self::is_loop_body) else {
            self.fail("continue outside a loop");
            return;
        };
        self.emit_exit(OpKind::Continue, &[], BranchKind::Continue, cleanups);
    }

    /// `cir.return [%v]`: runs every enclosing cleanup on the way out.
    pub fn emit_return(&mut self, value: Option<Value>) {
        let cleanups = self.all_cleanups();
        let operands: Vec<Value> = value.into_iter().collect();
        self.emit_exit(OpKind::Return, &operands, BranchKind::Return, cleanups);
    }

    /// `cir.goto "label"`.
    pub fn emit_goto(&mut self, label: &str) {
        let label = self.ctx.sym(label);
        let cleanups = self.all_cleanups();
        self.emit_exit(
            OpKind::Goto { label },
            &[],
            BranchKind::Goto(label),
            cleanups,
        );
    }

    /// Starts a new block beginning with `cir.label "label"`; the current block falls
    /// through to it with `cir.br` unless it already ends in a terminator.
    pub fn emit_label(&mut self, label: &str) {
        let label = self.ctx.sym(label);
        let region = self.func.layout.block_region(self.block).expect("placed");
        let b = self.func.dfg.make_block();
        self.func.layout.append_block(region, b);
        if !self.is_terminated() {
            self.build_branch(OpKind::Br, &[], &[(b, &[])]);
        }
        self.block = b;
        self.build(OpKind::Label { name: label }, &[], &[], 0);
    }

    /// `cir.unreachable`.
    pub fn emit_unreachable(&mut self) {
        self.build(OpKind::Unreachable, &[], &[], 0);
    }

    // ---- helpers for front ends ------------------------------------------------------------

    /// The `!cir.ptr<T>` type.
    pub fn ptr_type(&mut self, t: Type) -> Type {
        self.ctx.types.ptr(t)
    }

    /// Whether a type is a record.
    pub fn is_record(&self, t: Type) -> bool {
        matches!(self.ctx.types.get(t), TypeData::Record(_))
    }

    /// Moves the ops of the single-block body (region 0) of `op` out of it, deleting `op`,
    /// when nothing inside may throw. For ops whose other regions run only for exceptions:
    /// a `cir.try` whose handlers are only `terminate`/`filter`, or an `eh` cleanup scope.
    /// Returns whether it did.
    pub fn unwrap_if_nothrow(&mut self, op: Op) -> bool {
        let regions = self.func.dfg.regions(op).to_vec();
        let Some(&body) = regions.first() else {
            return false;
        };
        // Only a single-block body without nested may-throw ops.
        let blocks: Vec<Block> = self.func.layout.blocks(body).collect();
        if blocks.len() != 1 {
            return false;
        }
        let mut may_throw = false;
        self.func.visit_region_in_order(body, &mut |v| {
            if let ehir_core::Visit::Op(inner) = v
                && self.func.dfg.kind(inner).may_throw()
            {
                may_throw = true;
            }
        });
        if may_throw {
            return false;
        }
        let block = blocks[0];
        let ops: Vec<Op> = self.func.layout.ops(block).collect();
        for inner in ops {
            self.func.layout.remove_op(inner);
            if matches!(self.func.dfg.kind(inner), OpKind::Yield) {
                continue;
            }
            self.func.layout.insert_op_before(inner, op);
        }
        self.func.layout.remove_op(op);
        true
    }
}
