//! A small model of LLVM IR text: just the types, constants, instructions and module items
//! that ehir emits. [`crate::writer`] prints it; nothing here knows about CIR.

/// An LLVM type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Ty {
    /// `void`.
    Void,
    /// `iN`
    Int(u32),
    /// `float` (IEEE single).
    Float,
    /// `double` (IEEE double).
    Double,
    /// The opaque pointer `ptr`.
    Ptr,
    /// `ptr addrspace(N)`: an opaque pointer in the target address space N (not 0).
    PtrIn(u32),
    /// `[N x T]`
    Array(u64, Box<Ty>),
    /// `<N x T>`
    Vector(u64, Box<Ty>),
    /// A literal struct `{ T, U }`.
    Struct(Vec<Ty>),
    /// A named struct `%name`.
    Named(String),
    /// `token`: what the funclet pads of the Microsoft EH model produce.
    Token,
}

impl Ty {
    /// `i1`.
    pub fn i1() -> Ty {
        Ty::Int(1)
    }
    /// `i8`.
    pub fn i8() -> Ty {
        Ty::Int(8)
    }
    /// `i32`.
    pub fn i32() -> Ty {
        Ty::Int(32)
    }
    /// `i64`.
    pub fn i64() -> Ty {
        Ty::Int(64)
    }
    /// `{ ptr, i32 }`: what a `landingpad` produces and `resume` consumes.
    pub fn landing_pad() -> Ty {
        Ty::Struct(vec![Ty::Ptr, Ty::i32()])
    }
}

/// A value operand: a local or global name, or a constant.
#[derive(Clone, PartialEq, Debug)]
pub enum Operand {
    /// `%name`
    Local(String),
    /// `@name`
    Global(String),
    /// An integer constant, printed in decimal.
    Int(i128),
    /// `true` / `false`
    Bool(bool),
    /// A floating-point constant given by the bits of an `f64` (printed as hex, exact).
    Float(u64),
    /// `null`.
    Null,
    /// `inttoptr (i64 N to ptr)`: a pointer constant with the bits of an integer.
    IntToPtr(i64),
    /// `undef`.
    Undef,
    /// `poison`.
    Poison,
    /// `zeroinitializer`
    Zero,
    /// `c"..."`
    Bytes(Vec<u8>),
    /// `[T a, T b]`
    Array(Ty, Vec<Operand>),
    /// `{ T a, U b }` (or `%name { ... }` is spelled the same way; the type comes from context)
    Struct(Vec<(Ty, Operand)>),
    /// A packed struct constant `<{ T x, ... }>` (of a packed named struct type).
    PackedStruct(Vec<(Ty, Operand)>),
    /// `getelementptr inbounds (T, ptr @g, i64 2, ...)`
    GepConst {
        /// The source element type.
        source: Ty,
        /// The base address (a global).
        base: Box<Operand>,
        /// The indices with their types.
        indices: Vec<(Ty, Operand)>,
    },
    /// `blockaddress(@f, %label)`
    BlockAddress {
        /// The function's global name, without `@`.
        function: String,
        /// The block's label, without `%`.
        label: String,
    },
    /// The image-relative address of a global as an `i32` (the Microsoft RTTI and EH
    /// tables' references): `trunc (sub (ptrtoint @g, ptrtoint @__ImageBase))`.
    ImageRel(String),
    /// `none`: the parent of a top-level funclet pad.
    NoneToken,
}

/// Parameter/return attributes that matter for the C ABI (`zeroext`, `signext`, `noundef`).
pub type Attrs = Vec<&'static str>;

/// An attribute that puts a pointer argument's pointee in memory the way the C ABI
/// does: `byval(T) align N` (a copy in the argument area) or `sret(T) align N` (the slot
/// of a result returned in memory).
#[derive(Clone, PartialEq, Debug)]
pub enum MemoryAttr {
    /// `byval(T) align N`: the callee gets its own copy of the pointee.
    ByVal {
        /// The pointee type copied into the argument area.
        ty: Ty,
        /// Its alignment in bytes.
        align: u64,
    },
    /// `sret(T) align N`: the pointer is where the callee stores its result.
    Sret {
        /// The type of the result returned in memory.
        ty: Ty,
        /// Its alignment in bytes.
        align: u64,
    },
}

