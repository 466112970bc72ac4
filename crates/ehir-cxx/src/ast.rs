//! The syntax tree of the C++ subset, as the parser produces it: names are unresolved
//! strings, types are written-out type expressions, every node has its source location.

use ehir_core::Loc;

/// A fundamental type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Builtin {
    Void,
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
    Float,
    Double,
}

/// A type as written.
#[derive(Clone, PartialEq, Debug)]
pub enum TypeExpr {
    Builtin(Builtin),
    /// A class name (`std::exception` is spelled with its `std::` prefix).
    Class(String, Loc),
    Const(Box<TypeExpr>),
    Ptr(Box<TypeExpr>),
    Ref(Box<TypeExpr>),
    /// An array with its size expression (`None` for `T[]`, sized by the initializer).
    Array(Box<TypeExpr>, Option<Box<Expr>>),
    /// A function type (of a function pointer).
    Func {
        ret: Box<TypeExpr>,
        params: Vec<TypeExpr>,
        variadic: bool,
    },
}

/// The exception specification of a function.
#[derive(Clone, PartialEq, Debug, Default)]
pub enum ExceptionSpec {
    /// None written.
    #[default]
    None,
    /// `noexcept` / `noexcept(true)`.
    Noexcept,
    /// `noexcept(false)`.
    NoexceptFalse,
    /// `throw(T, ...)`; empty for `throw()`.
    Throw(Vec<TypeExpr>),
}

/// Member access.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Access {
    Public,
    Protected,
    Private,
}

/// The name a declarator declares.
#[derive(Clone, PartialEq, Debug)]
pub enum DeclName {
    Ident(String),
    /// `X::member`, `X::X`, `X::~X`, `X::operator=`.
    Qualified(String, MemberName),
    /// A constructor declared inside its class.
    Ctor,
    /// A destructor declared inside its class.
    Dtor,
    /// `operator=` declared inside its class (the operator's spelling).
    Operator(String),
}

/// The last component of a qualified name.
#[derive(Clone, PartialEq, Debug)]
pub enum MemberName {
    Ident(String),
    Ctor,
    Dtor,
    Operator(String),
}

/// A function parameter.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    pub name: Option<String>,
    pub ty: TypeExpr,
    pub loc: Loc,
}

/// A member initializer `name(args)` of a constructor.
#[derive(Clone, PartialEq, Debug)]
pub struct MemInit {
    pub name: String,
    pub args: Vec<Expr>,
    pub loc: Loc,
}

/// A catch handler.
#[derive(Clone, PartialEq, Debug)]
pub struct Handler {
    /// `None` for `catch (...)`.
    pub param: Option<(TypeExpr, Option<String>, Loc)>,
    pub body: Vec<Stmt>,
    pub loc: Loc,
}

/// The body of a function definition.
#[derive(Clone, PartialEq, Debug)]
pub struct FunctionBody {
    pub inits: Vec<MemInit>,
    pub stmts: Vec<Stmt>,
    /// Handlers of a function-try-block.
    pub handlers: Option<Vec<Handler>>,
    pub loc: Loc,
    pub end_loc: Loc,
}

/// A function declaration or definition (free, member, constructor, destructor).
#[derive(Clone, PartialEq, Debug)]
pub struct FunctionDecl {
    pub name: DeclName,
    pub loc: Loc,
    pub ret: TypeExpr,
    pub params: Vec<Param>,
    pub variadic: bool,
    /// A `const` member function.
    pub is_const: bool,
    pub spec: ExceptionSpec,
    pub spec_loc: Loc,
    pub is_static: bool,
    pub is_inline: bool,
    pub is_explicit: bool,
    pub extern_c: bool,
    /// `= default`
    pub defaulted: bool,
    /// `= delete`
    pub deleted: bool,
    pub body: Option<FunctionBody>,
}

/// A variable initializer.
#[derive(Clone, PartialEq, Debug)]
pub enum Init {
    None,
    /// `= e`
    Copy(Expr),
    /// `(a, b)`
    Direct(Vec<Expr>),
    /// `= {a, b}` or `{a, b}`
    List(Vec<Expr>, Loc),
}

/// A variable declaration.
#[derive(Clone, PartialEq, Debug)]
pub struct VarDecl {
    pub name: DeclName,
    pub ty: TypeExpr,
    pub init: Init,
    pub loc: Loc,
    pub is_static: bool,
    pub is_extern: bool,
    pub extern_c: bool,
}

/// A base-class specifier.
#[derive(Clone, PartialEq, Debug)]
pub struct BaseSpec {
    pub name: String,
    pub access: Access,
    pub loc: Loc,
}

