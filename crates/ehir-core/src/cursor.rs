//! A cursor for building and editing a function: it points before an op or at the end of
//! a block, and ops built through it are inserted there. Its typed inserters (`br`,
//! `try_call`, `eh_initiate`, `switch_flat`, ...) are the one way passes and front ends
//! make ops; each knows its op's operand, result and successor layout.

use crate::entities::{Attr, Block, Loc, Op, Region, Symbol, Type, Value};
use crate::function::Function;
use crate::ops::{
    BinaryOp, CallFlags, CastKind, CleanupKind, CmpPredicate, ExtraData, HandlerKey,
    LandingPadClause, OpKind, UnaryOp,
};
use crate::types::CommonTypes;

/// Where the cursor inserts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CursorPosition {
    /// Nowhere: ops are made but not placed.
    Nowhere,
    /// Before this op.
    Before(Op),
    /// At the end of this block.
    End(Block),
}

/// Builds and edits a function.
pub struct FuncCursor<'f> {
    /// The function being edited.
    pub func: &'f mut Function,
    pos: CursorPosition,
    loc: Loc,
    types: CommonTypes,
}

impl<'f> FuncCursor<'f> {
    /// A cursor at the end of `func`'s entry block (nowhere for a declaration); `types` are
    /// the module's common types (token types for the results of EH ops).
    pub fn new(func: &'f mut Function, types: &CommonTypes) -> Self {
        let pos = func
            .entry_block()
            .map_or(CursorPosition::Nowhere, CursorPosition::End);
        Self::at(func, types, pos)
    }

    /// A cursor at `pos` in `func`.
    pub fn at(func: &'f mut Function, types: &CommonTypes, pos: CursorPosition) -> Self {
        FuncCursor {
            func,
            pos,
            loc: Loc::NONE,
            types: *types,
        }
    }

    /// A cursor at the end of `block`.
    pub fn at_end(func: &'f mut Function, types: &CommonTypes, block: Block) -> Self {
        Self::at(func, types, CursorPosition::End(block))
    }

    /// A cursor before `op`.
    pub fn before(func: &'f mut Function, types: &CommonTypes, op: Op) -> Self {
        Self::at(func, types, CursorPosition::Before(op))
    }

    /// The same cursor, giving the ops it builds the location `loc`.
    pub fn with_loc(mut self, loc: Loc) -> Self {
        self.loc = loc;
        self
    }

    /// Ops built from now on get this location.
    pub fn set_loc(&mut self, loc: Loc) {
        self.loc = loc;
    }

    /// The location ops built now get.
    pub fn loc(&self) -> Loc {
        self.loc
    }

    /// Where the cursor inserts.
    pub fn position(&self) -> CursorPosition {
        self.pos
    }

    /// Insert at `pos` from now on.
    pub fn set_position(&mut self, pos: CursorPosition) {
        self.pos = pos;
    }

    /// Insert at the end of `block` from now on.
    pub fn goto_end(&mut self, block: Block) {
        self.pos = CursorPosition::End(block);
    }

    /// Insert before `op` from now on.
    pub fn goto_before(&mut self, op: Op) {
        self.pos = CursorPosition::Before(op);
    }

    /// Insert right after `op` from now on (`op` must be placed; an unplaced op leaves the
    /// cursor where it was).
    pub fn goto_after(&mut self, op: Op) {
        if let Some(next) = self.func.layout.next_op(op) {
            self.pos = CursorPosition::Before(next);
        } else if let Some(block) = self.func.layout.op_block(op) {
            self.pos = CursorPosition::End(block);
        }
    }