/// A call argument.
#[derive(Clone, PartialEq, Debug)]
pub struct Arg {
    /// The argument's type.
    pub ty: Ty,
    /// Its parameter attributes (`zeroext`, `noundef`).
    pub attrs: Attrs,
    /// Written after `attrs`.
    pub memory: Option<MemoryAttr>,
    /// The argument.
    pub value: Operand,
}

impl Arg {
    /// An argument without attributes.
    pub fn plain(ty: Ty, value: Operand) -> Self {
        Arg {
            ty,
            attrs: vec![],
            memory: None,
            value,
        }
    }
}

/// The callee part of a call or invoke.
#[derive(Clone, PartialEq, Debug)]
pub struct CallTarget {
    /// The return type.
    pub ret: Ty,
    /// Return attributes (`zeroext`, `noundef`).
    pub ret_attrs: Attrs,
    /// Written as the full function type (`i32 (ptr, ...)`) when the callee is variadic.
    pub vararg_params: Option<Vec<Ty>>,
    /// The callee: a global, or a local pointer for an indirect call.
    pub callee: Operand,
    /// The arguments, in order.
    pub args: Vec<Arg>,
    /// Call-site function attributes (`nounwind`, `noreturn`).
    pub fn_attrs: Attrs,
    /// The pad token of the funclet the call is in: a `"funclet"` operand bundle.
    pub funclet: Option<String>,
}

impl CallTarget {
    /// A call of a fixed-arity `callee` that returns `ret` without return attributes,
    /// outside any funclet.
    pub fn simple(ret: Ty, callee: Operand, args: Vec<Arg>, fn_attrs: Attrs) -> Self {
        CallTarget {
            ret,
            ret_attrs: vec![],
            vararg_params: None,
            callee,
            args,
            fn_attrs,
            funclet: None,
        }
    }
}

/// A clause of a `landingpad`.
#[derive(Clone, PartialEq, Debug)]
pub enum Clause {
    /// `catch ptr @ti` / `catch ptr null`
    Catch(Operand),
    /// `filter [N x ptr] [ptr @a, ...]`
    Filter(Vec<Operand>),
}

/// Integer comparison predicates.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum IntPredicate {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Signed less than.
    Slt,
    /// Signed less than or equal.
    Sle,
    /// Signed greater than.
    Sgt,
    /// Signed greater than or equal.
    Sge,
    /// Unsigned less than.
    Ult,
    /// Unsigned less than or equal.
    Ule,
    /// Unsigned greater than.
    Ugt,
    /// Unsigned greater than or equal.
    Uge,
}

impl IntPredicate {
    /// The predicate as written after `icmp` (`slt`).
    pub fn name(self) -> &'static str {
        match self {
            IntPredicate::Eq => "eq",
            IntPredicate::Ne => "ne",
            IntPredicate::Slt => "slt",
            IntPredicate::Sle => "sle",
            IntPredicate::Sgt => "sgt",
            IntPredicate::Sge => "sge",
            IntPredicate::Ult => "ult",
            IntPredicate::Ule => "ule",
            IntPredicate::Ugt => "ugt",
            IntPredicate::Uge => "uge",
        }
    }
}

/// Floating-point comparison predicates (ordered, except `une` for "not equal").
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FloatPredicate {
    /// Ordered and equal.
    Oeq,
    /// Unordered or not equal.
    Une,
    /// Ordered and less than.
    Olt,
    /// Ordered and less than or equal.
    Ole,
    /// Ordered and greater than.
    Ogt,
    /// Ordered and greater than or equal.
    Oge,
}

impl FloatPredicate {
    /// The predicate as written after `fcmp` (`olt`).
    pub fn name(self) -> &'static str {
        match self {
            FloatPredicate::Oeq => "oeq",
            FloatPredicate::Une => "une",
            FloatPredicate::Olt => "olt",
            FloatPredicate::Ole => "ole",
            FloatPredicate::Ogt => "ogt",
            FloatPredicate::Oge => "oge",
        }
    }
}

/// A comparison's predicate, integer or floating-point (LLVM's `CmpInst::Predicate`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Predicate {
    /// An `icmp` predicate.
    Int(IntPredicate),
    /// An `fcmp` predicate.
    Float(FloatPredicate),
}

impl Predicate {
    /// The comparison instruction and predicate as written (`icmp slt`, `fcmp olt`).
    pub fn text(self) -> String {
        match self {
            Predicate::Int(pred) => format!("icmp {}", pred.name()),
            Predicate::Float(pred) => format!("fcmp {}", pred.name()),
        }
    }
}