/// A class member.
#[derive(Clone, PartialEq, Debug)]
pub enum Member {
    Field {
        name: String,
        ty: TypeExpr,
        access: Access,
        is_static: bool,
        init: Option<Expr>,
        loc: Loc,
    },
    Method {
        decl: FunctionDecl,
        access: Access,
    },
}

/// A class definition (or forward declaration).
#[derive(Clone, PartialEq, Debug)]
pub struct ClassDecl {
    pub name: String,
    pub loc: Loc,
    pub is_struct: bool,
    /// `None` for a forward declaration.
    pub body: Option<ClassBody>,
}

#[derive(Clone, PartialEq, Debug)]
pub struct ClassBody {
    pub bases: Vec<BaseSpec>,
    pub members: Vec<Member>,
    pub end_loc: Loc,
}

/// A top-level item.
#[derive(Clone, PartialEq, Debug)]
pub enum Item {
    Class(ClassDecl),
    Function(FunctionDecl),
    Var(VarDecl),
}

/// Binary operators (including assignments and the comma).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    LogAnd,
    LogOr,
    Assign,
    /// `op=`
    CompoundAssign(ArithOp),
    Comma,
}

/// Arithmetic operators of compound assignments.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
}

/// Unary operators.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

/// How a cast was written.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CastStyle {
    /// `(T)e`
    CStyle,
    /// `static_cast<T>(e)`
    Static,
    /// `T(e)` with a non-class `T`
    Functional,
}

/// An expression.
#[derive(Clone, PartialEq, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub loc: Loc,
}

#[derive(Clone, PartialEq, Debug)]
pub enum ExprKind {
    Int {
        value: u128,
        unsigned: bool,
        long: u8,
    },
    Float {
        value: f64,
        single: bool,
    },
    Char(u8),
    Str(Vec<u8>),
    Bool(bool),
    Nullptr,
    This,
    /// An unqualified name.
    Name(String),
    /// `Scope::name` (`std::terminate`, `A::count`, `A::f`); scope `""` for `::name`.
    Qualified(String, String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast {
        ty: TypeExpr,
        expr: Box<Expr>,
        style: CastStyle,
    },
    /// `T(args)` / `T()` with a class type `T` (or `T()` for any type: value-init).
    Construct {
        ty: TypeExpr,
        args: Vec<Expr>,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    Member {
        base: Box<Expr>,
        name: String,
        arrow: bool,
        /// `obj.A::f` qualifier
        qualifier: Option<String>,
    },
    Index(Box<Expr>, Box<Expr>),
    SizeofType(TypeExpr),
    SizeofExpr(Box<Expr>),
    New {
        ty: TypeExpr,
        array_size: Option<Box<Expr>>,
        args: Option<Vec<Expr>>,
    },
    Delete {
        array: bool,
        expr: Box<Expr>,
    },
    Throw(Option<Box<Expr>>),
}

/// A statement.
#[derive(Clone, PartialEq, Debug)]
pub enum Stmt {
    Expr(Expr),
    Decl(Vec<VarDecl>),
    Block(Vec<Stmt>, Loc),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
        loc: Loc,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
        loc: Loc,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
        loc: Loc,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
        loc: Loc,
    },
    Switch {
        cond: Expr,
        body: Box<Stmt>,
        loc: Loc,
    },
    Case(Expr, Loc),
    Default(Loc),
    Break(Loc),
    Continue(Loc),
    Return(Option<Expr>, Loc),
    Goto(String, Loc),
    Label(String, Loc),
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        loc: Loc,
    },
    Empty,
}

impl Stmt {
    /// A location for diagnostics about the statement.
    pub fn loc(&self) -> Loc {
        match self {
            Stmt::Expr(e) => e.loc,
            Stmt::Decl(d) => d.first().map(|d| d.loc).unwrap_or(Loc::NONE),
            Stmt::Block(_, l)
            | Stmt::If { loc: l, .. }
            | Stmt::While { loc: l, .. }
            | Stmt::DoWhile { loc: l, .. }
            | Stmt::For { loc: l, .. }
            | Stmt::Switch { loc: l, .. }
            | Stmt::Case(_, l)
            | Stmt::Default(l)
            | Stmt::Break(l)
            | Stmt::Continue(l)
            | Stmt::Return(_, l)
            | Stmt::Goto(_, l)
            | Stmt::Label(_, l)
            | Stmt::Try { loc: l, .. } => *l,
            Stmt::Empty => Loc::NONE,
        }
    }
}
