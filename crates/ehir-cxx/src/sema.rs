//! Expression semantics: name lookup, types and value categories, implicit and explicit
//! conversions, overload resolution and access control. It turns syntax-tree expressions
//! into typed expressions ([`TExpr`]) whose conversions are explicit, so code generation
//! only has to follow them.

use crate::ast::{self, Access, BinOp, Builtin, CastStyle, Expr, ExprKind, UnOp};
use crate::program::{CxxResult, FuncId, FuncKind, Implicit, Program, VarId, err, unsupported};
use crate::types::{ClassId, Ty, TyKind, TypeTable};
use ehir_core::{BinaryOp, CmpPredicate, Loc, UnaryOp};

/// A local variable or parameter of the function being compiled.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct LocalId(pub u32);

/// What sema knows about a local.
#[derive(Clone, Debug)]
pub struct LocalInfo {
    pub name: String,
    /// The declared type (a reference type for references).
    pub ty: Ty,
    /// The value of a `const` integral local with a constant initializer.
    pub const_value: Option<i128>,
}

/// A path from a class to one of its base subobjects: `(class, index of the base)`.
pub type BasePath = Vec<(ClassId, usize)>;

/// A conversion applied to an operand.
#[derive(Clone, PartialEq, Debug)]
pub enum Conv {
    /// Load the value of a scalar lvalue.
    LToR,
    IntToInt,
    IntToFloat,
    FloatToInt,
    FloatToFloat,
    IntToBool,
    FloatToBool,
    PtrToBool,
    BoolToInt,
    BoolToFloat,
    ArrayDecay,
    FuncDecay,
    NullToPtr,
    /// A pointer conversion that keeps the address (`T*` → `const T*`, `T*` → `void*`).
    PtrBitcast,
    DerivedToBase(BasePath),
    BaseToDerived(BasePath),
    ToVoid,
    PtrToInt,
    IntToPtr,
}

/// The conversion between two different unqualified arithmetic types.
pub fn arith_conversion(types: &TypeTable, from: Ty, to: Ty) -> Conv {
    if types.is_bool(to) {
        if types.is_floating(from) {
            Conv::FloatToBool
        } else {
            Conv::IntToBool
        }
    } else if types.is_bool(from) {
        if types.is_floating(to) {
            Conv::BoolToFloat
        } else {
            Conv::BoolToInt
        }
    } else if types.is_integral(from) && types.is_integral(to) {
        Conv::IntToInt
    } else if types.is_integral(from) {
        Conv::IntToFloat
    } else if types.is_integral(to) {
        Conv::FloatToInt
    } else {
        Conv::FloatToFloat
    }
}

/// How a call names its target.
#[derive(Clone, PartialEq, Debug)]
pub enum Callee {
    Direct(FuncId),
    /// A non-static member function called on an object (an lvalue of its class).
    Method {
        func: FuncId,
        object: Box<TExpr>,
    },
    /// Through a pointer to function (a prvalue).
    Indirect(Box<TExpr>),
}

/// A typed expression.
#[derive(Clone, PartialEq, Debug)]
pub struct TExpr {
    pub kind: TypedExprKind,
    /// The type (never a reference type: references denote lvalues of the referee).
    pub ty: Ty,
    pub lvalue: bool,
    pub loc: Loc,
}

/// The kinds of typed expressions.
#[derive(Clone, PartialEq, Debug)]
pub enum TypedExprKind {
    Int(i128),
    Float(f64),
    Bool(bool),
    /// A null pointer of type `ty`.
    NullPtr,
    /// A string literal: an lvalue `const char[N]`.
    Str(Vec<u8>),
    Local(LocalId),
    Global(VarId),
    /// A function designator (lvalue of function type).
    Func(FuncId),
    /// `this` (a prvalue pointer).
    This,
    /// A data member of `base` (an lvalue of class `class`).
    Field {
        base: Box<TExpr>,
        class: ClassId,
        field: usize,
    },
    /// A base subobject of a class lvalue.
    ToBase {
        expr: Box<TExpr>,
        path: BasePath,
    },
    Deref(Box<TExpr>),
    AddrOf(Box<TExpr>),
    Cast(Conv, Box<TExpr>),
    /// Arithmetic on two operands of type `ty`.
    Arith(BinaryOp, Box<TExpr>, Box<TExpr>),
    PtrOffset {
        ptr: Box<TExpr>,
        offset: Box<TExpr>,
        negate: bool,
    },
    PtrDiff {
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
        elem_size: u64,
    },
    Cmp(CmpPredicate, Box<TExpr>, Box<TExpr>),
    Unary(UnaryOp, Box<TExpr>),
    LogicalNot(Box<TExpr>),
    LogAnd(Box<TExpr>, Box<TExpr>),
    LogOr(Box<TExpr>, Box<TExpr>),
    /// Scalar assignment, or trivial copy assignment of a class (rhs is then an lvalue).
    Assign(Box<TExpr>, Box<TExpr>),
    /// `lhs op= rhs` computed in type `comp` (pointer arithmetic when `ptr`).
    CompoundAssign {
        op: BinaryOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
        comp: Ty,
        ptr: bool,
    },
    IncDec {
        inc: bool,
        prefix: bool,
        expr: Box<TExpr>,
    },
    Cond(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    Comma(Box<TExpr>, Box<TExpr>),
    Call {
        callee: Callee,
        args: Vec<TExpr>,
    },
    /// A class prvalue built by a constructor.
    Construct {
        ctor: FuncId,
        args: Vec<TExpr>,
    },
    /// A class prvalue copied bitwise from an lvalue (trivial copy constructor).
    TrivialCopy(Box<TExpr>),
    /// Value-initialization to zero (scalars, classes with trivial constructors).
    ZeroInit,
    /// Default-initialization that does nothing (trivial default constructor).
    DefaultInit,
    /// Value-initialization of a class whose default constructor is implicit but not
    /// trivial: zero the object, then construct it.
    ZeroThen(Box<TExpr>),
    /// A temporary materialized from a prvalue (an lvalue until the full expression ends).
    BindTemp(Box<TExpr>),
    /// `new T(...)` / `new T[n]`: `init` is the initializer of one element (`None`: none).
    New {
        elem: Ty,
        count: Option<Box<TExpr>>,
        init: Option<Box<TExpr>>,
    },
    Delete {
        array: bool,
        expr: Box<TExpr>,
    },
    Throw(Option<Box<TExpr>>),
}

/// A rank of an implicit conversion sequence: lower is better.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Rank(u8, u8);

const EXACT: Rank = Rank(0, 0);
const EXACT_QUAL: Rank = Rank(0, 1);
const PROMOTION: Rank = Rank(1, 0);
const CONVERSION: Rank = Rank(2, 0);
const CONVERSION_PTR: Rank = Rank(2, 1);
const CONVERSION_BOOL: Rank = Rank(2, 2);
const USER: Rank = Rank(3, 0);
const ELLIPSIS: Rank = Rank(4, 0);

/// Result of unqualified name lookup.
enum NameRef {
    Local(LocalId),
    Global(VarId),
    Funcs(Vec<FuncId>),
    Member(MemberLookup),
    Constant(i128),
}

/// Result of looking a name up in a class.
#[derive(Clone, Debug)]
pub enum MemberLookup {
    Field {
        path: BasePath,
        class: ClassId,
        field: usize,
    },
    Methods {
        path: BasePath,
        class: ClassId,
        funcs: Vec<FuncId>,
    },
    Static {
        class: ClassId,
        var: VarId,
        access: Access,
    },
}

/// The expression checker for one function body.
pub struct Sema<'p> {
    pub prog: &'p mut Program,
    /// The class of the member function being compiled.
    pub class: Option<ClassId>,
    pub this_const: bool,
    pub is_static_method: bool,
    pub locals: Vec<LocalInfo>,
    pub scopes: Vec<Vec<(String, LocalId)>>,
    /// Global declarations with `seq` below this are visible.
    pub visible: usize,
}

fn boxed(e: TExpr) -> Box<TExpr> {
    Box::new(e)
}

impl<'p> Sema<'p> {
    pub fn new(
        prog: &'p mut Program,
        class: Option<ClassId>,
        this_const: bool,
        is_static_method: bool,
        visible: usize,
    ) -> Self {
        Sema {
            prog,
            class,
            this_const,
            is_static_method,
            locals: Vec::new(),
            scopes: vec![Vec::new()],
            visible,
        }
    }

    // ---- locals --------------------------------------------------------------------------