impl From<IntPredicate> for Predicate {
    fn from(pred: IntPredicate) -> Self {
        Predicate::Int(pred)
    }
}

impl From<FloatPredicate> for Predicate {
    fn from(pred: FloatPredicate) -> Self {
        Predicate::Float(pred)
    }
}

/// One instruction. `result` names are local names without the `%`.
#[derive(Clone, PartialEq, Debug)]
pub enum Inst {
    /// `%r = alloca T, align N`: a stack slot.
    Alloca {
        /// The local name of the result, without `%`.
        result: String,
        /// The allocated type.
        ty: Ty,
        /// Alignment in bytes.
        align: u32,
    },
    /// `%r = alloca T, I %n, align N`: `n` `T`s on the stack, where the instruction is.
    DynamicAlloca {
        /// The local name of the result, without `%`.
        result: String,
        /// The allocated type.
        ty: Ty,
        /// The type of the element count.
        count_ty: Ty,
        /// The element count.
        count: Operand,
        /// Alignment in bytes.
        align: u32,
    },
    /// `%r = load [volatile] T, ptr %p, align N`.
    Load {
        /// The local name of the result, without `%`.
        result: String,
        /// The loaded type.
        ty: Ty,
        /// The address.
        ptr: Operand,
        /// Alignment in bytes.
        align: u32,
        /// A volatile load.
        volatile: bool,
    },
    /// `store [volatile] T %v, ptr %p, align N`.
    Store {
        /// The stored value's type.
        ty: Ty,
        /// The stored value.
        value: Operand,
        /// The address.
        ptr: Operand,
        /// Alignment in bytes.
        align: u32,
        /// A volatile store.
        volatile: bool,
    },
    /// `add`, `fadd`, `sdiv`, `lshr`, ... (`op` is the opcode text).
    Binary {
        /// The local name of the result, without `%`.
        result: String,
        /// The opcode (`add`, `sdiv`, `lshr`, ...).
        op: &'static str,
        /// The operands' and result's type.
        ty: Ty,
        /// The first operand.
        lhs: Operand,
        /// The second operand.
        rhs: Operand,
    },
    /// `%r = fneg T %v`.
    FNeg {
        /// The local name of the result, without `%`.
        result: String,
        /// The operand's type.
        ty: Ty,
        /// The operand.
        value: Operand,
    },
    /// `%r = icmp pred T %a, %b` or `%r = fcmp pred T %a, %b`, as `pred` says.
    Cmp {
        /// The local name of the result, without `%`.
        result: String,
        /// The predicate (which also chooses `icmp` or `fcmp`).
        pred: Predicate,
        /// The operands' type.
        ty: Ty,
        /// The first operand.
        lhs: Operand,
        /// The second operand.
        rhs: Operand,
    },
    /// `trunc`, `zext`, `sext`, `fptosi`, `bitcast`, ... (`op` is the opcode text).
    Cast {
        /// The local name of the result, without `%`.
        result: String,
        /// The opcode (`trunc`, `zext`, `ptrtoint`, ...).
        op: &'static str,
        /// The operand's type.
        from: Ty,
        /// The operand.
        value: Operand,
        /// The result type.
        to: Ty,
    },
    /// `%r = select i1 %c, T %a, T %b`.
    Select {
        /// The local name of the result, without `%`.
        result: String,
        /// The `i1` condition.
        cond: Operand,
        /// The type of both choices.
        ty: Ty,
        /// The value when the condition is true.
        if_true: Operand,
        /// The value when it is false.
        if_false: Operand,
    },
    /// `%r = getelementptr [inbounds] T, ptr %base, indices...`.
    Gep {
        /// The local name of the result, without `%`.
        result: String,
        /// The source element type.
        source: Ty,
        /// The base pointer.
        base: Operand,
        /// The indices with their types.
        indices: Vec<(Ty, Operand)>,
        /// `inbounds`: the address stays within the object.
        inbounds: bool,
    },
    /// `[%r =] call ...`: a call that does not unwind into this function.
    Call {
        /// The local name of the result (`None` for a void call), without `%`.
        result: Option<String>,
        /// The callee, arguments and attributes.
        target: CallTarget,
    },
    /// `%r = phi T [ %v, %bb ], ...`.
    Phi {
        /// The local name of the result, without `%`.
        result: String,
        /// The type of the values.
        ty: Ty,
        /// One value per predecessor: the value and the predecessor's label.
        incoming: Vec<(Operand, String)>,
    },
    /// `%r = landingpad { ptr, i32 } [cleanup] clauses...`: first instruction of an Itanium unwind destination.
    LandingPad {
        /// The local name of the result, without `%`.
        result: String,
        /// The pad is entered for cleanups too.
        cleanup: bool,
        /// The catch and filter clauses, in order.
        clauses: Vec<Clause>,
    },
    /// `%r = extractvalue T %agg, N`.
    ExtractValue {
        /// The local name of the result, without `%`.
        result: String,
        /// The aggregate's type.
        ty: Ty,
        /// The aggregate.
        aggregate: Operand,
        /// The element index.
        index: u32,
    },
    /// `%r = insertvalue T %agg, E %elt, N`.
    InsertValue {
        /// The local name of the result, without `%`.
        result: String,
        /// The aggregate's type.
        ty: Ty,
        /// The aggregate.
        aggregate: Operand,
        /// The inserted element's type.
        element_ty: Ty,
        /// The inserted element.
        element: Operand,
        /// The element index.
        index: u32,
    },
    // ---- terminators ----
    /// `ret T %v` or `ret void`.
    Ret(Option<(Ty, Operand)>),
    /// `br label %l`.
    Br(String),
    /// `br i1 %c, label %t, label %f`.
    CondBr {
        /// The `i1` condition.
        cond: Operand,
        /// The label taken when it is true.
        if_true: String,
        /// The label taken when it is false.
        if_false: String,
    },
    /// `switch T %v, label %default [ T N, label %l ... ]`.
    Switch {
        /// The integer type of the value.
        ty: Ty,
        /// The value switched on.
        value: Operand,
        /// The label taken when no case matches.
        default: String,
        /// Case values with their labels.
        cases: Vec<(i128, String)>,
    },
    /// `indirectbr ptr %addr, [label %l, ...]`.
    IndirectBr {
        /// The block address to jump to.
        address: Operand,
        /// Every label it may jump to.
        labels: Vec<String>,
    },
    /// `[%r =] invoke ... to label %normal unwind label %unwind`: a call that may unwind into this function.
    Invoke {
        /// The local name of the result (`None` for a void call), without `%`.
        result: Option<String>,
        /// The callee, arguments and attributes.
        target: CallTarget,
        /// The label reached when the call returns.
        normal: String,
        /// The label reached when it unwinds (a landing pad or funclet pad block).
        unwind: String,
    },
    /// `resume T %v`: continues unwinding (Itanium).
    Resume {
        /// The exception value's type (`{ ptr, i32 }`).
        ty: Ty,
        /// The exception value of the landing pad.
        value: Operand,
    },
    /// `unreachable`.
    Unreachable,
    /// `%r = catchswitch within P [label %h, ...] unwind to caller | label %u`
    CatchSwitch {
        /// The local name of the result, without `%`.
        result: String,
        /// The parent pad token, or `none`.
        parent: Operand,
        /// The labels of its catchpad blocks, in order.
        handlers: Vec<String>,
        /// The label unwound to when no handler matches; `None`: to the caller.
        unwind: Option<String>,
    },
    /// `%r = catchpad within %cs [args]`
    CatchPad {
        /// The local name of the result, without `%`.
        result: String,
        /// The catchswitch token.
        parent: Operand,
        /// The type descriptor, adjectives and catch object slot.
        args: Vec<(Ty, Operand)>,
    },
    /// `catchret from %pad to label %l`
    CatchRet {
        /// The catchpad token being left.
        pad: Operand,
        /// The label execution continues at.
        target: String,
    },
    /// `%r = cleanuppad within P [args]`
    CleanupPad {
        /// The local name of the result, without `%`.
        result: String,
        /// The parent pad token, or `none`.
        parent: Operand,
        /// Its arguments (none in what ehir emits).
        args: Vec<(Ty, Operand)>,
    },
    /// `cleanupret from %pad unwind to caller | label %u`
    CleanupRet {
        /// The cleanuppad token being left.
        pad: Operand,
        /// The label unwinding continues at; `None`: to the caller.
        unwind: Option<String>,
    },
}

