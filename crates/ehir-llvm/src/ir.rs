//! A small model of LLVM IR text: just the types, constants, instructions and module items
//! that ehir emits. [`crate::writer`] prints it; nothing here knows about CIR.

/// An LLVM type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Ty {
    Void,
    /// `iN`
    Int(u32),
    Float,
    Double,
    /// The opaque pointer `ptr`.
    Ptr,
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
    pub fn i1() -> Ty {
        Ty::Int(1)
    }
    pub fn i8() -> Ty {
        Ty::Int(8)
    }
    pub fn i32() -> Ty {
        Ty::Int(32)
    }
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
    Null,
    Undef,
    Poison,
    /// `zeroinitializer`
    Zero,
    /// `c"..."`
    Bytes(Vec<u8>),
    /// `[T a, T b]`
    Array(Ty, Vec<Operand>),
    /// `{ T a, U b }` (or `%name { ... }` is spelled the same way; the type comes from context)
    Struct(Vec<(Ty, Operand)>),
    /// `getelementptr inbounds (T, ptr @g, i64 2, ...)`
    GepConst {
        source: Ty,
        base: Box<Operand>,
        indices: Vec<(Ty, Operand)>,
    },
    /// `blockaddress(@f, %label)`
    BlockAddress {
        function: String,
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
    ByVal { ty: Ty, align: u64 },
    Sret { ty: Ty, align: u64 },
}

/// A call argument.
#[derive(Clone, PartialEq, Debug)]
pub struct Arg {
    pub ty: Ty,
    pub attrs: Attrs,
    /// Written after `attrs`.
    pub memory: Option<MemoryAttr>,
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
    pub ret: Ty,
    pub ret_attrs: Attrs,
    /// Written as the full function type (`i32 (ptr, ...)`) when the callee is variadic.
    pub vararg_params: Option<Vec<Ty>>,
    pub callee: Operand,
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
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl IntPredicate {
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
    Oeq,
    Une,
    Olt,
    Ole,
    Ogt,
    Oge,
}

impl FloatPredicate {
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

/// One instruction. `result` names are local names without the `%`.
#[derive(Clone, PartialEq, Debug)]
pub enum Inst {
    Alloca {
        result: String,
        ty: Ty,
        align: u32,
    },
    Load {
        result: String,
        ty: Ty,
        ptr: Operand,
        align: u32,
        volatile: bool,
    },
    Store {
        ty: Ty,
        value: Operand,
        ptr: Operand,
        align: u32,
        volatile: bool,
    },
    /// `add`, `fadd`, `sdiv`, `lshr`, ... (`op` is the opcode text).
    Binary {
        result: String,
        op: &'static str,
        ty: Ty,
        lhs: Operand,
        rhs: Operand,
    },
    FNeg {
        result: String,
        ty: Ty,
        value: Operand,
    },
    ICmp {
        result: String,
        pred: IntPredicate,
        ty: Ty,
        lhs: Operand,
        rhs: Operand,
    },
    FCmp {
        result: String,
        pred: FloatPredicate,
        ty: Ty,
        lhs: Operand,
        rhs: Operand,
    },
    /// `trunc`, `zext`, `sext`, `fptosi`, `bitcast`, ... (`op` is the opcode text).
    Cast {
        result: String,
        op: &'static str,
        from: Ty,
        value: Operand,
        to: Ty,
    },
    Select {
        result: String,
        cond: Operand,
        ty: Ty,
        if_true: Operand,
        if_false: Operand,
    },
    Gep {
        result: String,
        source: Ty,
        base: Operand,
        indices: Vec<(Ty, Operand)>,
        inbounds: bool,
    },
    Call {
        result: Option<String>,
        target: CallTarget,
    },
    Phi {
        result: String,
        ty: Ty,
        incoming: Vec<(Operand, String)>,
    },
    LandingPad {
        result: String,
        cleanup: bool,
        clauses: Vec<Clause>,
    },
    ExtractValue {
        result: String,
        ty: Ty,
        aggregate: Operand,
        index: u32,
    },
    InsertValue {
        result: String,
        ty: Ty,
        aggregate: Operand,
        element_ty: Ty,
        element: Operand,
        index: u32,
    },
    // ---- terminators ----
    Ret(Option<(Ty, Operand)>),
    Br(String),
    CondBr {
        cond: Operand,
        if_true: String,
        if_false: String,
    },
    Switch {
        ty: Ty,
        value: Operand,
        default: String,
        cases: Vec<(i128, String)>,
    },
    IndirectBr {
        address: Operand,
        labels: Vec<String>,
    },
    Invoke {
        result: Option<String>,
        target: CallTarget,
        normal: String,
        unwind: String,
    },
    Resume {
        ty: Ty,
        value: Operand,
    },
    Unreachable,
    /// `%r = catchswitch within P [label %h, ...] unwind to caller | label %u`
    CatchSwitch {
        result: String,
        parent: Operand,
        handlers: Vec<String>,
        unwind: Option<String>,
    },
    /// `%r = catchpad within %cs [args]`
    CatchPad {
        result: String,
        parent: Operand,
        args: Vec<(Ty, Operand)>,
    },
    /// `catchret from %pad to label %l`
    CatchRet {
        pad: Operand,
        target: String,
    },
    /// `%r = cleanuppad within P [args]`
    CleanupPad {
        result: String,
        parent: Operand,
        args: Vec<(Ty, Operand)>,
    },
    /// `cleanupret from %pad unwind to caller | label %u`
    CleanupRet {
        pad: Operand,
        unwind: Option<String>,
    },
}

impl Inst {
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
    pub label: String,
    pub insts: Vec<Inst>,
}

/// A function parameter.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    pub ty: Ty,
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
    pub name: String,
    /// `private`, `internal`, `linkonce_odr`, `weak`, or empty for external.
    pub linkage: &'static str,
    pub ret: Ty,
    pub ret_attrs: Attrs,
    pub params: Vec<Param>,
    pub vararg: bool,
    pub fn_attrs: Attrs,
    pub comdat: bool,
    /// The personality routine's global name.
    pub personality: Option<String>,
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
    pub name: String,
    pub linkage: &'static str,
    pub constant: bool,
    pub unnamed_addr: bool,
    pub ty: Ty,
    pub init: Option<Operand>,
    pub align: Option<u32>,
    /// Put the global in a comdat of its own name.
    pub comdat: bool,
}

/// A whole module.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    pub source_filename: String,
    pub data_layout: String,
    pub triple: String,
    /// Named struct types in order; `None` body means `opaque`.
    pub types: Vec<(String, Option<Vec<Ty>>)>,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
}