    /// The block the cursor is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.pos {
            CursorPosition::Nowhere => None,
            CursorPosition::Before(op) => self.func.layout.op_block(op),
            CursorPosition::End(b) => Some(b),
        }
    }

    /// Places an existing (unplaced) op at the cursor (nowhere: leaves it unplaced).
    #[inline]
    pub fn insert(&mut self, op: Op) {
        match self.pos {
            CursorPosition::Nowhere => {}
            CursorPosition::Before(before) => self.func.layout.insert_op_before(op, before),
            CursorPosition::End(b) => self.func.layout.append_op(op, b),
        }
    }

    /// Makes an op and places it at the cursor.
    #[inline]
    pub fn build(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        successors: &[(Block, &[Value])],
        num_regions: usize,
    ) -> Op {
        let op = self.func.dfg.make_op(
            kind,
            operands,
            result_types,
            successors,
            num_regions,
            self.loc,
        );
        self.insert(op);
        op
    }

    /// Builds an op with exactly one result and returns the result.
    #[inline]
    pub fn build_value(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.build(kind, operands, &[ty], &[], 0);
        self.func.dfg.result(op)
    }

    /// Creates a block at the end of `region` (no parameters).
    pub fn append_block(&mut self, region: Region) -> Block {
        let b = self.func.dfg.make_block();
        self.func.layout.append_block(region, b);
        b
    }

    /// Creates an empty region-entry block for each region of `op` and returns them.
    pub fn entry_blocks(&mut self, op: Op) -> Vec<Block> {
        let regions = self.func.dfg.regions(op).to_vec();
        regions.into_iter().map(|r| self.append_block(r)).collect()
    }
}