impl Inst {
    /// Whether the instruction ends its basic block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Inst::Ret(_)
                | Inst::Br(_)
                | Inst::CondBr { .. }
                | Inst::Switch { .. }
                | Inst::IndirectBr { .. }
                | Inst::Invoke { .. }
                | Inst::Resume { .. }
                | Inst::Unreachable
                | Inst::CatchSwitch { .. }
                | Inst::CatchRet { .. }
                | Inst::CleanupRet { .. }
        )
    }
}

/// A basic block.
#[derive(Clone, PartialEq, Debug)]
pub struct BasicBlock {
    /// The block's label, without `%`.
    pub label: String,
    /// Its instructions; the last one is a terminator.
    pub insts: Vec<Inst>,
}

/// A function parameter.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    /// The parameter's type.
    pub ty: Ty,
    /// Its attributes (`zeroext`, `noundef`).
    pub attrs: Attrs,
    /// Written after `attrs`.
    pub memory: Option<MemoryAttr>,
    /// Local name without `%` (ignored for declarations).
    pub name: String,
}

impl Param {
    /// An unnamed parameter without attributes, as in a declaration.
    pub fn plain(ty: Ty) -> Self {
        Param {
            ty,
            attrs: vec![],
            memory: None,
            name: String::new(),
        }
    }
}

