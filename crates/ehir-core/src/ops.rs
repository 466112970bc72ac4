//! Ops as data: [`OpKind`] names an op and carries its small fixed payload; operands,
//! results, successors and regions live in the [`crate::DataFlowGraph`].
//!
//! Operand, successor and region conventions of every op are listed on its variant; the
//! facts about each op's shape (name, phases, counts, token slots) are its row of the op
//! table ([`table`]).
//! "opt" marks an operand that may be absent; the op's payload says which are present
//! when that is not clear from the count.

use crate::entities::{Attr, Extra, Symbol, Type};
use crate::function::Phase;
use cranelift_entity::packed_option::PackedOption;

pub mod table;

pub use table::{Count, CountRange, MayThrow, MissingList, OpCode, OpInfo, TokenSlot, TokenType};

/// What an op is. `Copy` and at most 16 bytes; variable-length payload goes in an [`Extra`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum OpKind {
    // ---- common to all phases -------------------------------------------------------
    /// `cir.return [%v : T]`. Operands: the returned value, if any.
    Return,
    /// `%p = cir.alloca T, !cir.ptr<T>, [%n : I,] ["name"(, init)(, cleanup_dest_slot)]
    /// [align(N)]`. Operands: for a dynamic allocation (`__builtin_alloca`, a
    /// variable-length array), the number of `T`s, an integer; it stays where it is written
    /// (it is not hoisted to the entry block). Result: the pointer.
    Alloca {
        /// The type of the allocated object (the pointee of the result).
        alloc_ty: Type,
        /// The variable's source name (`"x"`), for printing and diagnostics.
        name: Symbol,
        /// The variable is initialized at its declaration (`init`).
        init: bool,
        /// Alignment in bytes; 0 when not written (the type's).
        align: u16,
        /// The slot `flatten-cfg` makes for the destination of a normal cleanup shared by
        /// several exits (upstream's `cleanup_dest_slot` flag).
        dest_slot: bool,
    },
    /// `%v = cir.load [volatile] [align(N)] %p : !cir.ptr<T>, T`. Operands: pointer.
    Load {
        /// Alignment in bytes; 0 when not written (the type's).
        align: u16,
        /// A volatile access.
        volatile: bool,
    },
    /// `cir.store [volatile] [align(N)] %v, %p : T, !cir.ptr<T>`. Operands: value, pointer.
    Store {
        /// Alignment in bytes; 0 when not written (the type's).
        align: u16,
        /// A volatile access.
        volatile: bool,
    },
    /// `%v = cir.const ATTR`. Result type is the attribute's type.
    Const {
        /// The constant; its type is the result type.
        value: Attr,
    },
    /// `[%r =] cir.call [nothrow|exception] @f(%args) : (T...) -> R`; indirect calls
    /// (`callee` none) take the callee pointer as operand 0.
    Call {
        /// The callee's symbol; none for an indirect call.
        callee: PackedOption<Symbol>,
        /// The callee's `!cir.func` type.
        sig: Type,
        /// Whether the call may throw.
        flags: CallFlags,
    },
    /// `%r = cir.add %a, %b : T` (one op per operator, upstream's spelling; shifts are
    /// `cir.shift(left|right, ...)`; the older `cir.binop(kind, %a, %b) : T` is read too)
    Binary(BinaryOp),
    /// `%r = cir.unary(kind, %a) : T, T`
    Unary(UnaryOp),
    /// `%r = cir.cmp pred %a, %b : T` (result `!cir.bool`)
    Cmp(CmpPredicate),
    /// `%r = cir.cast kind %v : T -> U`
    Cast(CastKind),
    /// `%r = cir.select if %c then %a else %b : (!cir.bool, T, T) -> T`
    Select,
    /// `%r = cir.ptr_stride %p, %n : (!cir.ptr<T>, I) -> !cir.ptr<T>`
    PtrStride,
    /// `%r = cir.get_member %p[index] {name = "x"} : !cir.ptr<R> -> !cir.ptr<T>`
    GetMember {
        /// The field's index in the record.
        index: u32,
        /// The field's source name.
        name: Symbol,
    },
    /// `%r = cir.base_class_addr %p : !cir.ptr<D> [nonnull] [offset] -> !cir.ptr<B>`
    BaseClassAddr {
        /// Byte offset of the base subobject in the derived object.
        offset: u32,
        /// The pointer is known not to be null (no null check).
        nonnull: bool,
    },
    /// `%r = cir.derived_class_addr %p : !cir.ptr<B> [nonnull] [offset] -> !cir.ptr<D>`
    DerivedClassAddr {
        /// Byte offset of the base subobject in the derived object.
        offset: u32,
        /// The pointer is known not to be null (no null check).
        nonnull: bool,
    },
    /// `%r = cir.get_global @g : !cir.ptr<T>`
    GetGlobal {
        /// The global or function whose address is taken.
        symbol: Symbol,
    },
    /// `%r = cir.alloc.exception N -> !cir.ptr<T>`: storage for a thrown object of N bytes.
    AllocException {
        /// Size of the thrown object in bytes.
        size: u64,
    },
    /// `cir.free.exception %p : !cir.ptr<T>`: releases the storage of `cir.alloc.exception`
    /// when the thrown object's initialization throws (it is never thrown then).
    FreeException,
    /// `cir.lifetime.start %p : !cir.ptr<T>`: the object at `%p` begins its lifetime
    /// (upstream's marker; no effect on ehir's semantics, dropped by `emit-llvm`).
    LifetimeStart,
    /// `cir.lifetime.end %p : !cir.ptr<T>`: the object at `%p` ends its lifetime.
    LifetimeEnd,
    /// `cir.try_throw %obj, %typeinfo, %dtor : !cir.ptr<T>, !cir.ptr<U>, !cir.ptr<V>
    /// ^normal, ^unwind` — upstream's flat throw of the object at `%obj` whose typeinfo
    /// and destructor are values (pointers to the typeinfo object and to the destructor,
    /// or null): operands `[obj, typeinfo, dtor]`, successors `[normal, unwind]`; the
    /// normal destination is never reached. The Itanium lowering makes it a `cir.try_call`
    /// of `__cxa_throw`; the MSVC lowering a `cir.throw ... unwind` (its typeinfo and
    /// destructor must then be known symbols).
    TryThrow,
    /// Structured: `cir.throw [%obj : !cir.ptr<T>, @typeinfo[, @dtor]]` (no operand =
    /// rethrow). In the flat phases it may carry one successor: its unwind destination.
    Throw {
        /// The typeinfo object of the thrown type; none for a rethrow.
        type_info: PackedOption<Symbol>,
        /// The thrown object's destructor, if it has one.
        dtor: PackedOption<Symbol>,
    },
    /// `cir.resume [%tok : !cir.eh_token]`: continue unwinding the current exception.
    Resume,
    /// `cir.unreachable`
    Unreachable,
    /// `cir.br ^bb(args)`. One successor.
    Br,
    /// `cir.brcond %c ^t(args), ^f(args)`. Operands: condition; successors: true, false.
    BrCond,
    /// `cir.switch.flat %v : T, ^default [ N: ^bb, ... ]`. Operands: the value;
    /// successors: default, then one per case value in `cases` (an [`ExtraData::Cases`]).
    SwitchFlat {
        /// The case values ([`ExtraData::Cases`]), one per successor after the default.
        cases: Extra,
    },
    /// `cir.indirect_br %addr : !cir.ptr<!void>, [^bb...]`. Not allowed in a cleanup scope.
    IndirectBr,
    /// `%a = cir.block_address <@fn, "label"> : !cir.ptr<!void>`
    BlockAddress {
        /// The label (`cir.label`) whose block's address is taken.
        label: Symbol,
    },

    // ---- structured -------------------------------------------------------------------
    /// `cir.scope { ... }` — one region.
    Scope,
    /// `cir.if %c { ... } [else { ... }]` — one or two regions.
    If,
    /// `cir.while { cond } do { body }` — regions: condition, body.
    While,
    /// `cir.do { body } while { cond }` — regions: body, condition.
    DoWhile,
    /// `cir.for : cond { ... } body { ... } step { ... }` — regions: condition, body, step.
    For,
    /// `cir.condition(%c)` — terminates a loop condition region.
    Condition,
    /// `cir.yield [%v...]` — terminates a region, falling through to the parent op.
    Yield,
    /// `cir.break`
    Break,
    /// `cir.continue`
    Continue,
    /// `cir.goto "label"`
    Goto {
        /// The target label's name.
        label: Symbol,
    },
    /// `cir.label "label"` — first op of the block a `cir.goto` targets.
    Label {
        /// The label's name, unique in the function.
        name: Symbol,
    },
    /// `cir.switch (%v : T) { cir.case ... }` — one region holding `cir.case` ops.
    Switch,
    /// `cir.case (equal|anyof|range|default, [values]) { ... }`; values in [`ExtraData::CaseValues`].
    Case {
        /// How the values match.
        kind: CaseKind,
        /// The values ([`ExtraData::CaseValues`]): one for `equal`, several for `anyof`, two (low, high) for `range`, none for `default`.
        values: Extra,
    },
    /// `%r = cir.ternary(%c, true { ... }, false { ... }) : (!cir.bool) -> T`
    Ternary,
    /// `cir.cleanup.scope { body } cleanup normal|eh|all { cleanup }`
    CleanupScope {
        /// Which exits run the cleanup region.
        kind: CleanupKind,
    },
    /// `cir.try { body } catch [type ATTR] { } ... catch all { } unwind { }`;
    /// regions: body then one per handler of [`ExtraData::Handlers`].
    Try {
        /// The handlers, in order ([`ExtraData::Handlers`]).
        handlers: Extra,
    },
    /// `%p = cir.catch_param : T` — first op of a catch handler region.
    CatchParam,
    /// `cir.construct_catch_param KIND %token to %dest [using @thunk] : !cir.ptr<T>` —
    /// upstream's initialization of a catch parameter in a handler that takes the token:
    /// operands `[token, dest]`; KIND (`trivial_copy`, `non_trivial_copy`, ...) as written;
    /// `@thunk` a `(T*, T*) -> ()` copy function marked `cir.eh.catch_copy_thunk`.
    /// Structured: before flattening and before the structured interpreter runs it,
    /// `upstream_catch::expand_construct_catch_params` makes it the ops that build the
    /// parameter (`trivial_copy`, `non_trivial_copy`; other kinds: not supported yet).
    /// Flat (upstream's lowering input, before its `cir.begin_catch`): the Itanium
    /// lowering takes `reference_to_pointer`; the rest is not supported yet.
    ConstructCatchParam {
        /// The construction kind as written (`trivial_copy`, `non_trivial_copy`, ...).
        kind: Symbol,
        /// The copy thunk, if any.
        thunk: PackedOption<Symbol>,
    },
    /// `cir.init_catch_param KIND %exn to %dest : !cir.ptr<X>, !cir.ptr<T>` — upstream's
    /// initialization of a catch parameter from the exception pointer `%exn` that
    /// `cir.begin_catch` yields: operands `[exn, dest]`. KIND as written: `reference`,
    /// `pointer`, `scalar`, `trivial_copy` and `reference_to_record_pointer` build the
    /// parameter here; `non_trivial_copy` and `reference_to_pointer` only complete the
    /// `cir.construct_catch_param` of the same kind on the same `%dest` before it (the
    /// verifier requires one). The ABI lowerings make it loads, stores and casts.
    InitCatchParam {
        /// The initialization kind as written (`reference`, `scalar`, ...).
        kind: Symbol,
    },
    /// `cir.array.ctor(%arr : !cir.ptr<!cir.array<T x N>>) { ^bb0(%e: !cir.ptr<T>): ... } [cleanup { ... }]`
    ArrayCtor,
    /// `cir.array.dtor(%arr : !cir.ptr<!cir.array<T x N>>) { ^bb0(%e: !cir.ptr<T>): ... }`
    ArrayDtor,

    // ---- flat (ABI-agnostic) ------------------------------------------------------------
    /// `[%r =] cir.try_call @f(%args) ^normal, ^unwind : (T...) -> R`; successors:
    /// normal, unwind. Indirect form takes the callee as operand 0.
    TryCall {
        /// The callee's symbol; none for an indirect call.
        callee: PackedOption<Symbol>,
        /// The callee's `!cir.func` type.
        sig: Type,
        /// Whether the call may throw.
        flags: CallFlags,
    },
    /// `%t = cir.eh.initiate [cleanup] : !cir.eh_token` — first op of an unwind destination.
    EhInitiate {
        /// The unwind destination runs cleanups (the landing pad is a cleanup one).
        cleanup: bool,
    },
    /// `cir.eh.dispatch %t : !cir.eh_token [catch (ATTR : T) : ^bb, ..., catch_all|unwind : ^bb]`.
    /// Keys in [`ExtraData::Handlers`]; one successor per key. The token is passed implicitly
    /// to a successor that declares one `!cir.eh_token` parameter.
    EhDispatch {
        /// The dispatch keys, in order, one per successor.
        keys: Extra,
    },
    /// `cir.copy_catch_param %exn to %dest [using @ctor] : !cir.ptr<T>` — a by-value catch
    /// parameter: the object at `%dest` is a copy of the exception object `%exn` (the
    /// pointer of the `cir.catch_param` or `cir.begin_catch` right before it), made by the
    /// copy constructor `@ctor(%dest, %exn)`, bitwise without one; an exception from the
    /// copy calls `std::terminate`. On the Microsoft ABI the runtime makes the copy when it
    /// chooses the handler, before the try block's objects are destroyed: the MSVC
    /// lowering makes `%dest` the catchpad's by-value object slot (the thrower's
    /// CatchableType names the copy constructor). The Itanium lowering does not take it.
    CopyCatchParam {
        /// The copy constructor, if the copy is not bitwise.
        ctor: PackedOption<Symbol>,
    },
    /// `%c = cir.begin_cleanup(%t : !cir.eh_token) : !cir.cleanup_token`
    BeginCleanup,
    /// `cir.end_cleanup(%c : !cir.cleanup_token)`
    EndCleanup,
    /// `%c[, %exn] = cir.begin_catch(%t : !cir.eh_token) : !cir.catch_token[, !cir.ptr<T>]`
    BeginCatch,
    /// `cir.end_catch(%c : !cir.catch_token)`
    EndCatch,
    /// `cir.eh.terminate [%t : !cir.eh_token]` — the exception may not leave: `std::terminate`.
    EhTerminate,
    /// `cir.eh.unexpected %t : !cir.eh_token` — the exception of `%t` breaks a dynamic
    /// exception specification: `std::unexpected` (upstream's op for the block a `filter`
    /// entry of `cir.eh.dispatch` names). ehir's dispatch calls the unexpected handler
    /// itself when the specification is broken, so such a block is never entered at run
    /// time; elsewhere the op calls the handler with an empty specification (whatever the
    /// handler throws is not allowed: `std::bad_exception` is not listed, so it
    /// terminates).
    EhUnexpected,

    // ---- itanium --------------------------------------------------------------------------
    /// `%exn, %sel = cir.eh.landingpad [cleanup] [clauses] : (!cir.ptr<!void>, !u32i)`;
    /// clauses in [`ExtraData::LandingPadClauses`].
    EhLandingPad {
        /// The landing pad is entered for cleanups too (`cleanup`).
        cleanup: bool,
        /// The catch and filter clauses ([`ExtraData::LandingPadClauses`]).
        clauses: Extra,
    },
    /// `%id = cir.eh.typeid @typeinfo : !u32i`
    EhTypeId {
        /// The typeinfo object whose selector value is taken.
        type_info: Symbol,
    },
    /// `cir.resume.flat %exn, %sel` — Itanium's `resume { ptr, i32 }`.
    ResumeFlat,

    // ---- msvc -------------------------------------------------------------------------------
    /// `%cs = cir.catchswitch within none|%parent [^h...] unwind to caller|^bb`. Operands:
    /// parent (opt); successors: handlers, then the unwind destination when `unwind_to_caller`
    /// is false. Result: `!cir.eh_token`.
    CatchSwitch {
        /// Unmatched exceptions leave the function (no unwind successor).
        unwind_to_caller: bool,
    },
    /// `%c = cir.catchpad within %cs [@desc|null, ADJ, %slot|null] : !cir.catch_token`.
    /// Operands: catchswitch token, then the catch object slot when `has_slot`.
    CatchPad {
        /// The TypeDescriptor of the caught type; none for catch-all.
        type_desc: PackedOption<Symbol>,
        /// The catch adjectives (`const`, `volatile`, reference, ...) as the Microsoft runtime encodes them.
        adjectives: u32,
        /// The catch object is copied into a slot (an operand).
        has_slot: bool,
    },
    /// `cir.catchret from %c to ^bb`
    CatchRet,
    /// `%c = cir.cleanuppad within none|%parent : !cir.cleanup_token`. Operands: parent (opt).
    CleanupPad,
    /// `cir.cleanupret from %c unwind to caller|^bb`; successor: the unwind destination, if any.
    CleanupRet,
}