/// Typed inserters: one method per op that passes and front ends build, each making the
/// op with the operand, result, successor and region layout its [`OpKind`] variant
/// documents and placing it at the cursor. Results of token type get the module's token
/// types from the [`CommonTypes`] the cursor was made with.
impl FuncCursor<'_> {
    #[inline]
    fn op(&mut self, kind: OpKind, operands: &[Value], results: &[Type]) -> Op {
        self.build(kind, operands, results, &[], 0)
    }

    #[inline]
    fn terminator(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        successors: &[(Block, &[Value])],
    ) -> Op {
        self.build(kind, operands, results, successors, 0)
    }

    #[inline]
    fn value(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.op(kind, operands, &[ty]);
        self.func.dfg.result(op)
    }

    /// Makes a region op with `regions` regions, each with an empty entry block, and returns
    /// the op and those blocks.
    fn region_op(&mut self, kind: OpKind, operands: &[Value], regions: usize) -> (Op, Vec<Block>) {
        let op = self.build(kind, operands, &[], &[], regions);
        let blocks = self.entry_blocks(op);
        (op, blocks)
    }

    /// `cir.scope { ^entry }`: the op and its entry block.
    pub fn scope(&mut self) -> (Op, Block) {
        let (op, blocks) = self.region_op(OpKind::Scope, &[], 1);
        (op, blocks[0])
    }

    /// `cir.scope` whose region is the existing (detached) `region`.
    pub fn scope_of(&mut self, region: Region) -> Op {
        let op = self.build(OpKind::Scope, &[], &[], &[], 0);
        self.func.dfg.attach_region(op, region);
        op
    }

    /// `cir.while { cond } do { body }`: the op, the condition and the body entry blocks.
    pub fn while_loop(&mut self) -> (Op, Block, Block) {
        let (op, blocks) = self.region_op(OpKind::While, &[], 2);
        (op, blocks[0], blocks[1])
    }

    /// `cir.do { body } while { cond }`: the op, the body and the condition entry blocks.
    pub fn do_while(&mut self) -> (Op, Block, Block) {
        let (op, blocks) = self.region_op(OpKind::DoWhile, &[], 2);
        (op, blocks[0], blocks[1])
    }

    /// `cir.cleanup.scope { body } cleanup KIND { cleanup }`: the op, the body and the
    /// cleanup entry blocks.
    pub fn cleanup_scope(&mut self, kind: CleanupKind) -> (Op, Block, Block) {
        let (op, blocks) = self.region_op(OpKind::CleanupScope { kind }, &[], 2);
        (op, blocks[0], blocks[1])
    }

    /// `cir.yield [%v...]`.
    pub fn yield_values(&mut self, values: &[Value]) -> Op {
        self.terminator(OpKind::Yield, values, &[], &[])
    }

    /// `cir.condition(%cond)`.
    pub fn condition(&mut self, cond: Value) -> Op {
        self.terminator(OpKind::Condition, &[cond], &[], &[])
    }

    /// `%p = cir.alloca T, ptr_ty, ["name"(, init)] [align(N)]`.
    #[inline]
    pub fn alloca(
        &mut self,
        alloc_ty: Type,
        ptr_ty: Type,
        name: Symbol,
        init: bool,
        align: u16,
    ) -> Value {
        let kind = OpKind::Alloca {
            alloc_ty,
            name,
            init,
            align,
            dest_slot: false,
        };
        self.value(kind, &[], ptr_ty)
    }

    /// `%p = cir.alloca !s32i, !cir.ptr<!s32i>, ["name", cleanup_dest_slot]`: the slot of
    /// a normal cleanup's destination.
    pub fn dest_slot_alloca(&mut self, alloc_ty: Type, ptr_ty: Type, name: Symbol) -> Value {
        let kind = OpKind::Alloca {
            alloc_ty,
            name,
            init: false,
            align: 0,
            dest_slot: true,
        };
        self.value(kind, &[], ptr_ty)
    }

    /// `%p = cir.alloca T, ptr_ty, %count : I, ["name"] [align(N)]`: `count` `T`s
    /// allocated where the op is.
    #[inline]
    pub fn dynamic_alloca(
        &mut self,
        alloc_ty: Type,
        ptr_ty: Type,
        count: Value,
        name: Symbol,
        align: u16,
    ) -> Value {
        let kind = OpKind::Alloca {
            alloc_ty,
            name,
            init: false,
            align,
            dest_slot: false,
        };
        self.value(kind, &[count], ptr_ty)
    }

    /// `%r = cir.cast kind %value : T -> ty`.
    pub fn cast(&mut self, kind: CastKind, value: Value, ty: Type) -> Value {
        self.value(OpKind::Cast(kind), &[value], ty)
    }

    /// `%r = cir.ptr_stride %ptr, %stride` (the result has the pointer's type).
    pub fn ptr_stride(&mut self, ptr: Value, stride: Value) -> Value {
        let ty = self.func.dfg.value_type(ptr);
        self.value(OpKind::PtrStride, &[ptr, stride], ty)
    }

    /// `%r = cir.binop(kind, %lhs, %rhs)` (the result has the operands' type).
    pub fn binop(&mut self, kind: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let ty = self.func.dfg.value_type(lhs);
        self.value(OpKind::Binary(kind), &[lhs, rhs], ty)
    }

    /// `cir.return [%v]`.
    #[inline]
    pub fn ret(&mut self, value: Option<Value>) -> Op {
        self.terminator(OpKind::Return, value.as_slice(), &[], &[])
    }

    /// `cir.br ^dest(args)`.
    #[inline]
    pub fn br(&mut self, dest: Block, args: &[Value]) -> Op {
        self.terminator(OpKind::Br, &[], &[], &[(dest, args)])
    }

    /// `cir.brcond %cond ^then(then_args), ^else(else_args)`.
    #[inline]
    pub fn brcond(
        &mut self,
        cond: Value,
        (then_dest, then_args): (Block, &[Value]),
        (else_dest, else_args): (Block, &[Value]),
    ) -> Op {
        self.terminator(
            OpKind::BrCond,
            &[cond],
            &[],
            &[(then_dest, then_args), (else_dest, else_args)],
        )
    }

    /// `cir.switch.flat %value, ^default [case: ^dest, ...]` (no block arguments).
    #[inline]
    pub fn switch_flat(&mut self, value: Value, default: Block, cases: &[(i128, Block)]) -> Op {
        let extra = self
            .func
            .dfg
            .make_extra(ExtraData::Cases(cases.iter().map(|&(v, _)| v).collect()));
        let mut successors: Vec<(Block, &[Value])> = Vec::with_capacity(cases.len() + 1);
        successors.push((default, &[]));
        successors.extend(cases.iter().map(|&(_, dest)| (dest, &[] as &[Value])));
        self.terminator(
            OpKind::SwitchFlat { cases: extra },
            &[value],
            &[],
            &successors,
        )
    }

    /// `cir.unreachable`.
    #[inline]
    pub fn unreachable(&mut self) -> Op {
        self.terminator(OpKind::Unreachable, &[], &[], &[])
    }

    /// `%v = cir.const ATTR` of type `ty` (the attribute's type).
    #[inline]
    pub fn constant(&mut self, value: Attr, ty: Type) -> Value {
        self.value(OpKind::Const { value }, &[], ty)
    }

    /// `%v = cir.load %ptr` with result type `ty`.
    #[inline]
    pub fn load(&mut self, ptr: Value, ty: Type) -> Value {
        self.value(
            OpKind::Load {
                align: 0,
                volatile: false,
            },
            &[ptr],
            ty,
        )
    }

    /// `cir.store %value, %ptr`.
    #[inline]
    pub fn store(&mut self, value: Value, ptr: Value) -> Op {
        self.op(
            OpKind::Store {
                align: 0,
                volatile: false,
            },
            &[value, ptr],
            &[],
        )
    }

    /// `%r = cir.cmp pred %lhs, %rhs : T` (result `!cir.bool`).
    #[inline]
    pub fn cmp(&mut self, pred: CmpPredicate, lhs: Value, rhs: Value) -> Value {
        let bool_ty = self.types.bool;
        self.value(OpKind::Cmp(pred), &[lhs, rhs], bool_ty)
    }

    /// `[%r =] cir.call` of `callee` (`None`: indirect, the pointer is `args[0]`).
    pub fn call(
        &mut self,
        callee: Option<Symbol>,
        sig: Type,
        flags: CallFlags,
        args: &[Value],
        result: Option<Type>,
    ) -> Op {
        let kind = OpKind::Call {
            callee: callee.into(),
            sig,
            flags,
        };
        self.op(kind, args, result.as_slice())
    }

    /// `[%r =] cir.try_call @callee(args) ^normal, ^unwind` (`None`: indirect).
    #[allow(clippy::too_many_arguments)]
    pub fn try_call(
        &mut self,
        callee: Option<Symbol>,
        sig: Type,
        flags: CallFlags,
        args: &[Value],
        result: Option<Type>,
        normal: Block,
        unwind: Block,
    ) -> Op {
        let kind = OpKind::TryCall {
            callee: callee.into(),
            sig,
            flags,
        };
        self.terminator(
            kind,
            args,
            result.as_slice(),
            &[(normal, &[]), (unwind, &[])],
        )
    }

    /// `%t = cir.eh.initiate [cleanup] : !cir.eh_token`.
    #[inline]
    pub fn eh_initiate(&mut self, cleanup: bool) -> Value {
        let token = self.types.eh_token;
        self.value(OpKind::EhInitiate { cleanup }, &[], token)
    }

    /// `cir.eh.dispatch %token [key : ^dest, ...]`: one destination per key.
    #[inline]
    pub fn eh_dispatch(&mut self, token: Value, keys: Vec<HandlerKey>, dests: &[Block]) -> Op {
        let keys = self.func.dfg.make_extra(ExtraData::Handlers(keys));
        let successors: Vec<(Block, &[Value])> =
            dests.iter().map(|&dest| (dest, &[] as &[Value])).collect();
        self.terminator(OpKind::EhDispatch { keys }, &[token], &[], &successors)
    }

    /// `%c = cir.begin_cleanup %token : !cir.cleanup_token`.
    #[inline]
    pub fn begin_cleanup(&mut self, token: Value) -> Value {
        let cleanup_token = self.types.cleanup_token;
        self.value(OpKind::BeginCleanup, &[token], cleanup_token)
    }

    /// `cir.end_cleanup %cleanup_token`.
    #[inline]
    pub fn end_cleanup(&mut self, cleanup_token: Value) -> Op {
        self.op(OpKind::EndCleanup, &[cleanup_token], &[])
    }

    /// `%c[, %exn] = cir.begin_catch %token`: the catch token, and the exception pointer
    /// of type `exception_ptr` when one is asked for.
    #[inline]
    pub fn begin_catch(
        &mut self,
        token: Value,
        exception_ptr: Option<Type>,
    ) -> (Value, Option<Value>) {
        let catch_token = self.types.catch_token;
        let results: &[Type] = match exception_ptr {
            Some(ty) => &[catch_token, ty],
            None => &[catch_token],
        };
        let op = self.op(OpKind::BeginCatch, &[token], results);
        let results = self.func.dfg.results(op);
        (results[0], results.get(1).copied())
    }

    /// `cir.end_catch %catch_token`.
    #[inline]
    pub fn end_catch(&mut self, catch_token: Value) -> Op {
        self.op(OpKind::EndCatch, &[catch_token], &[])
    }

    /// `cir.eh.terminate [%token]`.
    #[inline]
    pub fn eh_terminate(&mut self, token: Option<Value>) -> Op {
        self.terminator(OpKind::EhTerminate, token.as_slice(), &[], &[])
    }

    /// `cir.resume [%token]`.
    #[inline]
    pub fn resume(&mut self, token: Option<Value>) -> Op {
        self.terminator(OpKind::Resume, token.as_slice(), &[], &[])
    }

    /// `%exn, %sel = cir.eh.landingpad [cleanup] [clauses]`.
    pub fn eh_landingpad(
        &mut self,
        cleanup: bool,
        clauses: Vec<LandingPadClause>,
    ) -> (Value, Value) {
        let clauses = self
            .func
            .dfg
            .make_extra(ExtraData::LandingPadClauses(clauses));
        let (void_ptr, u32_ty) = (self.types.void_ptr, self.types.u32);
        let op = self.op(
            OpKind::EhLandingPad { cleanup, clauses },
            &[],
            &[void_ptr, u32_ty],
        );
        let results = self.func.dfg.results(op);
        (results[0], results[1])
    }

    /// `%id = cir.eh.typeid @type_info : !u32i`.
    pub fn eh_typeid(&mut self, type_info: Symbol) -> Value {
        let u32_ty = self.types.u32;
        self.value(OpKind::EhTypeId { type_info }, &[], u32_ty)
    }

    /// `cir.resume.flat %exn, %sel`.
    pub fn resume_flat(&mut self, exception: Value, selector: Value) -> Op {
        self.terminator(OpKind::ResumeFlat, &[exception, selector], &[], &[])
    }

    /// `%cs = cir.catchswitch within none|%parent [^handlers] unwind to caller|^unwind`.
    pub fn catchswitch(
        &mut self,
        parent: Option<Value>,
        handlers: &[Block],
        unwind: Option<Block>,
    ) -> Value {
        let mut successors: Vec<(Block, &[Value])> =
            handlers.iter().map(|&h| (h, &[] as &[Value])).collect();
        successors.extend(unwind.map(|u| (u, &[] as &[Value])));
        let token = self.types.eh_token;
        let kind = OpKind::CatchSwitch {
            unwind_to_caller: unwind.is_none(),
        };
        let op = self.terminator(kind, parent.as_slice(), &[token], &successors);
        self.func.dfg.result(op)
    }

    /// `%c = cir.catchpad within %catchswitch [@desc|null, adjectives, %slot|null]`.
    pub fn catchpad(
        &mut self,
        catchswitch: Value,
        type_desc: Option<Symbol>,
        adjectives: u32,
        slot: Option<Value>,
    ) -> Value {
        let catch_token = self.types.catch_token;
        let kind = OpKind::CatchPad {
            type_desc: type_desc.into(),
            adjectives,
            has_slot: slot.is_some(),
        };
        let mut operands = vec![catchswitch];
        operands.extend(slot);
        self.value(kind, &operands, catch_token)
    }

    /// `cir.catchret from %catchpad to ^dest`.
    pub fn catchret(&mut self, catchpad: Value, dest: Block) -> Op {
        self.terminator(OpKind::CatchRet, &[catchpad], &[], &[(dest, &[])])
    }

    /// `%c = cir.cleanuppad within none|%parent`.
    pub fn cleanuppad(&mut self, parent: Option<Value>) -> Value {
        let cleanup_token = self.types.cleanup_token;
        self.value(OpKind::CleanupPad, parent.as_slice(), cleanup_token)
    }

    /// `cir.cleanupret from %cleanuppad unwind to caller|^unwind`.
    pub fn cleanupret(&mut self, cleanuppad: Value, unwind: Option<Block>) -> Op {
        let successors: Vec<(Block, &[Value])> =
            unwind.map(|u| (u, &[] as &[Value])).into_iter().collect();
        self.terminator(OpKind::CleanupRet, &[cleanuppad], &[], &successors)
    }
}