/// A function definition (`blocks` is `Some`) or declaration.
#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    /// The global name, without `@`.
    pub name: String,
    /// `private`, `internal`, `linkonce_odr`, `weak`, or empty for external.
    pub linkage: &'static str,
    /// Hidden visibility (not exported from the shared object that defines it).
    pub hidden: bool,
    /// The return type.
    pub ret: Ty,
    /// Return attributes.
    pub ret_attrs: Attrs,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// Takes further arguments (`...`).
    pub vararg: bool,
    /// Function attributes (`uwtable`, `nounwind`, `noreturn`).
    pub fn_attrs: Attrs,
    /// Put the function in a comdat of its own name (`linkonce_odr` functions).
    pub comdat: bool,
    /// The personality routine's global name.
    pub personality: Option<String>,
    /// The body, entry block first; `None` for a declaration.
    pub blocks: Option<Vec<BasicBlock>>,
}

impl Function {
    /// The declaration of an external function `name` without return attributes.
    pub fn declaration(
        name: &str,
        ret: Ty,
        params: Vec<Param>,
        vararg: bool,
        fn_attrs: Attrs,
    ) -> Self {
        Function {
            name: name.to_string(),
            linkage: "",
            hidden: false,
            ret,
            ret_attrs: vec![],
            params,
            vararg,
            fn_attrs,
            comdat: false,
            personality: None,
            blocks: None,
        }
    }
}

/// A global variable definition (`init` is `Some`) or external declaration.
#[derive(Clone, PartialEq, Debug)]
pub struct Global {
    /// The global name, without `@`.
    pub name: String,
    /// `private`, `internal`, `linkonce_odr`, `weak`, or empty for external.
    pub linkage: &'static str,
    /// `constant` rather than `global`.
    pub constant: bool,
    /// `unnamed_addr`: its address is not significant (string literals).
    pub unnamed_addr: bool,
    /// The value type.
    pub ty: Ty,
    /// The initializer; `None` for an external declaration.
    pub init: Option<Operand>,
    /// Alignment in bytes, if given.
    pub align: Option<u32>,
    /// Put the global in a comdat of its own name.
    pub comdat: bool,
}

/// A named struct type: `%name = type { ... }`, `<{ ... }>` when packed, or `opaque`.
#[derive(Clone, PartialEq, Debug)]
pub struct NamedStruct {
    /// The name, without `%`.
    pub name: String,
    /// The field types; `None` for an opaque type.
    pub body: Option<Vec<Ty>>,
    /// Fields at consecutive bytes, alignment 1 (`<{ ... }>`).
    pub packed: bool,
}

/// A whole module.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// The `source_filename` line.
    pub source_filename: String,
    /// The `target datalayout` string.
    pub data_layout: String,
    /// The `target triple`.
    pub triple: String,
    /// Named struct types in order.
    pub types: Vec<NamedStruct>,
    /// Global variables, in order.
    pub globals: Vec<Global>,
    /// Functions, definitions and declarations, in order.
    pub functions: Vec<Function>,
}