    pub fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Declares a local in the innermost scope.
    pub fn declare_local(&mut self, name: &str, ty: Ty, loc: Loc) -> CxxResult<LocalId> {
        if let Some(scope) = self.scopes.last()
            && scope.iter().any(|(n, _)| n == name)
        {
            return err(loc, format!("redefinition of '{name}'"));
        }
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(LocalInfo {
            name: name.to_string(),
            ty,
            const_value: None,
        });
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), id));
        }
        Ok(id)
    }

    fn find_local(&self, name: &str) -> Option<LocalId> {
        for scope in self.scopes.iter().rev() {
            for (n, id) in scope.iter().rev() {
                if n == name {
                    return Some(*id);
                }
            }
        }
        None
    }

    // ---- helpers -------------------------------------------------------------------------

    fn t(&mut self, b: Builtin) -> Ty {
        self.prog.types.builtin(b)
    }

    fn name(&self, t: Ty) -> String {
        self.prog.type_name(t)
    }

    fn unqual(&mut self, t: Ty) -> Ty {
        self.prog.types.unqual(t)
    }

    fn mk(&self, kind: TypedExprKind, ty: Ty, lvalue: bool, loc: Loc) -> TExpr {
        TExpr {
            kind,
            ty,
            lvalue,
            loc,
        }
    }

    /// Whether an expression is a null pointer constant (`0`, `nullptr`).
    fn is_null_constant(&self, e: &TExpr) -> bool {
        match &e.kind {
            TypedExprKind::NullPtr => true,
            TypedExprKind::Int(0) => {
                !e.lvalue && self.prog.types.is_integral(e.ty) && !self.prog.types.is_bool(e.ty)
            }
            TypedExprKind::Cast(Conv::IntToInt, inner) => self.is_null_constant(inner),
            _ => false,
        }
    }

    /// Marks a function as referenced.
    pub fn use_func(&mut self, f: FuncId, loc: Loc) -> CxxResult<()> {
        if self.prog.func(f).deleted {
            return err(
                loc,
                format!("call to deleted function '{}'", self.prog.func(f).display),
            );
        }
        self.prog.func_mut(f).used = true;
        Ok(())
    }

    // ---- class queries -------------------------------------------------------------------

    /// The path from `derived` to its base `base` (`None` if not a base, error if ambiguous).
    pub fn base_path(&self, derived: ClassId, base: ClassId) -> Option<BasePath> {
        if derived == base {
            return Some(Vec::new());
        }
        for (i, b) in self.prog.class(derived).bases.iter().enumerate() {
            if let Some(mut rest) = self.base_path(b.class, base) {
                rest.insert(0, (derived, i));
                return Some(rest);
            }
        }
        None
    }

    /// Whether the base conversion along `path` is accessible from here.
    fn path_accessible(&self, path: &BasePath) -> bool {
        for &(c, i) in path {
            let access = self.prog.class(c).bases[i].access;
            if access != Access::Public && !self.context_is_or_derives(c, access) {
                return false;
            }
        }
        true
    }

    fn context_is_or_derives(&self, c: ClassId, access: Access) -> bool {
        match self.class {
            Some(ctx) if ctx == c => true,
            Some(ctx) if access == Access::Protected => self.base_path(ctx, c).is_some(),
            _ => false,
        }
    }

    fn check_member_access(
        &self,
        declaring: ClassId,
        access: Access,
        path: &BasePath,
        what: &str,
        loc: Loc,
    ) -> CxxResult<()> {
        let ok_member = match access {
            Access::Public => true,
            Access::Private => self.class == Some(declaring),
            Access::Protected => self
                .class
                .is_some_and(|c| c == declaring || self.base_path(c, declaring).is_some()),
        };
        if !ok_member {
            let a = if access == Access::Private {
                "private"
            } else {
                "protected"
            };
            return err(
                loc,
                format!(
                    "'{what}' is a {a} member of '{}'",
                    self.prog.class(declaring).name
                ),
            );
        }
        if !self.path_accessible(path) {
            return err(
                loc,
                format!("'{what}' is inaccessible because of a non-public base class"),
            );
        }
        Ok(())
    }

    /// Looks a member name up in a class and its bases.
    pub fn lookup_member(
        &self,
        c: ClassId,
        name: &str,
        loc: Loc,
    ) -> CxxResult<Option<MemberLookup>> {
        let class = self.prog.class(c);
        if let Some(i) = class.fields.iter().position(|f| f.name == name) {
            return Ok(Some(MemberLookup::Field {
                path: vec![],
                class: c,
                field: i,
            }));
        }
        if let Some((_, v, a)) = class.statics.iter().find(|(n, _, _)| n == name) {
            return Ok(Some(MemberLookup::Static {
                class: c,
                var: *v,
                access: *a,
            }));
        }
        let funcs: Vec<FuncId> = class
            .methods
            .iter()
            .copied()
            .filter(|&m| {
                let f = self.prog.func(m);
                matches!(f.kind, FuncKind::Method { .. }) && f.ident == name
            })
            .collect();
        if !funcs.is_empty() {
            return Ok(Some(MemberLookup::Methods {
                path: vec![],
                class: c,
                funcs,
            }));
        }
        let mut found: Option<MemberLookup> = None;
        for (i, b) in class.bases.iter().enumerate() {
            if let Some(m) = self.lookup_member(b.class, name, loc)? {
                if found.is_some() {
                    return err(
                        loc,
                        format!(
                            "member '{name}' found in multiple base classes of '{}'",
                            class.name
                        ),
                    );
                }
                found = Some(match m {
                    MemberLookup::Field {
                        mut path,
                        class,
                        field,
                    } => {
                        path.insert(0, (c, i));
                        MemberLookup::Field { path, class, field }
                    }
                    MemberLookup::Methods {
                        mut path,
                        class,
                        funcs,
                    } => {
                        path.insert(0, (c, i));
                        MemberLookup::Methods { path, class, funcs }
                    }
                    s => s,
                });
            }
        }
        Ok(found)
    }

    /// The constructors of a class (explicit ones excluded for copy-initialization).
    fn ctors(&self, c: ClassId, allow_explicit: bool) -> Vec<FuncId> {
        self.prog
            .class(c)
            .methods
            .iter()
            .copied()
            .filter(|&m| {
                let f = self.prog.func(m);
                f.kind == FuncKind::Ctor && (allow_explicit || !f.explicit)
            })
            .collect()
    }

    /// The destructor of a class.
    pub fn dtor(&self, c: ClassId) -> Option<FuncId> {
        self.prog
            .class(c)
            .methods
            .iter()
            .copied()
            .find(|&m| self.prog.func(m).kind == FuncKind::Dtor)
    }

    /// `*this` as an lvalue.
    fn this_object(&mut self, loc: Loc) -> CxxResult<TExpr> {
        let Some(c) = self.class else {
            return err(loc, "invalid use of 'this' outside of a member function");
        };
        if self.is_static_method {
            return err(loc, "'this' cannot be used in a static member function");
        }
        let ct = self.prog.types.class(c);
        let ct = self.prog.types.with_const(ct, self.this_const);
        let pt = self.prog.types.ptr(ct);
        let this = self.mk(TypedExprKind::This, pt, false, loc);
        Ok(self.mk(TypedExprKind::Deref(boxed(this)), ct, true, loc))
    }

    // ---- value conversions -----------------------------------------------------------------

    /// Lvalue-to-rvalue, array-to-pointer and function-to-pointer conversions.
    pub fn rvalue(&mut self, e: TExpr) -> TExpr {
        let loc = e.loc;
        match self.prog.types.kind(e.ty).clone() {
            TyKind::Array(el, _) if e.lvalue => {
                let p = self.prog.types.ptr(el);
                self.mk(
                    TypedExprKind::Cast(Conv::ArrayDecay, boxed(e)),
                    p,
                    false,
                    loc,
                )
            }
            TyKind::Func { .. } => {
                let p = self.prog.types.ptr(e.ty);
                self.mk(
                    TypedExprKind::Cast(Conv::FuncDecay, boxed(e)),
                    p,
                    false,
                    loc,
                )
            }
            TyKind::Class(_) => e,
            _ if e.lvalue => {
                let t = self.unqual(e.ty);
                self.mk(TypedExprKind::Cast(Conv::LToR, boxed(e)), t, false, loc)
            }
            _ => e,
        }
    }

    /// Integral promotion (and `float` stays `float`).
    fn promote(&mut self, e: TExpr) -> TExpr {
        let e = self.rvalue(e);
        if self.prog.types.is_integral(e.ty) && self.prog.types.int_rank(e.ty) < 3 {
            let int = self.t(Builtin::Int);
            return self.arith_convert(e, int);
        }
        e
    }

    /// Converts an arithmetic prvalue to another arithmetic type.
    fn arith_convert(&mut self, e: TExpr, to: Ty) -> TExpr {
        let from = self.unqual(e.ty);
        let to_u = self.unqual(to);
        if from == to_u {
            return e;
        }
        let conv = arith_conversion(&self.prog.types, from, to_u);
        let loc = e.loc;
        // Fold conversions of constants.
        match (&e.kind, &conv) {
            (TypedExprKind::Int(v), Conv::IntToInt) => {
                let v = self.truncate(*v, to_u);
                return self.mk(TypedExprKind::Int(v), to_u, false, loc);
            }
            (TypedExprKind::Int(v), Conv::IntToFloat) => {
                return self.mk(TypedExprKind::Float(*v as f64), to_u, false, loc);
            }
            (TypedExprKind::Float(v), Conv::FloatToFloat) => {
                let v = if matches!(self.prog.types.kind(to_u), TyKind::Builtin(Builtin::Float)) {
                    *v as f32 as f64
                } else {
                    *v
                };
                return self.mk(TypedExprKind::Float(v), to_u, false, loc);
            }
            _ => {}
        }
        self.mk(TypedExprKind::Cast(conv, boxed(e)), to_u, false, loc)
    }

    /// Wraps an integer constant to the range of an integer type.
    fn truncate(&self, v: i128, t: Ty) -> i128 {
        self.prog.wrap_to_type(v, t)
    }

    /// The usual arithmetic conversions: the common type of two arithmetic operands.
    fn common_type(&mut self, a: Ty, b: Ty) -> Ty {
        let double = self.t(Builtin::Double);
        let float = self.t(Builtin::Float);
        let a = self.unqual(a);
        let b = self.unqual(b);
        if a == double || b == double {
            return double;
        }
        if a == float || b == float {
            return float;
        }
        let int = self.t(Builtin::Int);
        let pa = if self.prog.types.int_rank(a) < 3 {
            int
        } else {
            a
        };
        let pb = if self.prog.types.int_rank(b) < 3 {
            int
        } else {
            b
        };
        if pa == pb {
            return pa;
        }
        let types = &self.prog.types;
        let (sa, sb) = (types.is_signed(pa), types.is_signed(pb));
        let (ra, rb) = (types.int_rank(pa), types.int_rank(pb));
        if sa == sb {
            return if ra >= rb { pa } else { pb };
        }
        let (signed, unsigned) = if sa { (pa, pb) } else { (pb, pa) };
        let (rs, ru) = (types.int_rank(signed), types.int_rank(unsigned));
        if ru >= rs {
            return unsigned;
        }
        let size_s = self.prog.size_of(signed).unwrap_or(8);
        let size_u = self.prog.size_of(unsigned).unwrap_or(8);
        if size_s > size_u {
            return signed;
        }
        // The unsigned counterpart of the signed type.
        let b = match self.prog.types.kind(signed) {
            TyKind::Builtin(Builtin::Long) => Builtin::ULong,
            TyKind::Builtin(Builtin::LongLong) => Builtin::ULongLong,
            _ => Builtin::UInt,
        };
        self.t(b)
    }

    /// Converts an operand to `bool` (conditions, `!`, `&&`, `||`).
    pub fn to_bool(&mut self, e: TExpr) -> CxxResult<TExpr> {
        let e = self.rvalue(e);
        let loc = e.loc;
        let boolean = self.t(Builtin::Bool);
        if self.prog.types.is_arithmetic(e.ty) {
            return Ok(self.arith_convert(e, boolean));
        }
        if self.prog.types.is_ptr(e.ty) {
            return Ok(self.mk(
                TypedExprKind::Cast(Conv::PtrToBool, boxed(e)),
                boolean,
                false,
                loc,
            ));
        }
        if matches!(self.prog.types.kind(e.ty), TyKind::Nullptr) {
            return Ok(self.mk(TypedExprKind::Bool(false), boolean, false, loc));
        }
        err(
            loc,
            format!(
                "value of type '{}' is not contextually convertible to 'bool'",
                self.name(e.ty)
            ),
        )
    }

    /// The rank of the standard conversion from `from` (a prvalue after decay) to scalar
    /// type `to`, if there is one.
    fn scalar_rank(&mut self, e: &TExpr, to: Ty) -> Option<Rank> {
        let from_ty = match self.prog.types.kind(e.ty).clone() {
            TyKind::Array(el, _) => self.prog.types.ptr(el),
            TyKind::Func { .. } => self.prog.types.ptr(e.ty),
            _ => e.ty,
        };
        let from = self.unqual(from_ty);
        let to = self.unqual(to);
        if from == to {
            return Some(EXACT);
        }
        let types = &self.prog.types;
        if types.is_arithmetic(from) && types.is_arithmetic(to) {
            if types.is_bool(to) {
                return Some(CONVERSION_BOOL);
            }
            let int = types.find(&TyKind::Builtin(Builtin::Int), false);
            let double = types.find(&TyKind::Builtin(Builtin::Double), false);
            let is_promo = (types.is_integral(from) && types.int_rank(from) < 3 && Some(to) == int)
                || (matches!(types.kind(from), TyKind::Builtin(Builtin::Float))
                    && Some(to) == double);
            return Some(if is_promo { PROMOTION } else { CONVERSION });
        }
        if types.is_bool(to) && (types.is_ptr(from) || matches!(types.kind(from), TyKind::Nullptr))
        {
            return Some(CONVERSION_BOOL);
        }
        if let Some(tp) = types.pointee(to) {
            if self.is_null_constant(e) || matches!(types.kind(from), TyKind::Nullptr) {
                return Some(CONVERSION);
            }
            let fp = types.pointee(from)?;
            let fc = types.is_const(fp);
            let tc = types.is_const(tp);
            if fc && !tc {
                return None;
            }
            let fpu = types.find(types.kind(fp), false).unwrap_or(fp);
            let tpu = types.find(types.kind(tp), false).unwrap_or(tp);
            if fpu == tpu {
                return Some(EXACT_QUAL);
            }
            if types.is_void(tpu) && !types.is_func(fpu) {
                return Some(CONVERSION_PTR);
            }
            if let (Some(fc), Some(tc)) = (types.class_of(fpu), types.class_of(tpu))
                && self.base_path(fc, tc).is_some()
            {
                return Some(CONVERSION_PTR);
            }
        }
        None
    }

    /// The rank of initializing a parameter of type `param` from `e`.
    fn ics(&mut self, e: &TExpr, param: Ty) -> Option<Rank> {
        if let Some(referee) = self.prog.types.referee(param) {
            let rc = self.prog.types.is_const(referee);
            let ru = self.unqual(referee);
            let eu = self.unqual(e.ty);
            if let (Some(ec), Some(tc)) =
                (self.prog.types.class_of(eu), self.prog.types.class_of(ru))
            {
                let path = self.base_path(ec, tc)?;
                let econst = self.prog.types.is_const(e.ty);
                if e.lvalue {
                    if econst && !rc {
                        return None;
                    }
                } else if !rc {
                    return None;
                }
                let qual = if rc && !econst { 1 } else { 0 };
                return Some(if path.is_empty() {
                    Rank(0, qual)
                } else {
                    Rank(2, qual)
                });
            }
            if e.lvalue && eu == ru {
                let econst = self.prog.types.is_const(e.ty);
                if econst && !rc {
                    return None;
                }
                return Some(if rc && !econst { EXACT_QUAL } else { EXACT });
            }
            if !rc {
                return None;
            }
            if self.prog.types.is_class(ru) {
                return self.converting_ctor_rank(e, ru);
            }
            return self.scalar_rank(e, ru);
        }
        if let Some(tc) = self.prog.types.class_of(param) {
            if let Some(ec) = self.prog.types.class_of(e.ty) {
                let path = self.base_path(ec, tc)?;
                return Some(if path.is_empty() { EXACT } else { CONVERSION });
            }
            return self.converting_ctor_rank(e, param);
        }
        if self.prog.types.is_class(e.ty) {
            return None;
        }
        self.scalar_rank(e, param)
    }

    /// Whether a non-explicit constructor converts `e` to class `t`.
    fn converting_ctor_rank(&mut self, e: &TExpr, t: Ty) -> Option<Rank> {
        let c = self.prog.types.class_of(t)?;
        if self.prog.types.is_class(e.ty) && self.prog.types.class_of(e.ty) != Some(c) {
            // A class converted to another class needs a converting constructor taking it.
        }
        for f in self.ctors(c, false) {
            let params = self.prog.func(f).params.clone();
            if params.len() != 1 || self.prog.is_copy_param(c, &params) {
                continue;
            }
            // Standard conversions only (no second user-defined conversion).
            let p = params[0];
            let target = self.prog.types.referee(p).unwrap_or(p);
            if self.prog.types.is_class(target) {
                if let (Some(ec), Some(tc)) = (
                    self.prog.types.class_of(e.ty),
                    self.prog.types.class_of(target),
                ) && self.base_path(ec, tc).is_some()
                {
                    return Some(USER);
                }
                continue;
            }
            if self.ics(e, p).is_some() {
                return Some(USER);
            }
        }
        None
    }

    /// Copy-initialization of an object or reference of type `to` from `e`.
    pub fn convert(&mut self, e: TExpr, to: Ty, loc: Loc) -> CxxResult<TExpr> {
        if let Some(referee) = self.prog.types.referee(to) {
            return self.bind_reference(e, referee, loc);
        }
        if self.prog.types.is_class(to) {
            return self.init_class_copy(to, e, loc);
        }
        if self.prog.types.is_void(to) {
            return Ok(self.discard(e));
        }
        self.standard_conversion(e, to, loc, false)
    }

    fn discard(&mut self, e: TExpr) -> TExpr {
        let void = self.t(Builtin::Void);
        let loc = e.loc;
        self.mk(
            TypedExprKind::Cast(Conv::ToVoid, boxed(e)),
            void,
            false,
            loc,
        )
    }

    /// A standard conversion to scalar type `to` (`explicit`: as in `static_cast`).
    fn standard_conversion(
        &mut self,
        e: TExpr,
        to: Ty,
        loc: Loc,
        explicit: bool,
    ) -> CxxResult<TExpr> {
        if self.prog.types.is_class(e.ty) {
            return err(
                loc,
                format!(
                    "no viable conversion from '{}' to '{}'",
                    self.name(e.ty),
                    self.name(to)
                ),
            );
        }
        let is_null = self.is_null_constant(&e);
        let e = self.rvalue(e);
        let to_u = self.unqual(to);
        let from = self.unqual(e.ty);
        if from == to_u {
            return Ok(TExpr { ty: to_u, ..e });
        }
        let types = &self.prog.types;
        if types.is_arithmetic(from) && types.is_arithmetic(to_u) {
            return Ok(self.arith_convert(e, to_u));
        }
        if types.is_bool(to_u) && types.is_ptr(from) {
            return Ok(self.mk(
                TypedExprKind::Cast(Conv::PtrToBool, boxed(e)),
                to_u,
                false,
                loc,
            ));
        }
        if let Some(tp) = types.pointee(to_u) {
            if is_null || matches!(types.kind(from), TyKind::Nullptr) {
                return Ok(self.mk(TypedExprKind::NullPtr, to_u, false, loc));
            }
            if let Some(fp) = types.pointee(from) {
                let fc = types.is_const(fp);
                let tc = types.is_const(tp);
                let fpu = types.find(types.kind(fp), false).unwrap_or(fp);
                let tpu = types.find(types.kind(tp), false).unwrap_or(tp);
                let drops_const = fc && !tc;
                if fpu == tpu || (types.is_void(tpu) && !types.is_func(fpu)) {
                    if drops_const && !explicit {
                        return self.drops_const(loc, from, to_u);
                    }
                    return Ok(self.mk(
                        TypedExprKind::Cast(Conv::PtrBitcast, boxed(e)),
                        to_u,
                        false,
                        loc,
                    ));
                }
                if let (Some(fcl), Some(tcl)) = (types.class_of(fpu), types.class_of(tpu)) {
                    if let Some(path) = self.base_path(fcl, tcl) {
                        if drops_const && !explicit {
                            return self.drops_const(loc, from, to_u);
                        }
                        if !self.path_accessible(&path) {
                            return err(
                                loc,
                                format!(
                                    "cannot cast '{}' to its non-public base class '{}'",
                                    self.name(fpu),
                                    self.name(tpu)
                                ),
                            );
                        }
                        return Ok(self.mk(
                            TypedExprKind::Cast(Conv::DerivedToBase(path), boxed(e)),
                            to_u,
                            false,
                            loc,
                        ));
                    }
                    if explicit && let Some(path) = self.base_path(tcl, fcl) {
                        return Ok(self.mk(
                            TypedExprKind::Cast(Conv::BaseToDerived(path), boxed(e)),
                            to_u,
                            false,
                            loc,
                        ));
                    }
                }
                if explicit && self.prog.types.is_void(fpu) {
                    return Ok(self.mk(
                        TypedExprKind::Cast(Conv::PtrBitcast, boxed(e)),
                        to_u,
                        false,
                        loc,
                    ));
                }
            }
        }
        err(
            loc,
            format!(
                "cannot convert '{}' to '{}'",
                self.name(e.ty),
                self.name(to_u)
            ),
        )
    }

    /// Binds a reference to `referee` (a possibly const type) to `e`.
    /// "cannot convert 'from' to 'to' (drops 'const')"
    fn drops_const<T>(&self, loc: Loc, from: Ty, to: Ty) -> CxxResult<T> {
        err(
            loc,
            format!(
                "cannot convert '{}' to '{}' (drops 'const')",
                self.name(from),
                self.name(to)
            ),
        )
    }

    /// Binding a `referee&` to a const lvalue of type `ty`.
    fn binding_drops_const<T>(&self, loc: Loc, referee: Ty, ty: Ty) -> CxxResult<T> {
        err(
            loc,
            format!(
                "binding reference of type '{}&' to value of type '{}' drops 'const' qualifier",
                self.name(referee),
                self.name(ty)
            ),
        )
    }

    /// Binding a non-const `referee&` to a temporary.
    fn temporary_to_non_const<T>(&self, loc: Loc, referee: Ty) -> CxxResult<T> {
        err(
            loc,
            format!(
                "non-const lvalue reference to type '{}' cannot bind to a temporary",
                self.name(referee)
            ),
        )
    }

    fn bind_reference(&mut self, e: TExpr, referee: Ty, loc: Loc) -> CxxResult<TExpr> {
        let rc = self.prog.types.is_const(referee);
        let ru = self.unqual(referee);
        let eu = self.unqual(e.ty);
        let econst = self.prog.types.is_const(e.ty);
        if let (Some(ec), Some(tc)) = (self.prog.types.class_of(eu), self.prog.types.class_of(ru))
            && let Some(path) = self.base_path(ec, tc)
        {
            if !self.path_accessible(&path) {
                return err(
                    loc,
                    format!(
                        "cannot bind '{}' to a reference to its non-public base '{}'",
                        self.name(eu),
                        self.name(ru)
                    ),
                );
            }
            let lv = if e.lvalue {
                if econst && !rc {
                    return self.binding_drops_const(loc, referee, e.ty);
                }
                e
            } else {
                if !rc {
                    return self.temporary_to_non_const(loc, referee);
                }
                self.materialize(e)
            };
            if path.is_empty() {
                return Ok(lv);
            }
            return Ok(self.base_subobject(lv, tc, path, loc));
        }
        if e.lvalue && eu == ru && !matches!(self.prog.types.kind(eu), TyKind::Func { .. }) {
            if econst && !rc {
                return self.binding_drops_const(loc, referee, e.ty);
            }
            return Ok(e);
        }
        if !rc {
            if e.lvalue {
                return err(
                    loc,
                    format!(
                        "cannot bind a reference of type '{}&' to a value of type '{}'",
                        self.name(referee),
                        self.name(e.ty)
                    ),
                );
            }
            return self.temporary_to_non_const(loc, referee);
        }
        // A temporary of the referenced type.
        let converted = if self.prog.types.is_class(ru) {
            self.init_class_copy(ru, e, loc)?
        } else {
            self.standard_conversion(e, ru, loc, false)?
        };
        Ok(self.materialize(converted))
    }

    /// Materializes a prvalue into a temporary (an lvalue).
    pub fn materialize(&mut self, e: TExpr) -> TExpr {
        if e.lvalue {
            return e;
        }
        let ty = e.ty;
        let loc = e.loc;
        self.mk(TypedExprKind::BindTemp(boxed(e)), ty, true, loc)
    }

    /// Copy-initialization of class `t` from `e`.
    fn init_class_copy(&mut self, t: Ty, e: TExpr, loc: Loc) -> CxxResult<TExpr> {
        let tu = self.unqual(t);
        let tc = self.prog.types.class_of(tu).expect("class");
        if let Some(ec) = self.prog.types.class_of(e.ty) {
            if ec == tc && !e.lvalue {
                return Ok(TExpr { ty: tu, ..e });
            }
            if ec == tc || self.base_path(ec, tc).is_some() {
                let lv = self.materialize(e);
                return self.init_from_args(tu, vec![lv], true, false, loc);
            }
        }
        self.init_from_args(tu, vec![e], false, false, loc)
    }

    /// Direct-initialization of class `t` from arguments (`T x(args)`, `T(args)`).
    /// `value_init`: `T()` zero-initializes a class with a trivial default constructor.
    pub fn init_from_args(
        &mut self,
        t: Ty,
        args: Vec<TExpr>,
        direct: bool,
        value_init: bool,
        loc: Loc,
    ) -> CxxResult<TExpr> {
        let tu = self.unqual(t);
        let Some(c) = self.prog.types.class_of(tu) else {
            return err(loc, "not a class type");
        };
        if !self.prog.class(c).complete {
            return err(
                loc,
                format!(
                    "cannot construct an object of incomplete type '{}'",
                    self.name(tu)
                ),
            );
        }
        if args.len() == 1 && self.prog.types.class_of(args[0].ty) == Some(c) && !args[0].lvalue {
            let a = args.into_iter().next().expect("one");
            return Ok(TExpr { ty: tu, ..a });
        }
        let cands = self.ctors(c, direct);
        let name = self.prog.class(c).name.clone();
        let f = self.resolve_overload(&cands, &args, None, &name, loc)?;
        self.use_func(f, loc)?;
        let func = self.prog.func(f);
        if let Some(access_err) = self.member_access_error(f) {
            return err(loc, access_err);
        }
        if func.implicit.is_some() && func.trivial {
            return Ok(match func.implicit {
                Some(Implicit::DefaultCtor) => {
                    if value_init {
                        self.mk(TypedExprKind::ZeroInit, tu, false, loc)
                    } else {
                        self.mk(TypedExprKind::DefaultInit, tu, false, loc)
                    }
                }
                _ => {
                    let a = args.into_iter().next().expect("copy has one argument");
                    let params = self.prog.func(f).params.clone();
                    let lv = self.convert(a, params[0], loc)?;
                    self.mk(TypedExprKind::TrivialCopy(boxed(lv)), tu, false, loc)
                }
            });
        }
        let zero_first =
            value_init && args.is_empty() && func.implicit == Some(Implicit::DefaultCtor);
        let args = self.convert_args(f, args, loc)?;
        let construct = self.mk(TypedExprKind::Construct { ctor: f, args }, tu, false, loc);
        if zero_first {
            // Value-initialization zero-initializes first; the implicit constructor then
            // runs.
            return Ok(self.mk(TypedExprKind::ZeroThen(boxed(construct)), tu, false, loc));
        }
        Ok(construct)
    }

    fn member_access_error(&self, f: FuncId) -> Option<String> {
        let func = self.prog.func(f);
        let c = func.class?;
        let ok = match func.access {
            Access::Public => true,
            Access::Private => self.class == Some(c),
            Access::Protected => self
                .class
                .is_some_and(|k| k == c || self.base_path(k, c).is_some()),
        };
        if ok {
            None
        } else {
            let a = if func.access == Access::Private {
                "private"
            } else {
                "protected"
            };
            Some(format!(
                "'{}' is a {a} member of '{}'",
                func.display,
                self.prog.class(c).name
            ))
        }
    }

    /// Converts call arguments to the parameter types of `f` (variadic arguments get the
    /// default promotions).
    pub fn convert_args(&mut self, f: FuncId, args: Vec<TExpr>, loc: Loc) -> CxxResult<Vec<TExpr>> {
        let params = self.prog.func(f).params.clone();
        self.convert_args_to(&params, args, loc)
    }

    fn convert_args_to(
        &mut self,
        params: &[Ty],
        args: Vec<TExpr>,
        loc: Loc,
    ) -> CxxResult<Vec<TExpr>> {
        let mut out = Vec::new();
        for (i, a) in args.into_iter().enumerate() {
            let aloc = a.loc;
            match params.get(i) {
                Some(&p) => out.push(self.convert(a, p, aloc)?),
                None => out.push(self.vararg(a)?),
            }
        }
        let _ = loc;
        Ok(out)
    }

    /// Default argument promotions for `...`.
    fn vararg(&mut self, a: TExpr) -> CxxResult<TExpr> {
        if self.prog.types.is_class(a.ty) {
            return unsupported(a.loc, "passing an object of class type through '...'");
        }
        let a = self.rvalue(a);
        if matches!(self.prog.types.kind(a.ty), TyKind::Builtin(Builtin::Float)) {
            let d = self.t(Builtin::Double);
            return Ok(self.arith_convert(a, d));
        }
        if matches!(self.prog.types.kind(a.ty), TyKind::Nullptr) {
            let vp = self.t(Builtin::Void);
            let vp = self.prog.types.ptr(vp);
            return Ok(self.mk(TypedExprKind::NullPtr, vp, false, a.loc));
        }
        Ok(self.promote(a))
    }

    /// Picks the best viable function. `object`: the constness of the object expression
    /// for non-static member functions.
    pub fn resolve_overload(
        &mut self,
        cands: &[FuncId],
        args: &[TExpr],
        object: Option<bool>,
        name: &str,
        loc: Loc,
    ) -> CxxResult<FuncId> {
        let mut viable: Vec<(FuncId, Vec<Rank>)> = Vec::new();
        for &f in cands {
            let func = self.prog.func(f);
            if func.seq >= self.visible && func.class.is_none() {
                continue;
            }
            let params = func.params.clone();
            let variadic = func.variadic;
            let is_const = func.is_const;
            let is_instance = matches!(func.kind, FuncKind::Method { is_static: false });
            if args.len() < params.len() || (args.len() > params.len() && !variadic) {
                continue;
            }
            let mut ranks = Vec::new();
            if let (Some(obj_const), true) = (object, is_instance) {
                if obj_const && !is_const {
                    continue;
                }
                ranks.push(if obj_const == is_const {
                    EXACT
                } else {
                    EXACT_QUAL
                });
            }
            let mut ok = true;
            for (i, a) in args.iter().enumerate() {
                let r = match params.get(i) {
                    Some(&p) => self.ics(a, p),
                    None => Some(ELLIPSIS),
                };
                match r {
                    Some(r) => ranks.push(r),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                viable.push((f, ranks));
            }
        }
        if viable.is_empty() {
            let arg_types: Vec<String> = args.iter().map(|a| self.name(a.ty)).collect();
            return err(
                loc,
                format!(
                    "no matching function for call to '{name}' with arguments ({})",
                    arg_types.join(", ")
                ),
            );
        }
        let better = |a: &[Rank], b: &[Rank]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| x <= y)
                && a.iter().zip(b).any(|(x, y)| x < y)
        };
        let mut best: Vec<usize> = Vec::new();
        for i in 0..viable.len() {
            if !(0..viable.len()).any(|j| j != i && better(&viable[j].1, &viable[i].1)) {
                best.push(i);
            }
        }
        if best.len() != 1 {
            return err(loc, format!("call to '{name}' is ambiguous"));
        }
        Ok(viable[best[0]].0)
    }

    // ---- expressions ------------------------------------------------------------------------

    /// Types an expression.
    pub fn expr(&mut self, e: &Expr) -> CxxResult<TExpr> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || self.expr_inner(e))
    }

    /// Types an expression and applies lvalue-to-rvalue/decay conversions.
    pub fn rexpr(&mut self, e: &Expr) -> CxxResult<TExpr> {
        let t = self.expr(e)?;
        Ok(self.rvalue(t))
    }

    /// A condition converted to `bool`.
    pub fn condition(&mut self, e: &Expr) -> CxxResult<TExpr> {
        let t = self.expr(e)?;
        self.to_bool(t)
    }

    fn int_literal(&mut self, value: u128, unsigned: bool, long: u8, loc: Loc) -> CxxResult<TExpr> {
        let b = match (unsigned, long) {
            (false, 0) if value <= i32::MAX as u128 => Builtin::Int,
            (false, 0 | 1) if value <= i64::MAX as u128 => Builtin::Long,
            (false, 2) if value <= i64::MAX as u128 => Builtin::LongLong,
            (true, 0) if value <= u32::MAX as u128 => Builtin::UInt,
            (_, 2) => Builtin::ULongLong,
            _ => Builtin::ULong,
        };
        let t = self.t(b);
        let v = self.truncate(value as i128, t);
        Ok(self.mk(TypedExprKind::Int(v), t, false, loc))
    }

    fn expr_inner(&mut self, e: &Expr) -> CxxResult<TExpr> {
        let loc = e.loc;
        match &e.kind {
            ExprKind::Int {
                value,
                unsigned,
                long,
            } => self.int_literal(*value, *unsigned, *long, loc),
            ExprKind::Float { value, single } => {
                let t = self.t(if *single {
                    Builtin::Float
                } else {
                    Builtin::Double
                });
                let v = if *single {
                    *value as f32 as f64
                } else {
                    *value
                };
                Ok(self.mk(TypedExprKind::Float(v), t, false, loc))
            }
            ExprKind::Char(c) => {
                let t = self.t(Builtin::Char);
                Ok(self.mk(TypedExprKind::Int(*c as i8 as i128), t, false, loc))
            }
            ExprKind::Bool(b) => {
                let t = self.t(Builtin::Bool);
                Ok(self.mk(TypedExprKind::Bool(*b), t, false, loc))
            }
            ExprKind::Str(s) => {
                let ch = self.t(Builtin::Char);
                let cch = self.prog.types.with_const(ch, true);
                let at = self
                    .prog
                    .types
                    .intern(TyKind::Array(cch, s.len() as u64 + 1), false);
                Ok(self.mk(TypedExprKind::Str(s.clone()), at, true, loc))
            }
            ExprKind::Nullptr => {
                let t = self.prog.types.intern(TyKind::Nullptr, false);
                Ok(self.mk(TypedExprKind::NullPtr, t, false, loc))
            }
            ExprKind::This => {
                let obj = self.this_object(loc)?;
                let TypedExprKind::Deref(this) = obj.kind else {
                    unreachable!("this_object builds a Deref")
                };
                Ok(*this)
            }
            ExprKind::Name(n) => self.name_expr(n, loc),
            ExprKind::Qualified(scope, n) => self.qualified_expr(scope, n, loc),
            ExprKind::Unary(op, x) => self.unary(*op, x, loc),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, loc),
            ExprKind::Conditional(c, t, f) => self.conditional(c, t, f, loc),
            ExprKind::Cast { ty, expr, style } => {
                let to = self.prog.resolve_type(ty, loc)?;
                let x = self.expr(expr)?;
                self.explicit_cast(x, to, *style, loc)
            }
            ExprKind::Construct { ty, args } => {
                let t = self.prog.resolve_type(ty, loc)?;
                let targs = self.exprs(args)?;
                if self.prog.types.is_class(t) {
                    let value_init = targs.is_empty();
                    return self.init_from_args(t, targs, true, value_init, loc);
                }
                if targs.is_empty() {
                    if self.prog.types.is_void(t) {
                        return err(loc, "cannot construct 'void'");
                    }
                    let tu = self.unqual(t);
                    return Ok(self.mk(TypedExprKind::ZeroInit, tu, false, loc));
                }
                err(
                    loc,
                    format!(
                        "excess elements in initializer of scalar type '{}'",
                        self.name(t)
                    ),
                )
            }
            ExprKind::Call { callee, args } => self.call(callee, args, loc),
            ExprKind::Member {
                base,
                name,
                arrow,
                qualifier,
            } => {
                let obj = self.member_base(base, *arrow, loc)?;
                match self.member_of(obj, name, qualifier.as_deref(), loc)? {
                    Member::Value(v) => Ok(v),
                    Member::Bound { .. } => err(
                        loc,
                        format!("reference to non-static member function '{name}' must be called"),
                    ),
                }
            }
            ExprKind::Index(a, i) => {
                let a = self.rexpr(a)?;
                let i = self.rexpr(i)?;
                // `i[a]` is allowed too.
                let (p, n) = if self.prog.types.is_ptr(a.ty) {
                    (a, i)
                } else {
                    (i, a)
                };
                let Some(pointee) = self.prog.types.pointee(p.ty) else {
                    return err(loc, "subscripted value is not an array or pointer");
                };
                if !self.prog.types.is_integral(n.ty) {
                    return err(loc, "array subscript is not an integer");
                }
                if self.prog.size_of(pointee).is_none() {
                    return err(loc, "subscript of pointer to incomplete type");
                }
                let pt = p.ty;
                let sum = self.mk(
                    TypedExprKind::PtrOffset {
                        ptr: boxed(p),
                        offset: boxed(n),
                        negate: false,
                    },
                    pt,
                    false,
                    loc,
                );
                Ok(self.mk(TypedExprKind::Deref(boxed(sum)), pointee, true, loc))
            }
            ExprKind::SizeofType(t) => {
                let ty = self.prog.resolve_type(t, loc)?;
                self.sizeof_type(ty, loc)
            }
            ExprKind::SizeofExpr(x) => {
                let t = self.expr(x)?;
                let ty = t.ty;
                self.sizeof_type(ty, loc)
            }
            ExprKind::New {
                ty,
                array_size,
                args,
            } => self.new_expr(ty, array_size.as_deref(), args.as_deref(), loc),
            ExprKind::Delete { array, expr } => {
                let p = self.rexpr(expr)?;
                let Some(pointee) = self.prog.types.pointee(p.ty) else {
                    return err(
                        loc,
                        format!("cannot delete expression of type '{}'", self.name(p.ty)),
                    );
                };
                if self.prog.types.is_void(pointee) {
                    return unsupported(loc, "deleting a 'void*'");
                }
                if self.prog.size_of(pointee).is_none() {
                    return err(loc, "deleting a pointer to an incomplete type");
                }
                if let Some(c) = self.prog.types.class_of(pointee)
                    && let Some(d) = self.dtor(c)
                {
                    self.use_func(d, loc)?;
                    if let Some(m) = self.member_access_error(d) {
                        return err(loc, m);
                    }
                }
                let void = self.t(Builtin::Void);
                Ok(self.mk(
                    TypedExprKind::Delete {
                        array: *array,
                        expr: boxed(p),
                    },
                    void,
                    false,
                    loc,
                ))
            }
            ExprKind::Throw(x) => self.throw_expr(x.as_deref(), loc),
        }
    }

    fn exprs(&mut self, es: &[Expr]) -> CxxResult<Vec<TExpr>> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn sizeof_type(&mut self, ty: Ty, loc: Loc) -> CxxResult<TExpr> {
        let ty = self.prog.types.referee(ty).unwrap_or(ty);
        let Some(size) = self.prog.size_of(ty) else {
            return err(
                loc,
                format!(
                    "invalid application of 'sizeof' to an incomplete type '{}'",
                    self.name(ty)
                ),
            );
        };
        let ul = self.t(Builtin::ULong);
        Ok(self.mk(TypedExprKind::Int(size as i128), ul, false, loc))
    }

    /// The exception object type of `throw e` and its initializer.
    fn throw_expr(&mut self, x: Option<&Expr>, loc: Loc) -> CxxResult<TExpr> {
        let void = self.t(Builtin::Void);
        let Some(x) = x else {
            return Ok(self.mk(TypedExprKind::Throw(None), void, false, loc));
        };
        let te = self.expr(x)?;
        let te = if self.prog.types.is_class(te.ty) {
            te
        } else {
            self.rvalue(te)
        };
        if matches!(self.prog.types.kind(te.ty), TyKind::Nullptr) {
            let t = self.unqual(te.ty);
            self.prog.need_typeinfo(t);
            return Ok(self.mk(
                TypedExprKind::Throw(Some(boxed(TExpr { ty: t, ..te }))),
                void,
                false,
                loc,
            ));
        }
        let t = self.unqual(te.ty);
        if self.prog.types.is_void(t) {
            return err(loc, "cannot throw an expression of type 'void'");
        }
        if let Some(c) = self.prog.types.class_of(t) {
            if !self.prog.class(c).complete {
                return err(
                    loc,
                    format!(
                        "cannot throw an object of incomplete type '{}'",
                        self.name(t)
                    ),
                );
            }
            if let Some(d) = self.dtor(c) {
                self.use_func(d, loc)?;
            }
        }
        let init = self.convert(te, t, loc)?;
        self.prog.need_typeinfo(t);
        Ok(self.mk(TypedExprKind::Throw(Some(boxed(init))), void, false, loc))
    }

    fn new_expr(
        &mut self,
        ty: &ast::TypeExpr,
        array_size: Option<&Expr>,
        args: Option<&[Expr]>,
        loc: Loc,
    ) -> CxxResult<TExpr> {
        let t = self.prog.resolve_type(ty, loc)?;
        if self.prog.types.referee(t).is_some()
            || self.prog.types.is_void(t)
            || self.prog.types.is_func(t)
        {
            return err(
                loc,
                format!("cannot allocate an object of type '{}'", self.name(t)),
            );
        }
        if matches!(self.prog.types.kind(t), TyKind::Array(..)) {
            return unsupported(loc, "new of an array type");
        }
        if self.prog.size_of(t).is_none() {
            return err(
                loc,
                format!("allocation of incomplete type '{}'", self.name(t)),
            );
        }
        let elem = t;
        let count = match array_size {
            Some(n) => {
                let n = self.rexpr(n)?;
                if !self.prog.types.is_integral(n.ty) {
                    return err(n.loc, "array size is not an integer");
                }
                let ul = self.t(Builtin::ULong);
                Some(boxed(self.arith_convert(n, ul)))
            }
            None => None,
        };
        let init = if let Some(c) = self.prog.types.class_of(elem) {
            let targs = match args {
                Some(a) => self.exprs(a)?,
                None => Vec::new(),
            };
            let value_init = args.is_some_and(|a| a.is_empty());
            let i = self.init_from_args(elem, targs, true, value_init, loc)?;
            if let Some(d) = self.dtor(c) {
                self.use_func(d, loc)?;
            }
            Some(boxed(i))
        } else {
            match args {
                None => None,
                Some([]) => {
                    let tu = self.unqual(elem);
                    Some(boxed(self.mk(TypedExprKind::ZeroInit, tu, false, loc)))
                }
                Some([a]) => {
                    let a = self.expr(a)?;
                    Some(boxed(self.convert(a, elem, loc)?))
                }
                Some(_) => return err(loc, "excess elements in scalar initializer"),
            }
        };
        let pt = self.prog.types.ptr(elem);
        Ok(self.mk(TypedExprKind::New { elem, count, init }, pt, false, loc))
    }

    // ---- names -------------------------------------------------------------------------------

    fn lookup_name(&mut self, n: &str, loc: Loc) -> CxxResult<NameRef> {
        if let Some(l) = self.find_local(n) {
            return Ok(NameRef::Local(l));
        }
        if let Some(c) = self.class
            && let Some(m) = self.lookup_member(c, n, loc)?
        {
            return Ok(NameRef::Member(m));
        }
        if let Some(&g) = self.prog.globals_by_name.get(n)
            && self.prog.global(g).seq < self.visible
        {
            return Ok(NameRef::Global(g));
        }
        if let Some(fs) = self.prog.funcs_by_name.get(n) {
            let fs: Vec<FuncId> = fs
                .iter()
                .copied()
                .filter(|&f| self.prog.func(f).seq < self.visible)
                .collect();
            if !fs.is_empty() {
                return Ok(NameRef::Funcs(fs));
            }
        }
        if let Some(&v) = self.prog.constants.get(n) {
            return Ok(NameRef::Constant(v));
        }
        if self.prog.using_std
            && let Some(fs) = self.prog.funcs_by_name.get(&format!("std::{n}"))
        {
            return Ok(NameRef::Funcs(fs.clone()));
        }
        if self.prog.class_by_name.contains_key(n) {
            return err(loc, format!("'{n}' is a type, not a value"));
        }
        err(loc, format!("use of undeclared identifier '{n}'"))
    }

    fn local_expr(&mut self, l: LocalId, loc: Loc) -> TExpr {
        let info = &self.locals[l.0 as usize];
        let ty = self.prog.types.referee(info.ty).unwrap_or(info.ty);
        if let Some(v) = info.const_value {
            let t = self.unqual(ty);
            return self.mk(TypedExprKind::Int(v), t, false, loc);
        }
        self.mk(TypedExprKind::Local(l), ty, true, loc)
    }

    fn global_expr(&mut self, g: VarId, loc: Loc) -> TExpr {
        let gv = self.prog.global(g);
        let ty = gv.ty;
        if let Some(v) = gv.const_value {
            let t = self.unqual(ty);
            return self.mk(TypedExprKind::Int(v), t, false, loc);
        }
        self.mk(TypedExprKind::Global(g), ty, true, loc)
    }

    fn name_expr(&mut self, n: &str, loc: Loc) -> CxxResult<TExpr> {
        match self.lookup_name(n, loc)? {
            NameRef::Local(l) => Ok(self.local_expr(l, loc)),
            NameRef::Global(g) => Ok(self.global_expr(g, loc)),
            NameRef::Constant(v) => {
                let t = self.t(Builtin::Int);
                Ok(self.mk(TypedExprKind::Int(v), t, false, loc))
            }
            NameRef::Funcs(fs) => self.func_designator(&fs, n, loc),
            NameRef::Member(MemberLookup::Static { class, var, access }) => {
                self.check_member_access(class, access, &vec![], n, loc)?;
                Ok(self.global_expr(var, loc))
            }
            NameRef::Member(MemberLookup::Methods { funcs, .. })
                if funcs.iter().all(|&f| {
                    matches!(self.prog.func(f).kind, FuncKind::Method { is_static: true })
                }) =>
            {
                self.func_designator(&funcs, n, loc)
            }
            NameRef::Member(m) => {
                let obj = self.this_object(loc)?;
                match self.member_from_lookup(obj, m, n, loc)? {
                    Member::Value(v) => Ok(v),
                    Member::Bound { .. } => err(
                        loc,
                        format!("reference to non-static member function '{n}' must be called"),
                    ),
                }
            }
        }
    }

    fn func_designator(&mut self, fs: &[FuncId], n: &str, loc: Loc) -> CxxResult<TExpr> {
        if fs.len() != 1 {
            return unsupported(
                loc,
                format!("taking the address of overloaded function '{n}'"),
            );
        }
        let f = fs[0];
        self.use_func(f, loc)?;
        let func = self.prog.func(f);
        let (ret, params, variadic) = (func.ret, func.params.clone(), func.variadic);
        let ft = self.prog.types.intern(
            TyKind::Func {
                ret,
                params,
                variadic,
            },
            false,
        );
        Ok(self.mk(TypedExprKind::Func(f), ft, true, loc))
    }

    fn qualified_expr(&mut self, scope: &str, n: &str, loc: Loc) -> CxxResult<TExpr> {
        if scope.is_empty() || scope == "std" {
            let key = if scope.is_empty() {
                n.to_string()
            } else {
                format!("std::{n}")
            };
            if let Some(fs) = self.prog.funcs_by_name.get(&key).cloned() {
                return self.func_designator(&fs, n, loc);
            }
            if scope.is_empty()
                && let Some(&g) = self.prog.globals_by_name.get(n)
            {
                return Ok(self.global_expr(g, loc));
            }
            return err(
                loc,
                format!(
                    "no member named '{n}' in namespace '{}'",
                    if scope.is_empty() { "::" } else { scope }
                ),
            );
        }
        let Some(&c) = self.prog.class_by_name.get(scope) else {
            return err(loc, format!("'{scope}' is not a class"));
        };
        match self.lookup_member(c, n, loc)? {
            Some(MemberLookup::Static { class, var, access }) => {
                self.check_member_access(class, access, &vec![], n, loc)?;
                Ok(self.global_expr(var, loc))
            }
            Some(MemberLookup::Methods { funcs, .. }) => {
                if funcs.iter().all(|&f| {
                    matches!(self.prog.func(f).kind, FuncKind::Method { is_static: true })
                }) {
                    return self.func_designator(&funcs, n, loc);
                }
                unsupported(loc, "pointers to member functions")
            }
            Some(MemberLookup::Field { .. }) => {
                // `A::x` inside a member of A (or a derived class) names this->x.
                if let Some(me) = self.class
                    && self.base_path(me, c).is_some()
                {
                    let obj = self.this_object(loc)?;
                    let obj = self.as_base(obj, c, loc)?;
                    return match self.member_of(obj, n, None, loc)? {
                        Member::Value(v) => Ok(v),
                        Member::Bound { .. } => err(loc, "member function must be called"),
                    };
                }
                unsupported(loc, "pointers to data members")
            }
            None => err(loc, format!("no member named '{n}' in '{scope}'")),
        }
    }

    /// Converts a class lvalue to its base class `c`.
    fn as_base(&mut self, obj: TExpr, c: ClassId, loc: Loc) -> CxxResult<TExpr> {
        let Some(oc) = self.prog.types.class_of(obj.ty) else {
            return err(loc, "not a class");
        };
        let Some(path) = self.base_path(oc, c) else {
            return err(
                loc,
                format!(
                    "'{}' is not a base of '{}'",
                    self.prog.class(c).name,
                    self.prog.class(oc).name
                ),
            );
        };
        if path.is_empty() {
            return Ok(obj);
        }
        Ok(self.base_subobject(obj, c, path, loc))
    }

    /// The base class `base` subobject of the class lvalue `obj` along `path`, as `const`
    /// as `obj`.
    fn base_subobject(&mut self, obj: TExpr, base: ClassId, path: BasePath, loc: Loc) -> TExpr {
        let bt = self.prog.types.class(base);
        let bt = self
            .prog
            .types
            .with_const(bt, self.prog.types.is_const(obj.ty));
        self.mk(
            TypedExprKind::ToBase {
                expr: boxed(obj),
                path,
            },
            bt,
            true,
            loc,
        )
    }

    /// The object of `a.m` / `p->m` as a class lvalue.
    fn member_base(&mut self, base: &Expr, arrow: bool, loc: Loc) -> CxxResult<TExpr> {
        let b = self.expr(base)?;
        let obj = if arrow {
            let p = self.rvalue(b);
            let Some(pointee) = self.prog.types.pointee(p.ty) else {
                return err(
                    loc,
                    format!(
                        "member reference type '{}' is not a pointer",
                        self.name(p.ty)
                    ),
                );
            };
            self.mk(TypedExprKind::Deref(boxed(p)), pointee, true, loc)
        } else {
            b
        };
        let Some(c) = self.prog.types.class_of(obj.ty) else {
            return err(
                loc,
                format!(
                    "member reference base type '{}' is not a class",
                    self.name(obj.ty)
                ),
            );
        };
        if !self.prog.class(c).complete {
            return err(
                loc,
                format!("member access into incomplete type '{}'", self.name(obj.ty)),
            );
        }
        Ok(self.materialize(obj))
    }

    fn member_of(
        &mut self,
        obj: TExpr,
        name: &str,
        qualifier: Option<&str>,
        loc: Loc,
    ) -> CxxResult<Member> {
        let c = self.prog.types.class_of(obj.ty).expect("class object");
        let (obj, c) = match qualifier {
            Some(q) => {
                let Some(&qc) = self.prog.class_by_name.get(q) else {
                    return err(loc, format!("'{q}' is not a class"));
                };
                (self.as_base(obj, qc, loc)?, qc)
            }
            None => (obj, c),
        };
        let Some(m) = self.lookup_member(c, name, loc)? else {
            return err(
                loc,
                format!("no member named '{name}' in '{}'", self.prog.class(c).name),
            );
        };
        self.member_from_lookup(obj, m, name, loc)
    }

    fn member_from_lookup(
        &mut self,
        obj: TExpr,
        m: MemberLookup,
        name: &str,
        loc: Loc,
    ) -> CxxResult<Member> {
        match m {
            MemberLookup::Field { path, class, field } => {
                let access = self.prog.class(class).fields[field].access;
                self.check_member_access(class, access, &path, name, loc)?;
                let obj = self.as_base(obj, class, loc)?;
                let fty = self.prog.class(class).fields[field].ty;
                let fty = if self.prog.types.is_const(obj.ty) {
                    self.prog.types.with_const(fty, true)
                } else {
                    fty
                };
                Ok(Member::Value(self.mk(
                    TypedExprKind::Field {
                        base: boxed(obj),
                        class,
                        field,
                    },
                    fty,
                    true,
                    loc,
                )))
            }
            MemberLookup::Static { class, var, access } => {
                self.check_member_access(class, access, &vec![], name, loc)?;
                Ok(Member::Value(self.global_expr(var, loc)))
            }
            MemberLookup::Methods { path, class, funcs } => Ok(Member::Bound {
                object: obj,
                path,
                class,
                funcs,
            }),
        }
    }

    // ---- calls ---------------------------------------------------------------------------------

    fn call(&mut self, callee: &Expr, args: &[Expr], loc: Loc) -> CxxResult<TExpr> {
        // Arguments are typed first (their conversions depend on the chosen function).
        match &callee.kind {
            ExprKind::Name(n) => match self.lookup_name(n, callee.loc)? {
                NameRef::Funcs(fs) => {
                    let targs = self.exprs(args)?;
                    let f = self.resolve_overload(&fs, &targs, None, n, loc)?;
                    self.direct_call(f, targs, loc)
                }
                NameRef::Member(m) => {
                    let obj = if self.is_static_method {
                        // Only static members are usable without an object.
                        let Some(c) = self.class else {
                            return err(loc, "no object");
                        };
                        let ct = self.prog.types.class(c);
                        let ct = self.prog.types.with_const(ct, false);
                        self.mk(TypedExprKind::ZeroInit, ct, true, loc)
                    } else {
                        self.this_object(loc)?
                    };
                    let member = self.member_from_lookup(obj, m, n, callee.loc)?;
                    self.call_member(member, args, n, loc)
                }
                other => {
                    let f = match other {
                        NameRef::Local(l) => self.local_expr(l, callee.loc),
                        NameRef::Global(g) => self.global_expr(g, callee.loc),
                        _ => {
                            return err(
                                callee.loc,
                                format!("called object '{n}' is not a function"),
                            );
                        }
                    };
                    self.indirect_call(f, args, loc)
                }
            },
            ExprKind::Qualified(scope, n) if !scope.is_empty() && scope != "std" => {
                let Some(&c) = self.prog.class_by_name.get(scope) else {
                    return err(callee.loc, format!("'{scope}' is not a class"));
                };
                match self.lookup_member(c, n, callee.loc)? {
                    Some(MemberLookup::Methods { path, class, funcs }) => {
                        let all_static = funcs.iter().all(|&f| {
                            matches!(self.prog.func(f).kind, FuncKind::Method { is_static: true })
                        });
                        if all_static {
                            let targs = self.exprs(args)?;
                            let f = self.resolve_overload(&funcs, &targs, None, n, loc)?;
                            return self.direct_call(f, targs, loc);
                        }
                        // `Base::f()` inside a member: a non-virtual call on *this.
                        let Some(me) = self.class else {
                            return err(
                                callee.loc,
                                format!(
                                    "call to non-static member function '{scope}::{n}' without an object"
                                ),
                            );
                        };
                        if self.base_path(me, c).is_none() {
                            return err(
                                callee.loc,
                                format!(
                                    "'{scope}' is not a base of '{}'",
                                    self.prog.class(me).name
                                ),
                            );
                        }
                        let obj = self.this_object(loc)?;
                        let obj = self.as_base(obj, c, loc)?;
                        self.call_member(
                            Member::Bound {
                                object: obj,
                                path,
                                class,
                                funcs,
                            },
                            args,
                            n,
                            loc,
                        )
                    }
                    Some(_) => {
                        let f = self.qualified_expr(scope, n, callee.loc)?;
                        self.indirect_call(f, args, loc)
                    }
                    None => err(callee.loc, format!("no member named '{n}' in '{scope}'")),
                }
            }
            ExprKind::Qualified(scope, n) => {
                let key = if scope.is_empty() {
                    n.to_string()
                } else {
                    format!("std::{n}")
                };
                let Some(fs) = self.prog.funcs_by_name.get(&key).cloned() else {
                    return err(
                        callee.loc,
                        format!(
                            "no function named '{n}' in namespace '{}'",
                            if scope.is_empty() { "::" } else { scope }
                        ),
                    );
                };
                let targs = self.exprs(args)?;
                let f = self.resolve_overload(&fs, &targs, None, n, loc)?;
                self.direct_call(f, targs, loc)
            }
            ExprKind::Member {
                base,
                name,
                arrow,
                qualifier,
            } => {
                let obj = self.member_base(base, *arrow, callee.loc)?;
                let m = self.member_of(obj, name, qualifier.as_deref(), callee.loc)?;
                self.call_member(m, args, name, loc)
            }
            _ => {
                let f = self.expr(callee)?;
                self.indirect_call(f, args, loc)
            }
        }
    }

    fn direct_call(&mut self, f: FuncId, targs: Vec<TExpr>, loc: Loc) -> CxxResult<TExpr> {
        self.use_func(f, loc)?;
        if let Some(m) = self.member_access_error(f) {
            return err(loc, m);
        }
        let args = self.convert_args(f, targs, loc)?;
        let ret = self.prog.func(f).ret;
        Ok(self.call_result(Callee::Direct(f), args, ret, loc))
    }

    fn call_result(&mut self, callee: Callee, args: Vec<TExpr>, ret: Ty, loc: Loc) -> TExpr {
        match self.prog.types.referee(ret) {
            Some(r) => self.mk(TypedExprKind::Call { callee, args }, r, true, loc),
            None => self.mk(TypedExprKind::Call { callee, args }, ret, false, loc),
        }
    }

    fn call_member(&mut self, m: Member, args: &[Expr], name: &str, loc: Loc) -> CxxResult<TExpr> {
        let (object, class, funcs) = match m {
            Member::Bound {
                object,
                class,
                funcs,
                ..
            } => (object, class, funcs),
            Member::Value(v) => return self.indirect_call(v, args, loc),
        };
        let targs = self.exprs(args)?;
        let obj_const = self.prog.types.is_const(object.ty);
        let f = self.resolve_overload(&funcs, &targs, Some(obj_const), name, loc)?;
        self.use_func(f, loc)?;
        if let Some(msg) = self.member_access_error(f) {
            return err(loc, msg);
        }
        let args = self.convert_args(f, targs, loc)?;
        let ret = self.prog.func(f).ret;
        if matches!(self.prog.func(f).kind, FuncKind::Method { is_static: true }) {
            let call = self.call_result(Callee::Direct(f), args, ret, loc);
            // The object expression is still evaluated.
            if matches!(object.kind, TypedExprKind::Deref(ref t) if matches!(t.kind, TypedExprKind::This))
                || matches!(object.kind, TypedExprKind::ZeroInit)
            {
                return Ok(call);
            }
            let ov = self.discard(object);
            let (ty, lv) = (call.ty, call.lvalue);
            return Ok(self.mk(TypedExprKind::Comma(boxed(ov), boxed(call)), ty, lv, loc));
        }
        if matches!(object.kind, TypedExprKind::ZeroInit) {
            return err(
                loc,
                format!(
                    "call to non-static member function '{name}' from a static member function"
                ),
            );
        }
        let object = self.as_base(object, class, loc)?;
        Ok(self.call_result(
            Callee::Method {
                func: f,
                object: boxed(object),
            },
            args,
            ret,
            loc,
        ))
    }

    fn indirect_call(&mut self, f: TExpr, args: &[Expr], loc: Loc) -> CxxResult<TExpr> {
        // `(*fp)(...)` and `fp(...)` both call through the pointer.
        let f = match f.kind {
            TypedExprKind::Deref(p) if self.prog.types.is_func(f.ty) => *p,
            TypedExprKind::Func(id) => {
                let targs = self.exprs(args)?;
                return self.direct_call(id, targs, loc);
            }
            _ => self.rvalue(f),
        };
        let Some(ft) = self.prog.types.pointee(f.ty) else {
            return err(
                loc,
                format!(
                    "called object type '{}' is not a function or function pointer",
                    self.name(f.ty)
                ),
            );
        };
        let TyKind::Func {
            ret,
            params,
            variadic,
        } = self.prog.types.kind(ft).clone()
        else {
            return err(
                loc,
                format!(
                    "called object type '{}' is not a function or function pointer",
                    self.name(f.ty)
                ),
            );
        };
        let targs = self.exprs(args)?;
        if targs.len() < params.len() || (targs.len() > params.len() && !variadic) {
            return err(
                loc,
                format!(
                    "call expects {} argument(s), {} given",
                    params.len(),
                    targs.len()
                ),
            );
        }
        let args = self.convert_args_to(&params, targs, loc)?;
        Ok(self.call_result(Callee::Indirect(boxed(f)), args, ret, loc))
    }

    // ---- operators ------------------------------------------------------------------------------

    fn check_modifiable(&self, e: &TExpr, loc: Loc) -> CxxResult<()> {
        if !e.lvalue {
            return err(loc, "expression is not assignable");
        }
        if self.prog.types.is_const(e.ty) {
            return err(
                loc,
                format!(
                    "cannot assign to a variable of const-qualified type '{}'",
                    self.name(e.ty)
                ),
            );
        }
        if matches!(
            self.prog.types.kind(e.ty),
            TyKind::Array(..) | TyKind::Func { .. }
        ) {
            return err(loc, "array type is not assignable");
        }
        Ok(())
    }

    fn unary(&mut self, op: UnOp, x: &Expr, loc: Loc) -> CxxResult<TExpr> {
        match op {
            UnOp::AddrOf => {
                if let ExprKind::Qualified(scope, _) = &x.kind
                    && !scope.is_empty()
                    && scope != "std"
                    && let Some(&c) = self.prog.class_by_name.get(scope)
                {
                    let _ = c;
                    let t = self.expr(x)?;
                    if matches!(t.kind, TypedExprKind::Func(_)) {
                        return Ok(self.rvalue(t));
                    }
                    let pt = self.prog.types.ptr(t.ty);
                    return Ok(self.mk(TypedExprKind::AddrOf(boxed(t)), pt, false, loc));
                }
                let t = self.expr(x)?;
                if matches!(t.kind, TypedExprKind::Func(_)) {
                    return Ok(self.rvalue(t));
                }
                if !t.lvalue {
                    return err(loc, "cannot take the address of an rvalue");
                }
                if matches!(t.kind, TypedExprKind::BindTemp(_)) {
                    return err(loc, "taking the address of a temporary object");
                }
                let pt = self.prog.types.ptr(t.ty);
                Ok(self.mk(TypedExprKind::AddrOf(boxed(t)), pt, false, loc))
            }
            UnOp::Deref => {
                let t = self.rexpr(x)?;
                let Some(p) = self.prog.types.pointee(t.ty) else {
                    return err(
                        loc,
                        format!(
                            "indirection requires pointer operand ('{}' invalid)",
                            self.name(t.ty)
                        ),
                    );
                };
                if self.prog.types.is_void(p) {
                    return err(loc, "indirection through 'void*'");
                }
                Ok(self.mk(TypedExprKind::Deref(boxed(t)), p, true, loc))
            }
            UnOp::Not => {
                let t = self.condition(x)?;
                let b = self.t(Builtin::Bool);
                if let TypedExprKind::Bool(v) = t.kind {
                    return Ok(self.mk(TypedExprKind::Bool(!v), b, false, loc));
                }
                Ok(self.mk(TypedExprKind::LogicalNot(boxed(t)), b, false, loc))
            }
            UnOp::Neg | UnOp::Plus | UnOp::BitNot => {
                let t = self.rexpr(x)?;
                let ok = if op == UnOp::BitNot {
                    self.prog.types.is_integral(t.ty)
                } else {
                    self.prog.types.is_arithmetic(t.ty)
                };
                if !ok {
                    return err(
                        loc,
                        format!(
                            "invalid argument type '{}' to unary expression",
                            self.name(t.ty)
                        ),
                    );
                }
                let t = self.promote(t);
                let ty = t.ty;
                match (&t.kind, op) {
                    (TypedExprKind::Int(v), UnOp::Neg) => {
                        let v = self.truncate(-v, ty);
                        return Ok(self.mk(TypedExprKind::Int(v), ty, false, loc));
                    }
                    (TypedExprKind::Int(v), UnOp::BitNot) => {
                        let v = self.truncate(!v, ty);
                        return Ok(self.mk(TypedExprKind::Int(v), ty, false, loc));
                    }
                    (TypedExprKind::Float(v), UnOp::Neg) => {
                        return Ok(self.mk(TypedExprKind::Float(-v), ty, false, loc));
                    }
                    (_, UnOp::Plus) => return Ok(t),
                    _ => {}
                }
                let k = if op == UnOp::Neg {
                    UnaryOp::Minus
                } else {
                    UnaryOp::Not
                };
                Ok(self.mk(TypedExprKind::Unary(k, boxed(t)), ty, false, loc))
            }
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let t = self.expr(x)?;
                self.check_modifiable(&t, loc)?;
                if !(self.prog.types.is_arithmetic(t.ty) || self.prog.types.is_ptr(t.ty)) {
                    return err(
                        loc,
                        format!("cannot increment value of type '{}'", self.name(t.ty)),
                    );
                }
                if self.prog.types.is_bool(t.ty) {
                    return err(loc, "incrementing a bool is not allowed in C++17");
                }
                let inc = matches!(op, UnOp::PreInc | UnOp::PostInc);
                let prefix = matches!(op, UnOp::PreInc | UnOp::PreDec);
                let ty = t.ty;
                let rty = if prefix { ty } else { self.unqual(ty) };
                Ok(self.mk(
                    TypedExprKind::IncDec {
                        inc,
                        prefix,
                        expr: boxed(t),
                    },
                    rty,
                    prefix,
                    loc,
                ))
            }
        }
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, loc: Loc) -> CxxResult<TExpr> {
        match op {
            BinOp::Comma => {
                let a = self.expr(l)?;
                let a = self.discard(a);
                let b = self.expr(r)?;
                let (ty, lv) = (b.ty, b.lvalue);
                Ok(self.mk(TypedExprKind::Comma(boxed(a), boxed(b)), ty, lv, loc))
            }
            BinOp::LogAnd | BinOp::LogOr => {
                let a = self.condition(l)?;
                let b = self.condition(r)?;
                let bt = self.t(Builtin::Bool);
                let k = if op == BinOp::LogAnd {
                    TypedExprKind::LogAnd(boxed(a), boxed(b))
                } else {
                    TypedExprKind::LogOr(boxed(a), boxed(b))
                };
                Ok(self.mk(k, bt, false, loc))
            }
            BinOp::Assign => {
                // The right operand is evaluated first (g++ and C++17 order).
                let a = self.expr(l)?;
                let b = self.expr(r)?;
                self.assign(a, b, loc)
            }
            BinOp::CompoundAssign(aop) => {
                let a = self.expr(l)?;
                let b = self.rexpr(r)?;
                self.check_modifiable(&a, loc)?;
                let bop = arith_op(aop);
                if self.prog.types.is_ptr(a.ty) {
                    if !matches!(aop, ast::ArithOp::Add | ast::ArithOp::Sub)
                        || !self.prog.types.is_integral(b.ty)
                    {
                        return err(loc, "invalid operands to compound assignment on a pointer");
                    }
                    let ty = a.ty;
                    return Ok(self.mk(
                        TypedExprKind::CompoundAssign {
                            op: bop,
                            lhs: boxed(a),
                            rhs: boxed(b),
                            comp: ty,
                            ptr: true,
                        },
                        ty,
                        true,
                        loc,
                    ));
                }
                if !self.prog.types.is_arithmetic(a.ty) || !self.prog.types.is_arithmetic(b.ty) {
                    return err(
                        loc,
                        format!(
                            "invalid operands to compound assignment ('{}' and '{}')",
                            self.name(a.ty),
                            self.name(b.ty)
                        ),
                    );
                }
                let is_shift = matches!(aop, ast::ArithOp::Shl | ast::ArithOp::Shr);
                let is_int_only = matches!(
                    aop,
                    ast::ArithOp::Rem
                        | ast::ArithOp::Shl
                        | ast::ArithOp::Shr
                        | ast::ArithOp::BitAnd
                        | ast::ArithOp::BitOr
                        | ast::ArithOp::BitXor
                );
                if is_int_only
                    && !(self.prog.types.is_integral(a.ty) && self.prog.types.is_integral(b.ty))
                {
                    return err(loc, "invalid operands to an integer compound assignment");
                }
                let comp = if is_shift {
                    let at = a.ty;
                    let p = self.mk(TypedExprKind::Int(0), at, false, loc);
                    self.promote(p).ty
                } else {
                    self.common_type(a.ty, b.ty)
                };
                let b = self.arith_convert(b, comp);
                let ty = a.ty;
                Ok(self.mk(
                    TypedExprKind::CompoundAssign {
                        op: bop,
                        lhs: boxed(a),
                        rhs: boxed(b),
                        comp,
                        ptr: false,
                    },
                    ty,
                    true,
                    loc,
                ))
            }
            _ => {
                let a = self.rexpr(l)?;
                let b = self.rexpr(r)?;
                self.binary_values(op, a, b, loc)
            }
        }
    }

    fn assign(&mut self, a: TExpr, b: TExpr, loc: Loc) -> CxxResult<TExpr> {
        if let Some(c) = self.prog.types.class_of(a.ty) {
            if !a.lvalue {
                return unsupported(loc, "assignment to a class prvalue");
            }
            let cands: Vec<FuncId> = self
                .prog
                .class(c)
                .methods
                .iter()
                .copied()
                .filter(|&m| self.prog.func(m).ident == "operator=")
                .collect();
            let obj_const = self.prog.types.is_const(a.ty);
            let f = self.resolve_overload(
                &cands,
                std::slice::from_ref(&b),
                Some(obj_const),
                "operator=",
                loc,
            )?;
            self.use_func(f, loc)?;
            if let Some(m) = self.member_access_error(f) {
                return err(loc, m);
            }
            let func = self.prog.func(f);
            if func.implicit.is_some() && func.trivial {
                let p = func.params[0];
                let rhs = self.convert(b, p, loc)?;
                let ty = a.ty;
                return Ok(self.mk(TypedExprKind::Assign(boxed(a), boxed(rhs)), ty, true, loc));
            }
            let args = self.convert_args(f, vec![b], loc)?;
            let ret = self.prog.func(f).ret;
            return Ok(self.call_result(
                Callee::Method {
                    func: f,
                    object: boxed(a),
                },
                args,
                ret,
                loc,
            ));
        }
        self.check_modifiable(&a, loc)?;
        let to = a.ty;
        let b = self.convert(b, to, loc)?;
        let ty = a.ty;
        Ok(self.mk(TypedExprKind::Assign(boxed(a), boxed(b)), ty, true, loc))
    }

    fn binary_values(&mut self, op: BinOp, a: TExpr, b: TExpr, loc: Loc) -> CxxResult<TExpr> {
        let types = &self.prog.types;
        let (ap, bp) = (types.is_ptr(a.ty), types.is_ptr(b.ty));
        match op {
            BinOp::Add | BinOp::Sub if ap || bp => {
                if ap && bp {
                    if op != BinOp::Sub {
                        return err(loc, "invalid operands: cannot add two pointers");
                    }
                    let pa = types.pointee(a.ty).expect("ptr");
                    let pb = types.pointee(b.ty).expect("ptr");
                    if types.find(types.kind(pa), false) != types.find(types.kind(pb), false) {
                        return err(loc, "subtracting pointers to different types");
                    }
                    let Some(size) = self.prog.size_of(pa) else {
                        return err(loc, "arithmetic on a pointer to an incomplete type");
                    };
                    let lt = self.t(Builtin::Long);
                    return Ok(self.mk(
                        TypedExprKind::PtrDiff {
                            lhs: boxed(a),
                            rhs: boxed(b),
                            elem_size: size,
                        },
                        lt,
                        false,
                        loc,
                    ));
                }
                let (p, n) = if ap { (a, b) } else { (b, a) };
                if !ap && op == BinOp::Sub {
                    return err(loc, "invalid operands: integer minus pointer");
                }
                if !self.prog.types.is_integral(n.ty) {
                    return err(
                        loc,
                        format!(
                            "invalid operands to pointer arithmetic ('{}')",
                            self.name(n.ty)
                        ),
                    );
                }
                let pointee = self.prog.types.pointee(p.ty).expect("ptr");
                if self.prog.size_of(pointee).is_none() {
                    return err(loc, "arithmetic on a pointer to an incomplete type");
                }
                let pt = p.ty;
                Ok(self.mk(
                    TypedExprKind::PtrOffset {
                        ptr: boxed(p),
                        offset: boxed(n),
                        negate: op == BinOp::Sub,
                    },
                    pt,
                    false,
                    loc,
                ))
            }
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor => {
                let int_only = matches!(
                    op,
                    BinOp::Rem | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                );
                let ok = if int_only {
                    types.is_integral(a.ty) && types.is_integral(b.ty)
                } else {
                    types.is_arithmetic(a.ty) && types.is_arithmetic(b.ty)
                };
                if !ok {
                    return err(
                        loc,
                        format!(
                            "invalid operands to binary expression ('{}' and '{}')",
                            self.name(a.ty),
                            self.name(b.ty)
                        ),
                    );
                }
                let ct = self.common_type(a.ty, b.ty);
                let a = self.arith_convert(a, ct);
                let b = self.arith_convert(b, ct);
                let bop = match op {
                    BinOp::Add => BinaryOp::Add,
                    BinOp::Sub => BinaryOp::Sub,
                    BinOp::Mul => BinaryOp::Mul,
                    BinOp::Div => BinaryOp::Div,
                    BinOp::Rem => BinaryOp::Rem,
                    BinOp::BitAnd => BinaryOp::And,
                    BinOp::BitOr => BinaryOp::Or,
                    _ => BinaryOp::Xor,
                };
                if let (TypedExprKind::Int(x), TypedExprKind::Int(y)) = (&a.kind, &b.kind)
                    && let Some(v) = fold(bop, *x, *y)
                {
                    let v = self.truncate(v, ct);
                    return Ok(self.mk(TypedExprKind::Int(v), ct, false, loc));
                }
                Ok(self.mk(
                    TypedExprKind::Arith(bop, boxed(a), boxed(b)),
                    ct,
                    false,
                    loc,
                ))
            }
            BinOp::Shl | BinOp::Shr => {
                if !(types.is_integral(a.ty) && types.is_integral(b.ty)) {
                    return err(
                        loc,
                        format!(
                            "invalid operands to shift ('{}' and '{}')",
                            self.name(a.ty),
                            self.name(b.ty)
                        ),
                    );
                }
                let a = self.promote(a);
                let ct = a.ty;
                let b = self.promote(b);
                let b = self.arith_convert(b, ct);
                let bop = if op == BinOp::Shl {
                    BinaryOp::Shl
                } else {
                    BinaryOp::Shr
                };
                if let (TypedExprKind::Int(x), TypedExprKind::Int(y)) = (&a.kind, &b.kind)
                    && let Some(v) = fold(bop, *x, *y)
                {
                    let v = self.truncate(v, ct);
                    return Ok(self.mk(TypedExprKind::Int(v), ct, false, loc));
                }
                Ok(self.mk(
                    TypedExprKind::Arith(bop, boxed(a), boxed(b)),
                    ct,
                    false,
                    loc,
                ))
            }
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                let pred = match op {
                    BinOp::Lt => CmpPredicate::Lt,
                    BinOp::Gt => CmpPredicate::Gt,
                    BinOp::Le => CmpPredicate::Le,
                    BinOp::Ge => CmpPredicate::Ge,
                    BinOp::Eq => CmpPredicate::Eq,
                    _ => CmpPredicate::Ne,
                };
                let bt = self.t(Builtin::Bool);
                let types = &self.prog.types;
                if types.is_arithmetic(a.ty) && types.is_arithmetic(b.ty) {
                    let ct = self.common_type(a.ty, b.ty);
                    let a = self.arith_convert(a, ct);
                    let b = self.arith_convert(b, ct);
                    return Ok(self.mk(
                        TypedExprKind::Cmp(pred, boxed(a), boxed(b)),
                        bt,
                        false,
                        loc,
                    ));
                }
                let is_nullish = |s: &Self, e: &TExpr| {
                    s.is_null_constant(e) || matches!(s.prog.types.kind(e.ty), TyKind::Nullptr)
                };
                let (a, b) = if ap && !bp && is_nullish(self, &b) {
                    let t = a.ty;
                    let b = self.standard_conversion(b, t, loc, false)?;
                    (a, b)
                } else if bp && !ap && is_nullish(self, &a) {
                    let t = b.ty;
                    let a = self.standard_conversion(a, t, loc, false)?;
                    (a, b)
                } else if ap && bp {
                    let (ta, tb) = (a.ty, b.ty);
                    if self.scalar_rank(&b, ta).is_some() {
                        let b = self.standard_conversion(b, ta, loc, false)?;
                        (a, b)
                    } else if self.scalar_rank(&a, tb).is_some() {
                        let a = self.standard_conversion(a, tb, loc, false)?;
                        (a, b)
                    } else {
                        return err(
                            loc,
                            format!(
                                "comparison of distinct pointer types ('{}' and '{}')",
                                self.name(ta),
                                self.name(tb)
                            ),
                        );
                    }
                } else {
                    return err(
                        loc,
                        format!(
                            "invalid operands to comparison ('{}' and '{}')",
                            self.name(a.ty),
                            self.name(b.ty)
                        ),
                    );
                };
                Ok(self.mk(TypedExprKind::Cmp(pred, boxed(a), boxed(b)), bt, false, loc))
            }
            _ => err(loc, "unexpected operator"),
        }
    }

    fn conditional(&mut self, c: &Expr, t: &Expr, f: &Expr, loc: Loc) -> CxxResult<TExpr> {
        let cond = self.condition(c)?;
        let a = self.expr(t)?;
        let b = self.expr(f)?;
        let void = self.t(Builtin::Void);
        let a_throw = matches!(a.kind, TypedExprKind::Throw(_));
        let b_throw = matches!(b.kind, TypedExprKind::Throw(_));
        let mk_cond = |s: &mut Self, a: TExpr, b: TExpr, ty: Ty, lv: bool| {
            s.mk(
                TypedExprKind::Cond(boxed(cond.clone()), boxed(a), boxed(b)),
                ty,
                lv,
                loc,
            )
        };
        if a_throw || b_throw {
            let (other, _) = if a_throw { (&b, &a) } else { (&a, &b) };
            if a_throw && b_throw {
                return Ok(mk_cond(self, a, b, void, false));
            }
            let ty = other.ty;
            let lv = other.lvalue;
            let (a, b) = if lv {
                (a, b)
            } else if a_throw {
                let b = if self.prog.types.is_class(b.ty) {
                    b
                } else {
                    self.rvalue(b)
                };
                (a, b)
            } else {
                let a = if self.prog.types.is_class(a.ty) {
                    a
                } else {
                    self.rvalue(a)
                };
                (a, b)
            };
            let ty = if lv { ty } else { self.unqual(ty) };
            return Ok(mk_cond(self, a, b, ty, lv));
        }
        if self.prog.types.is_void(a.ty) || self.prog.types.is_void(b.ty) {
            if !(self.prog.types.is_void(a.ty) && self.prog.types.is_void(b.ty)) {
                return err(loc, "one operand of '?:' is void and the other is not");
            }
            return Ok(mk_cond(self, a, b, void, false));
        }
        let (ac, bc) = (
            self.prog.types.class_of(a.ty),
            self.prog.types.class_of(b.ty),
        );
        if ac.is_some() || bc.is_some() {
            if ac != bc {
                return unsupported(loc, "'?:' with operands of different class types");
            }
            let ua = self.unqual(a.ty);
            if a.lvalue && b.lvalue && a.ty == b.ty {
                let ty = a.ty;
                return Ok(mk_cond(self, a, b, ty, true));
            }
            let a = self.convert(a, ua, loc)?;
            let b = self.convert(b, ua, loc)?;
            return Ok(mk_cond(self, a, b, ua, false));
        }
        if a.lvalue
            && b.lvalue
            && a.ty == b.ty
            && !matches!(self.prog.types.kind(a.ty), TyKind::Array(..))
        {
            let ty = a.ty;
            return Ok(mk_cond(self, a, b, ty, true));
        }
        let a = self.rvalue(a);
        let b = self.rvalue(b);
        if self.prog.types.is_arithmetic(a.ty) && self.prog.types.is_arithmetic(b.ty) {
            let ct = self.common_type(a.ty, b.ty);
            let a = self.arith_convert(a, ct);
            let b = self.arith_convert(b, ct);
            return Ok(mk_cond(self, a, b, ct, false));
        }
        let (ta, tb) = (a.ty, b.ty);
        if self.unqual(ta) == self.unqual(tb) {
            let t = self.unqual(ta);
            return Ok(mk_cond(self, a, b, t, false));
        }
        if self.prog.types.is_ptr(ta) && self.scalar_rank(&b, ta).is_some() {
            let b = self.standard_conversion(b, ta, loc, false)?;
            return Ok(mk_cond(self, a, b, ta, false));
        }
        if self.prog.types.is_ptr(tb) && self.scalar_rank(&a, tb).is_some() {
            let a = self.standard_conversion(a, tb, loc, false)?;
            return Ok(mk_cond(self, a, b, tb, false));
        }
        err(
            loc,
            format!(
                "incompatible operand types ('{}' and '{}')",
                self.name(ta),
                self.name(tb)
            ),
        )
    }

    fn explicit_cast(&mut self, x: TExpr, to: Ty, style: CastStyle, loc: Loc) -> CxxResult<TExpr> {
        if self.prog.types.is_void(to) {
            return Ok(self.discard(x));
        }
        if let Some(referee) = self.prog.types.referee(to) {
            // Reference casts: same type, base, or (static) derived.
            if !x.lvalue {
                return unsupported(loc, "casting a prvalue to a reference type");
            }
            let ru = self.unqual(referee);
            let xu = self.unqual(x.ty);
            if ru == xu {
                return Ok(TExpr { ty: referee, ..x });
            }
            if let (Some(xc), Some(rc)) =
                (self.prog.types.class_of(xu), self.prog.types.class_of(ru))
            {
                if let Some(path) = self.base_path(xc, rc) {
                    let rt = self
                        .prog
                        .types
                        .with_const(ru, self.prog.types.is_const(referee));
                    return Ok(self.mk(
                        TypedExprKind::ToBase {
                            expr: boxed(x),
                            path,
                        },
                        rt,
                        true,
                        loc,
                    ));
                }
                if let Some(path) = self.base_path(rc, xc) {
                    let xp = self.prog.types.ptr(x.ty);
                    let addr = self.mk(TypedExprKind::AddrOf(boxed(x)), xp, false, loc);
                    let rp = self.prog.types.ptr(referee);
                    let down = self.mk(
                        TypedExprKind::Cast(Conv::BaseToDerived(path), boxed(addr)),
                        rp,
                        false,
                        loc,
                    );
                    return Ok(self.mk(TypedExprKind::Deref(boxed(down)), referee, true, loc));
                }
            }
            return unsupported(
                loc,
                format!(
                    "cast from '{}' to '{}&'",
                    self.name(x.ty),
                    self.name(referee)
                ),
            );
        }
        if self.prog.types.is_class(to) {
            return self.init_from_args(to, vec![x], true, false, loc);
        }
        if self.prog.types.is_class(x.ty) {
            return err(
                loc,
                format!(
                    "cannot convert '{}' to '{}'",
                    self.name(x.ty),
                    self.name(to)
                ),
            );
        }
        let x = self.rvalue(x);
        let to_u = self.unqual(to);
        let types = &self.prog.types;
        if style == CastStyle::CStyle || style == CastStyle::Functional {
            if types.is_ptr(to_u) && types.is_integral(x.ty) && !self.is_null_constant(&x) {
                return Ok(self.mk(
                    TypedExprKind::Cast(Conv::IntToPtr, boxed(x)),
                    to_u,
                    false,
                    loc,
                ));
            }
            if types.is_integral(to_u) && !types.is_bool(to_u) && types.is_ptr(x.ty) {
                if self.prog.size_of(to_u) != Some(8) {
                    return err(loc, "cast from pointer to smaller type loses information");
                }
                return Ok(self.mk(
                    TypedExprKind::Cast(Conv::PtrToInt, boxed(x)),
                    to_u,
                    false,
                    loc,
                ));
            }
            if types.is_ptr(to_u) && types.is_ptr(x.ty) {
                if let Ok(c) = self.standard_conversion(x.clone(), to_u, loc, true) {
                    return Ok(c);
                }
                return Ok(self.mk(
                    TypedExprKind::Cast(Conv::PtrBitcast, boxed(x)),
                    to_u,
                    false,
                    loc,
                ));
            }
        }
        self.standard_conversion(x, to_u, loc, true)
    }
}