/// Flags of `cir.call` / `cir.try_call`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct CallFlags {
    /// The call cannot throw (`nothrow`).
    pub nothrow: bool,
    /// The seed's `exception` marker: the call may throw (the default; kept for printing).
    pub exception: bool,
    /// The call does not return (upstream's `{noreturn}` attribute on the call).
    pub noreturn: bool,
}

/// Which exits of a `cir.cleanup.scope` run its cleanup region.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CleanupKind {
    /// Normal exits only.
    Normal,
    /// Exceptional exits only (also spelled `eh_only`).
    Eh,
    /// Both.
    All,
}

impl CleanupKind {
    /// Whether normal exits (fallthrough, `break`, `return`, `goto`) run the cleanup.
    pub fn runs_on_normal_exit(self) -> bool {
        matches!(self, CleanupKind::Normal | CleanupKind::All)
    }
    /// Whether an exception leaving the body runs the cleanup.
    pub fn runs_on_eh_exit(self) -> bool {
        matches!(self, CleanupKind::Eh | CleanupKind::All)
    }
    /// The kind as printed (`normal`, `eh`, `all`).
    pub fn name(self) -> &'static str {
        match self {
            CleanupKind::Normal => "normal",
            CleanupKind::Eh => "eh",
            CleanupKind::All => "all",
        }
    }
}