/// Typed inserters for the structured ops front ends build (the builder of `ehir-builder`
/// uses them): region ops, memory with alignment, addresses, throws and structured
/// branches.
impl FuncCursor<'_> {
    /// An op of `kind` with `regions` regions, each with an empty entry block (for ops
    /// without a dedicated inserter: `cir.ternary`, `cir.switch`, `cir.case`,
    /// `cir.array.dtor`, ...): the op and the entry blocks.
    pub fn region_op_with(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        regions: usize,
    ) -> (Op, Vec<Block>) {
        let op = self.build(kind, operands, results, &[], regions);
        let blocks = self.entry_blocks(op);
        (op, blocks)
    }

    /// `cir.if %cond { then } [else { else }]`: the op, the then entry block and the else
    /// entry block when asked for.
    pub fn if_op(&mut self, cond: Value, with_else: bool) -> (Op, Block, Option<Block>) {
        let regions = if with_else { 2 } else { 1 };
        let (op, blocks) = self.region_op_with(OpKind::If, &[cond], &[], regions);
        (op, blocks[0], blocks.get(1).copied())
    }

    /// `cir.for : cond { .. } body { .. } step { .. }`: the op and the three entry blocks
    /// (condition, body, step).
    pub fn for_loop(&mut self) -> (Op, [Block; 3]) {
        let (op, blocks) = self.region_op_with(OpKind::For, &[], &[], 3);
        (op, [blocks[0], blocks[1], blocks[2]])
    }

    /// `cir.try { body }` with the (initially empty) handler list `handlers`: the op and
    /// the body's entry block. Handler regions are attached as handlers are added.
    pub fn try_op(&mut self, handlers: crate::entities::Extra) -> (Op, Block) {
        let (op, blocks) = self.region_op_with(OpKind::Try { handlers }, &[], &[], 1);
        (op, blocks[0])
    }

    /// `%v = cir.load align(N) %ptr` with result type `ty`.
    pub fn load_aligned(&mut self, ptr: Value, ty: Type, align: u16) -> Value {
        let kind = OpKind::Load {
            align,
            volatile: false,
        };
        self.value(kind, &[ptr], ty)
    }

    /// `cir.store align(N) %value, %ptr`.
    pub fn store_aligned(&mut self, value: Value, ptr: Value, align: u16) -> Op {
        let kind = OpKind::Store {
            align,
            volatile: false,
        };
        self.op(kind, &[value, ptr], &[])
    }

    /// `%r = cir.unary(kind, %operand)` (the result has the operand's type).
    pub fn unary(&mut self, kind: UnaryOp, operand: Value) -> Value {
        let ty = self.func.dfg.value_type(operand);
        self.value(OpKind::Unary(kind), &[operand], ty)
    }

    /// `%r = cir.select if %cond then %a else %b` (the result has `%a`'s type).
    pub fn select(&mut self, cond: Value, then_value: Value, else_value: Value) -> Value {
        let ty = self.func.dfg.value_type(then_value);
        self.value(OpKind::Select, &[cond, then_value, else_value], ty)
    }

    /// `%r = cir.get_member %ptr[index] {name}` of result type `ty` (a pointer to the field).
    pub fn get_member(&mut self, ptr: Value, index: u32, name: Symbol, ty: Type) -> Value {
        self.value(OpKind::GetMember { index, name }, &[ptr], ty)
    }

    /// `%r = cir.get_global @symbol : ty` (`ty` is a pointer type).
    pub fn get_global(&mut self, symbol: Symbol, ty: Type) -> Value {
        self.value(OpKind::GetGlobal { symbol }, &[], ty)
    }

    /// `%r = cir.base_class_addr %ptr [offset]` of type `ty`.
    pub fn base_class_addr(&mut self, ptr: Value, offset: u32, nonnull: bool, ty: Type) -> Value {
        self.value(OpKind::BaseClassAddr { offset, nonnull }, &[ptr], ty)
    }

    /// `%r = cir.derived_class_addr %ptr [offset]` of type `ty`.
    pub fn derived_class_addr(
        &mut self,
        ptr: Value,
        offset: u32,
        nonnull: bool,
        ty: Type,
    ) -> Value {
        self.value(OpKind::DerivedClassAddr { offset, nonnull }, &[ptr], ty)
    }

    /// `%p = cir.alloc.exception SIZE -> ty`.
    pub fn alloc_exception(&mut self, size: u64, ty: Type) -> Value {
        self.value(OpKind::AllocException { size }, &[], ty)
    }

    /// `cir.free.exception %ptr`.
    pub fn free_exception(&mut self, ptr: Value) -> Op {
        self.op(OpKind::FreeException, &[ptr], &[])
    }

    /// `cir.throw %obj, @typeinfo[, @dtor]`, or `cir.throw` (rethrow) without an object.
    pub fn throw(&mut self, thrown: Option<(Value, Symbol)>, dtor: Option<Symbol>) -> Op {
        let kind = OpKind::Throw {
            type_info: thrown.map(|(_, ti)| ti).into(),
            dtor: dtor.into(),
        };
        let operands: Vec<Value> = thrown.map(|(obj, _)| obj).into_iter().collect();
        self.terminator(kind, &operands, &[], &[])
    }

    /// `%p = cir.catch_param : ty`.
    pub fn catch_param(&mut self, ty: Type) -> Value {
        self.value(OpKind::CatchParam, &[], ty)
    }

    /// `cir.copy_catch_param %exn to %dest [using @ctor] : T`.
    pub fn copy_catch_param(&mut self, exn: Value, dest: Value, ctor: Option<Symbol>) -> Op {
        let kind = OpKind::CopyCatchParam { ctor: ctor.into() };
        self.op(kind, &[exn, dest], &[])
    }

    /// `cir.label "name"`.
    pub fn label(&mut self, name: Symbol) -> Op {
        self.op(OpKind::Label { name }, &[], &[])
    }

    /// `cir.goto "label"`.
    pub fn goto(&mut self, label: Symbol) -> Op {
        self.terminator(OpKind::Goto { label }, &[], &[], &[])
    }

    /// `cir.break`.
    pub fn break_op(&mut self) -> Op {
        self.terminator(OpKind::Break, &[], &[], &[])
    }

    /// `cir.continue`.
    pub fn continue_op(&mut self) -> Op {
        self.terminator(OpKind::Continue, &[], &[], &[])
    }
}