/// A member named on an object: a value (field, static) or member functions bound to it.
pub enum Member {
    Value(TExpr),
    Bound {
        object: TExpr,
        path: BasePath,
        class: ClassId,
        funcs: Vec<FuncId>,
    },
}

fn arith_op(op: ast::ArithOp) -> BinaryOp {
    match op {
        ast::ArithOp::Add => BinaryOp::Add,
        ast::ArithOp::Sub => BinaryOp::Sub,
        ast::ArithOp::Mul => BinaryOp::Mul,
        ast::ArithOp::Div => BinaryOp::Div,
        ast::ArithOp::Rem => BinaryOp::Rem,
        ast::ArithOp::Shl => BinaryOp::Shl,
        ast::ArithOp::Shr => BinaryOp::Shr,
        ast::ArithOp::BitAnd => BinaryOp::And,
        ast::ArithOp::BitOr => BinaryOp::Or,
        ast::ArithOp::BitXor => BinaryOp::Xor,
    }
}

/// Folds integer arithmetic on constants (division by zero is left to run time).
fn fold(op: BinaryOp, a: i128, b: i128) -> Option<i128> {
    Some(match op {
        BinaryOp::Add => a.checked_add(b)?,
        BinaryOp::Sub => a.checked_sub(b)?,
        BinaryOp::Mul => a.checked_mul(b)?,
        BinaryOp::Div => a.checked_div(b)?,
        BinaryOp::Rem => a.checked_rem(b)?,
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl => {
            if !(0..64).contains(&b) {
                return None;
            }
            a.checked_shl(b as u32)?
        }
        BinaryOp::Shr => {
            if !(0..64).contains(&b) {
                return None;
            }
            a >> b
        }
    })
}

/// Evaluates an integer constant expression (case labels, array bounds).
pub fn const_value(e: &TExpr) -> Option<i128> {
    match &e.kind {
        TypedExprKind::Int(v) => Some(*v),
        TypedExprKind::Bool(b) => Some(*b as i128),
        TypedExprKind::Cast(Conv::IntToInt | Conv::BoolToInt, x) => const_value(x),
        TypedExprKind::Arith(op, a, b) => fold(*op, const_value(a)?, const_value(b)?),
        _ => None,
    }
}