/// A `cir.case` kind.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CaseKind {
    /// Matches one value.
    Equal,
    /// Matches any of its values.
    AnyOf,
    /// Matches values from its first to its second value, both included.
    Range,
    /// Matches what no other case matches.
    Default,
}

impl CaseKind {
    /// The kind as printed (`anyof`).
    pub fn name(self) -> &'static str {
        match self {
            CaseKind::Equal => "equal",
            CaseKind::AnyOf => "anyof",
            CaseKind::Range => "range",
            CaseKind::Default => "default",
        }
    }
}

/// `cir.binop` kinds.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    /// Wrapping addition.
    Add,
    /// Wrapping subtraction.
    Sub,
    /// Wrapping multiplication.
    Mul,
    /// Division, signed or unsigned as the type (truncating; by zero is undefined).
    Div,
    /// Remainder of [`BinaryOp::Div`].
    Rem,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Shift left.
    Shl,
    /// Shift right: arithmetic for signed types, logical for unsigned ones.
    Shr,
}

impl BinaryOp {
    /// Every binary operator.
    pub const ALL: [BinaryOp; 10] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::Shr,
    ];
    /// Upstream ClangIR's op for the operator, which ehir prints: `cir.add %a, %b : T`
    /// for the arithmetic and bitwise ones, `cir.shift(left|right, %a : T, %b : T) -> T`
    /// for the shifts.
    pub fn op_name(self) -> &'static str {
        match self {
            BinaryOp::Add => "cir.add",
            BinaryOp::Sub => "cir.sub",
            BinaryOp::Mul => "cir.mul",
            BinaryOp::Div => "cir.div",
            BinaryOp::Rem => "cir.rem",
            BinaryOp::And => "cir.and",
            BinaryOp::Or => "cir.or",
            BinaryOp::Xor => "cir.xor",
            BinaryOp::Shl | BinaryOp::Shr => "cir.shift",
        }
    }

    /// The operator as read in `cir.binop(kind, ...)` (`add`).
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
        }
    }
}

/// `cir.unary` kinds.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    /// Adds one.
    Inc,
    /// Subtracts one.
    Dec,
    /// Unary `+`: the value itself.
    Plus,
    /// Negation.
    Minus,
    /// Bitwise not (logical not on `!cir.bool`).
    Not,
}

impl UnaryOp {
    /// Every unary operator.
    pub const ALL: [UnaryOp; 5] = [
        UnaryOp::Inc,
        UnaryOp::Dec,
        UnaryOp::Plus,
        UnaryOp::Minus,
        UnaryOp::Not,
    ];
    /// The operator as printed in `cir.unary(kind, ...)` (`inc`).
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Inc => "inc",
            UnaryOp::Dec => "dec",
            UnaryOp::Plus => "plus",
            UnaryOp::Minus => "minus",
            UnaryOp::Not => "not",
        }
    }
}

/// `cir.cmp` predicates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CmpPredicate {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Less than (signed or unsigned as the operands' type).
    Lt,
    /// Less than or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Ge,
}

impl CmpPredicate {
    /// Every predicate.
    pub const ALL: [CmpPredicate; 6] = [
        CmpPredicate::Eq,
        CmpPredicate::Ne,
        CmpPredicate::Lt,
        CmpPredicate::Le,
        CmpPredicate::Gt,
        CmpPredicate::Ge,
    ];
    /// The predicate as printed in `cir.cmp pred ...` (`eq`).
    pub fn name(self) -> &'static str {
        match self {
            CmpPredicate::Eq => "eq",
            CmpPredicate::Ne => "ne",
            CmpPredicate::Lt => "lt",
            CmpPredicate::Le => "le",
            CmpPredicate::Gt => "gt",
            CmpPredicate::Ge => "ge",
        }
    }
}

/// `cir.cast` kinds (upstream ClangIR names).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CastKind {
    /// Integer to `!cir.bool` (non-zero is true).
    IntToBool,
    /// `!cir.bool` to integer (0 or 1).
    BoolToInt,
    /// Integer to integer of another width or signedness (truncate or extend).
    Integral,
    /// Floating point to integer (truncating toward zero).
    FloatToInt,
    /// Integer to floating point.
    IntToFloat,
    /// Floating point to the other floating-point type.
    Floating,
    /// Floating point to `!cir.bool` (non-zero is true).
    FloatToBool,
    /// `!cir.bool` to floating point (0.0 or 1.0).
    BoolToFloat,
    /// Pointer to `!cir.bool` (non-null is true).
    PtrToBool,
    /// Pointer to integer (its address).
    PtrToInt,
    /// Integer to pointer.
    IntToPtr,
    /// Pointer to pointer of another pointee type (same address).
    Bitcast,
    /// Pointer to an array to pointer to its first element.
    ArrayToPtrDecay,
    /// Null constant to a pointer type.
    NullToPtr,
}

impl CastKind {
    /// Every cast kind.
    pub const ALL: [CastKind; 14] = [
        CastKind::IntToBool,
        CastKind::BoolToInt,
        CastKind::Integral,
        CastKind::FloatToInt,
        CastKind::IntToFloat,
        CastKind::Floating,
        CastKind::FloatToBool,
        CastKind::BoolToFloat,
        CastKind::PtrToBool,
        CastKind::PtrToInt,
        CastKind::IntToPtr,
        CastKind::Bitcast,
        CastKind::ArrayToPtrDecay,
        CastKind::NullToPtr,
    ];
    /// The kind as printed after `cir.cast` (`int_to_bool`).
    pub fn name(self) -> &'static str {
        match self {
            CastKind::IntToBool => "int_to_bool",
            CastKind::BoolToInt => "bool_to_int",
            CastKind::Integral => "integral",
            CastKind::FloatToInt => "float_to_int",
            CastKind::IntToFloat => "int_to_float",
            CastKind::Floating => "floating",
            CastKind::FloatToBool => "float_to_bool",
            CastKind::BoolToFloat => "bool_to_float",
            CastKind::PtrToBool => "ptr_to_bool",
            CastKind::PtrToInt => "ptr_to_int",
            CastKind::IntToPtr => "int_to_ptr",
            CastKind::Bitcast => "bitcast",
            CastKind::ArrayToPtrDecay => "array_to_ptrdecay",
            CastKind::NullToPtr => "null_to_ptr",
        }
    }
}

/// One handler of a `cir.try`, or one key of a `cir.eh.dispatch`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum HandlerKey {
    /// Catches exceptions of the type whose typeinfo the attribute names
    /// (`#cir.global_view<@_ZTIi>`).
    Catch(Attr),
    /// `catch all` / `catch_all`
    CatchAll,
    /// `unwind`: no handler matched; keep unwinding.
    Unwind,
    /// `filter [ATTR, ...]` (the attribute is a list of typeinfo `#cir.global_view`s; empty
    /// for `throw()`): a dynamic exception specification. An exception whose type is not
    /// listed unwinds to here and calls `std::unexpected` (C++14 semantics); a listed one
    /// keeps unwinding. The handler region holds only `cir.unreachable`.
    Filter(Attr),
    /// `terminate`: a `noexcept` boundary. An exception that would pass it calls
    /// `std::terminate`, as libstdc++ does (`docs/notes/noexcept-gxx-behaviour.md`): when
    /// no outer frame would catch it, during the search phase before anything unwinds;
    /// otherwise frames nearer the throw unwind first and the noexcept frame's own
    /// cleanups between the call and the boundary do not run.
    /// The handler region holds only `cir.unreachable`.
    Terminate,
}

/// One clause of a `cir.eh.landingpad`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum LandingPadClause {
    /// `@typeinfo`, or `null` for catch-all.
    Catch(Option<Symbol>),
    /// `filter [@a, @b]`: an exception specification; empty means `throw()`.
    Filter(Vec<Symbol>),
}

/// Variable-length op payloads, referenced by [`Extra`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ExtraData {
    /// `cir.try` handlers, `cir.eh.dispatch` keys.
    Handlers(Vec<HandlerKey>),
    /// `cir.switch.flat` case values.
    Cases(Vec<i128>),
    /// `cir.case` values.
    CaseValues(Vec<Attr>),
    /// `cir.eh.landingpad` clauses.
    LandingPadClauses(Vec<LandingPadClause>),
}

/// The phases an op may appear in.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PhaseSet {
    /// Any phase.
    All,
    /// Structured only.
    Structured,
    /// Flat, Itanium and MSVC (everything after `flatten-cfg`).
    Flattened,
    /// Flat only (ABI-agnostic EH ops).
    Flat,
    /// Structured and flat: `cir.begin_catch`/`cir.end_catch`, which upstream's structured
    /// catch handlers hold (inside a `cir.try` handler region) and flat catch blocks begin
    /// and end with.
    StructuredOrFlat,
    /// Itanium only.
    Itanium,
    /// MSVC only.
    Msvc,
}

impl PhaseSet {
    /// Whether an op allowed in this set may appear in a function at `phase`.
    pub fn contains(self, phase: Phase) -> bool {
        match self {
            PhaseSet::All => true,
            PhaseSet::Structured => phase == Phase::Structured,
            PhaseSet::Flattened => phase != Phase::Structured,
            PhaseSet::Flat => phase == Phase::Flat,
            PhaseSet::StructuredOrFlat => matches!(phase, Phase::Structured | Phase::Flat),
            PhaseSet::Itanium => phase == Phase::Itanium,
            PhaseSet::Msvc => phase == Phase::Msvc,
        }
    }
}

impl OpKind {
    /// The callee symbol of a direct call or try_call.
    pub fn callee(&self) -> Option<Symbol> {
        match self {
            OpKind::Call { callee, .. } | OpKind::TryCall { callee, .. } => callee.expand(),
            _ => None,
        }
    }

    /// The variable-length payload the op refers to, if its kind has one.
    pub fn extra(&self) -> Option<Extra> {
        let mut kind = *self;
        kind.extra_mut().map(|e| *e)
    }

    /// The variable-length payload the op refers to, to point it elsewhere: the one list of
    /// the kinds that have one.
    pub fn extra_mut(&mut self) -> Option<&mut Extra> {
        match self {
            OpKind::SwitchFlat { cases } => Some(cases),
            OpKind::Case { values, .. } => Some(values),
            OpKind::Try { handlers } => Some(handlers),
            OpKind::EhDispatch { keys } => Some(keys),
            OpKind::EhLandingPad { clauses, .. } => Some(clauses),
            _ => None,
        }
    }
}
