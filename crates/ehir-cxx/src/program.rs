//! The semantic model of a translation unit: classes (with their Itanium layout, CIR
//! record and special members), functions (with their mangled names and CIR signatures),
//! global variables, and the declarations the supported headers provide. Built from the
//! syntax tree in one pass over the declarations, in source order.

use crate::ast::{
    self, Access, Builtin, DeclName, ExceptionSpec, FunctionBody, MemberName, TypeExpr,
};
use crate::lexer::Header;
use crate::mangle::{self, ClassNames, FunctionName};
use crate::types::{ClassId, Ty, TyKind, TypeTable, builtin_size_align};
use ehir_core::{Diagnostic, Loc, ModuleCtx, ParamAbi, RecordDecl, RecordKind, Type};
use std::collections::HashMap;
use std::rc::Rc;

/// The result of a front-end step: a value or the diagnostic that stops it.
pub type CxxResult<T> = Result<T, Diagnostic>;

pub fn err<T>(loc: Loc, msg: impl Into<String>) -> CxxResult<T> {
    Err(Diagnostic::error(loc, msg))
}

pub fn unsupported<T>(loc: Loc, msg: impl Into<String>) -> CxxResult<T> {
    Err(Diagnostic::error(
        loc,
        format!("unsupported: {}", msg.into()),
    ))
}

/// A function of the program.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A global variable of the program.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// The special member functions the compiler may define implicitly.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Implicit {
    DefaultCtor,
    CopyCtor,
    CopyAssign,
    Dtor,
}

/// What kind of function.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FuncKind {
    Free,
    Method { is_static: bool },
    Ctor,
    Dtor,
}

/// An exception specification, resolved.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Spec {
    None,
    Noexcept,
    Throw(Vec<Ty>),
}

/// A base-class subobject.
#[derive(Clone, Debug)]
pub struct BaseInfo {
    pub class: ClassId,
    pub access: Access,
    pub offset: u64,
    /// The CIR field holding the subobject (`None` for an empty base).
    pub field: Option<u32>,
    pub loc: Loc,
}

/// A non-static data member.
#[derive(Clone, Debug)]
pub struct FieldInfo {
    pub name: String,
    pub ty: Ty,
    pub access: Access,
    pub offset: u64,
    /// Index in the CIR record.
    pub index: u32,
    /// Default member initializer.
    pub init: Option<ast::Expr>,
    pub loc: Loc,
}

/// A class.
pub struct Class {
    pub name: String,
    pub is_struct: bool,
    pub loc: Loc,
    pub complete: bool,
    /// Declared by a library header: opaque, its typeinfo lives in the runtime.
    pub external: bool,
    pub bases: Vec<BaseInfo>,
    pub fields: Vec<FieldInfo>,
    pub statics: Vec<(String, VarId, Access)>,
    /// Member functions in declaration order (constructors, destructor, methods).
    pub methods: Vec<FuncId>,
    pub size: u64,
    pub align: u64,
    pub dsize: u64,
    pub is_empty: bool,
    pub pod_for_layout: bool,
    pub trivial_default_ctor: bool,
    pub trivial_copy_ctor: bool,
    pub trivial_copy_assign: bool,
    pub trivial_dtor: bool,
    pub record: Type,
    pub alias: String,
    pub seq: usize,
}

/// A function.
pub struct Func {
    /// For diagnostics: `f`, `A::f`, `A::A`.
    pub display: String,
    /// The unqualified name (`f`, `operator=`, class name for constructors).
    pub ident: String,
    pub kind: FuncKind,
    pub class: Option<ClassId>,
    pub access: Access,
    pub params: Vec<Ty>,
    pub param_names: Vec<Option<String>>,
    pub param_locs: Vec<Loc>,
    pub ret: Ty,
    pub variadic: bool,
    pub is_const: bool,
    pub spec: Spec,
    pub extern_c: bool,
    pub internal: bool,
    pub inline: bool,
    pub explicit: bool,
    pub deleted: bool,
    pub implicit: Option<Implicit>,
    /// An implicit (or defaulted) member that needs no code.
    pub trivial: bool,
    pub mangled: String,
    pub loc: Loc,
    pub body: Option<Rc<FunctionBody>>,
    /// Declarations with `seq` below this are visible from the body.
    pub visible: usize,
    pub seq: usize,
    /// Referenced (so its declaration, or its implicit definition, is needed).
    pub used: bool,
}

/// A resolved signature: parameter types, names and locations, and the result type.
type Signature = (Vec<Ty>, Vec<Option<String>>, Vec<Loc>, Ty);

/// How a global is initialized.
#[derive(Clone, Debug)]
pub enum GlobalInit {
    /// Not initialized here (an `extern` declaration).
    External,
    Zero,
    Int(i128),
    Float(f64),
    /// A pointer to a string literal (the string's symbol).
    StrPtr(String),
    /// A pointer to another global.
    AddrOf(String),
    Null,
    /// A character array's bytes (including the terminator and padding).
    Bytes(Vec<u8>),
    /// An array of integers.
    Ints(Vec<i128>),
    /// An array of pointers: string literal or global symbols, `None` for null.
    Ptrs(Vec<Option<String>>),
}

/// A global variable (namespace scope, static data member, or static local).
pub struct GlobalVar {
    pub name: String,
    pub symbol: String,
    pub ty: Ty,
    pub init: GlobalInit,
    pub internal: bool,
    pub loc: Loc,
    /// The value of a `const` integral variable with a constant initializer.
    pub const_value: Option<i128>,
    pub class: Option<ClassId>,
    pub defined: bool,
    pub seq: usize,
    /// The AST initializer, evaluated when the global is emitted.
    pub ast_init: Option<ast::Init>,
}

/// The whole program.
#[derive(Default)]
pub struct Program {
    pub types: TypeTable,
    pub classes: Vec<Class>,
    pub funcs: Vec<Func>,
    pub globals: Vec<GlobalVar>,
    pub class_by_name: HashMap<String, ClassId>,
    /// Free functions by qualified name (`f`, `std::terminate`).
    pub funcs_by_name: HashMap<String, Vec<FuncId>>,
    pub globals_by_name: HashMap<String, VarId>,
    /// Named integer constants from headers (`EXIT_SUCCESS`).
    pub constants: HashMap<String, i128>,
    pub headers: Vec<Header>,
    pub using_std: bool,
    pub seq: usize,
    /// Functions with bodies, in definition order.
    pub definitions: Vec<FuncId>,
    /// String literal globals: bytes (with terminator) → symbol.
    pub strings: Vec<(Vec<u8>, String)>,
    pub string_index: HashMap<Vec<u8>, usize>,
    /// Types whose typeinfo object the module must declare (thrown or caught).
    pub typeinfo_types: Vec<Ty>,
    /// C1/D1 (complete-object) names that are emitted as thunks to the base variants.
    pub emitted: std::collections::HashSet<String>,
}

impl ClassNames for Program {
    fn class_mangling(&self, class: ClassId) -> String {
        let c = &self.classes[class.0 as usize];
        match c.name.strip_prefix("std::") {
            Some(n) => format!("St{}", mangle::source_name(n)),
            None => mangle::source_name(&c.name),
        }
    }

    fn class_in_std(&self, class: ClassId) -> bool {
        self.classes[class.0 as usize].name.starts_with("std::")
    }
}

fn align_up(x: u64, a: u64) -> u64 {
    if a <= 1 { x } else { x.div_ceil(a) * a }
}

pub use ehir_core::abi::records::{PADDING_ALIAS, padding_type, record_alias};

impl Program {
    pub fn new(headers: &[Header], ctx: &mut ModuleCtx) -> Self {
        let mut p = Program {
            headers: headers.to_vec(),
            ..Default::default()
        };
        p.declare_library(ctx);
        p
    }

    pub fn class(&self, c: ClassId) -> &Class {
        &self.classes[c.0 as usize]
    }

    pub fn class_mut(&mut self, c: ClassId) -> &mut Class {
        &mut self.classes[c.0 as usize]
    }

    pub fn func(&self, f: FuncId) -> &Func {
        &self.funcs[f.0 as usize]
    }

    pub fn func_mut(&mut self, f: FuncId) -> &mut Func {
        &mut self.funcs[f.0 as usize]
    }

    pub fn global(&self, v: VarId) -> &GlobalVar {
        &self.globals[v.0 as usize]
    }

    fn next_seq(&mut self) -> usize {
        self.seq += 1;
        self.seq
    }

    // ---- library declarations -------------------------------------------------------------

    fn declare_library(&mut self, ctx: &mut ModuleCtx) {
        let int = self.types.builtin(Builtin::Int);
        let void = self.types.builtin(Builtin::Void);
        let ulong = self.types.builtin(Builtin::ULong);
        let ch = self.types.builtin(Builtin::Char);
        let cch = self.types.with_const(ch, true);
        let pcch = self.types.ptr(cch);
        let pch = self.types.ptr(ch);
        let pvoid = self.types.ptr(void);
        let cvoid = self.types.with_const(void, true);
        let pcvoid = self.types.ptr(cvoid);
        let boolean = self.types.builtin(Builtin::Bool);
        let headers = self.headers.clone();
        // (name, ret, params, variadic, nothrow)
        let mut c_funcs: Vec<(&str, Ty, Vec<Ty>, bool, bool)> = Vec::new();
        if headers.contains(&Header::Stdio) {
            c_funcs.push(("printf", int, vec![pcch], true, false));
            c_funcs.push(("puts", int, vec![pcch], false, false));
            c_funcs.push(("putchar", int, vec![int], false, false));
            c_funcs.push(("sprintf", int, vec![pch, pcch], true, true));
            c_funcs.push(("snprintf", int, vec![pch, ulong, pcch], true, true));
        }
        if headers.contains(&Header::Stdlib) {
            c_funcs.push(("abort", void, vec![], false, true));
            c_funcs.push(("exit", void, vec![int], false, true));
            c_funcs.push(("malloc", pvoid, vec![ulong], false, true));
            c_funcs.push(("free", void, vec![pvoid], false, true));
            c_funcs.push(("atoi", int, vec![pcch], false, true));
            c_funcs.push(("abs", int, vec![int], false, true));
            self.constants.insert("EXIT_SUCCESS".into(), 0);
            self.constants.insert("EXIT_FAILURE".into(), 1);
        }
        if headers.contains(&Header::String) {
            c_funcs.push(("strcpy", pch, vec![pch, pcch], false, true));
            c_funcs.push(("strncpy", pch, vec![pch, pcch, ulong], false, true));
            c_funcs.push(("strcat", pch, vec![pch, pcch], false, true));
            c_funcs.push(("strlen", ulong, vec![pcch], false, true));
            c_funcs.push(("strcmp", int, vec![pcch, pcch], false, true));
            c_funcs.push(("strncmp", int, vec![pcch, pcch, ulong], false, true));
            c_funcs.push(("memcpy", pvoid, vec![pvoid, pcvoid, ulong], false, true));
            c_funcs.push(("memset", pvoid, vec![pvoid, int, ulong], false, true));
        }
        for (name, ret, params, variadic, nothrow) in c_funcs {
            let f = self.add_library_func(name, name, ret, params, variadic, nothrow, true);
            self.funcs_by_name
                .entry(name.to_string())
                .or_default()
                .push(f);
            self.funcs_by_name
                .entry(format!("std::{name}"))
                .or_default()
                .push(f);
        }
        if headers.contains(&Header::Exception) {
            let fvv = self.types.intern(
                TyKind::Func {
                    ret: void,
                    params: vec![],
                    variadic: false,
                },
                false,
            );
            let handler = self.types.ptr(fvv);
            let std_funcs: Vec<(&str, Ty, Vec<Ty>, bool)> = vec![
                ("terminate", void, vec![], true),
                ("set_terminate", handler, vec![handler], true),
                ("set_unexpected", handler, vec![handler], true),
                ("get_terminate", handler, vec![], true),
                ("unexpected", void, vec![], false),
                ("uncaught_exception", boolean, vec![], true),
            ];
            for (name, ret, params, nothrow) in std_funcs {
                let mangled = mangle::mangle_function(
                    &self.types,
                    self,
                    FunctionName::Free { name, in_std: true },
                    &params,
                    false,
                );
                let f = self.add_library_func(name, &mangled, ret, params, false, nothrow, false);
                self.funcs_by_name
                    .entry(format!("std::{name}"))
                    .or_default()
                    .push(f);
            }
            // std::exception: opaque; catchable by reference or pointer.
            let id = ClassId(self.classes.len() as u32);
            let seq = self.next_seq();
            let alias = record_alias("std::exception");
            let alias_sym = ctx.sym(&alias);
            let record = ctx.types.record(alias_sym);
            self.classes.push(Class {
                name: "std::exception".into(),
                is_struct: false,
                loc: Loc::NONE,
                complete: false,
                external: true,
                bases: vec![],
                fields: vec![],
                statics: vec![],
                methods: vec![],
                size: 8,
                align: 8,
                dsize: 8,
                is_empty: false,
                pod_for_layout: false,
                trivial_default_ctor: false,
                trivial_copy_ctor: false,
                trivial_copy_assign: false,
                trivial_dtor: false,
                record,
                alias,
                seq,
            });
            self.class_by_name.insert("std::exception".into(), id);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_library_func(
        &mut self,
        name: &str,
        mangled: &str,
        ret: Ty,
        params: Vec<Ty>,
        variadic: bool,
        nothrow: bool,
        extern_c: bool,
    ) -> FuncId {
        let id = FuncId(self.funcs.len() as u32);
        let n = params.len();
        let seq = self.next_seq();
        self.funcs.push(Func {
            display: name.to_string(),
            ident: name.to_string(),
            kind: FuncKind::Free,
            class: None,
            access: Access::Public,
            params,
            param_names: vec![None; n],
            param_locs: vec![Loc::NONE; n],
            ret,
            variadic,
            is_const: false,
            spec: if nothrow { Spec::Noexcept } else { Spec::None },
            extern_c,
            internal: false,
            inline: false,
            explicit: false,
            deleted: false,
            implicit: None,
            trivial: false,
            mangled: mangled.to_string(),
            loc: Loc::NONE,
            body: None,
            visible: 0,
            seq,
            used: false,
        });
        id
    }

    // ---- types ----------------------------------------------------------------------------

    /// Resolves a written type. `const_eval` evaluates array bounds.
    pub fn resolve_type(&mut self, t: &TypeExpr, loc: Loc) -> CxxResult<Ty> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || {
            self.resolve_type_inner(t, loc)
        })
    }

    fn resolve_type_inner(&mut self, t: &TypeExpr, loc: Loc) -> CxxResult<Ty> {
        Ok(match t {
            TypeExpr::Builtin(b) => self.types.builtin(*b),
            TypeExpr::Class(name, cloc) => match self.class_by_name.get(name) {
                Some(&c) => self.types.class(c),
                None => return err(*cloc, format!("unknown type '{name}'")),
            },
            TypeExpr::Const(inner) => {
                let i = self.resolve_type(inner, loc)?;
                self.types.with_const(i, true)
            }
            TypeExpr::Ptr(inner) => {
                let i = self.resolve_type(inner, loc)?;
                if self.types.referee(i).is_some() {
                    return err(loc, "pointer to a reference");
                }
                self.types.ptr(i)
            }
            TypeExpr::Ref(inner) => {
                let i = self.resolve_type(inner, loc)?;
                if self.types.referee(i).is_some() {
                    return err(loc, "reference to a reference");
                }
                if self.types.is_void(i) {
                    return err(loc, "reference to void");
                }
                self.types.reference(i)
            }
            TypeExpr::Array(inner, size) => {
                let e = self.resolve_type(inner, loc)?;
                if self.types.referee(e).is_some() || self.types.is_void(e) || self.types.is_func(e)
                {
                    return err(loc, "invalid array element type");
                }
                if let Some(c) = self.types.class_of(e)
                    && !self.class(c).complete
                {
                    return err(
                        loc,
                        format!("array of incomplete type '{}'", self.type_name(e)),
                    );
                }
                let n = match size {
                    None => return err(loc, "array size missing"),
                    Some(expr) => match self.const_eval_ast(expr) {
                        Some(n) if n > 0 && n < (1 << 32) => n as u64,
                        Some(_) => return err(expr.loc, "array size must be positive"),
                        None => {
                            return unsupported(
                                expr.loc,
                                "array size that is not an integer constant",
                            );
                        }
                    },
                };
                self.types.intern(TyKind::Array(e, n), false)
            }
            TypeExpr::Func {
                ret,
                params,
                variadic,
            } => {
                let r = self.resolve_type(ret, loc)?;
                let mut ps = Vec::new();
                for p in params {
                    ps.push(self.resolve_param_type(p, loc)?);
                }
                if self.types.is_class(r) || ps.iter().any(|&p| self.types.is_class(p)) {
                    // fine: passed indirectly
                }
                self.types.intern(
                    TyKind::Func {
                        ret: r,
                        params: ps,
                        variadic: *variadic,
                    },
                    false,
                )
            }
        })
    }

    /// The type of a parameter: `T[]` and `T[N]` are `T*`, functions decay to pointers.
    pub fn resolve_param_type(&mut self, t: &TypeExpr, loc: Loc) -> CxxResult<Ty> {
        let t = match t {
            TypeExpr::Array(inner, _) => {
                let e = self.resolve_type(inner, loc)?;
                return Ok(self.types.ptr(e));
            }
            TypeExpr::Const(inner) if matches!(**inner, TypeExpr::Array(..)) => inner,
            t => t,
        };
        let r = self.resolve_type(t, loc)?;
        Ok(self.adjust_param(r))
    }

    /// Parameter type adjustment: arrays and functions decay, top-level const is dropped.
    pub fn adjust_param(&mut self, t: Ty) -> Ty {
        match self.types.kind(t).clone() {
            TyKind::Array(e, _) => self.types.ptr(e),
            TyKind::Func { .. } => self.types.ptr(t),
            _ => self.types.unqual(t),
        }
    }

    /// Evaluates an integer constant expression written in the source (array bounds).
    pub fn const_eval_ast(&mut self, e: &ast::Expr) -> Option<i128> {
        use ast::ExprKind as K;
        Some(match &e.kind {
            K::Int { value, .. } => *value as i128,
            K::Char(c) => *c as i8 as i128,
            K::Bool(b) => *b as i128,
            K::Unary(ast::UnOp::Neg, x) => -self.const_eval_ast(x)?,
            K::Unary(ast::UnOp::Plus, x) => self.const_eval_ast(x)?,
            K::Unary(ast::UnOp::BitNot, x) => !self.const_eval_ast(x)?,
            K::Unary(ast::UnOp::Not, x) => (self.const_eval_ast(x)? == 0) as i128,
            K::Binary(op, l, r) => {
                let a = self.const_eval_ast(l)?;
                let b = self.const_eval_ast(r)?;
                use ast::BinOp::*;
                match op {
                    Add => a.checked_add(b)?,
                    Sub => a.checked_sub(b)?,
                    Mul => a.checked_mul(b)?,
                    Div => a.checked_div(b)?,
                    Rem => a.checked_rem(b)?,
                    Shl => a.checked_shl(u32::try_from(b).ok()?)?,
                    Shr => a.checked_shr(u32::try_from(b).ok()?)?,
                    BitAnd => a & b,
                    BitOr => a | b,
                    BitXor => a ^ b,
                    Lt => (a < b) as i128,
                    Gt => (a > b) as i128,
                    Le => (a <= b) as i128,
                    Ge => (a >= b) as i128,
                    Eq => (a == b) as i128,
                    Ne => (a != b) as i128,
                    LogAnd => (a != 0 && b != 0) as i128,
                    LogOr => (a != 0 || b != 0) as i128,
                    _ => return None,
                }
            }
            K::SizeofType(t) => {
                let ty = self.resolve_type(t, e.loc).ok()?;
                self.size_of(ty)? as i128
            }
            K::Name(n) => {
                if let Some(&v) = self.constants.get(n) {
                    return Some(v);
                }
                let &g = self.globals_by_name.get(n)?;
                self.global(g).const_value?
            }
            K::Qualified(c, n) => {
                let &cid = self.class_by_name.get(c)?;
                let (_, g, _) = self.class(cid).statics.iter().find(|(s, _, _)| s == n)?;
                self.global(*g).const_value?
            }
            K::Cast { expr, .. } => self.const_eval_ast(expr)?,
            _ => return None,
        })
    }

    /// `sizeof(t)`, or `None` for incomplete types.
    pub fn size_of(&self, t: Ty) -> Option<u64> {
        self.size_align(t).map(|(s, _)| s)
    }

    /// Wraps an integer constant to the range of the integer type `t`, as C++ does for an
    /// implicit conversion (modulo 2^N, then reinterpreted as signed for a signed type):
    /// `int g = 18446744073709551615;` is -1. Types without a size are left alone.
    pub fn wrap_to_type(&self, v: i128, t: Ty) -> i128 {
        let Some((size, _)) = self.size_align(t) else {
            return v;
        };
        let bits = (size * 8) as u32;
        if bits == 0 || bits >= 128 {
            return v;
        }
        let mask = (1i128 << bits) - 1;
        let u = v & mask;
        if self.types.is_signed(t) && (u >> (bits - 1)) & 1 == 1 {
            u - (1i128 << bits)
        } else {
            u
        }
    }

    pub fn size_align(&self, t: Ty) -> Option<(u64, u64)> {
        Some(match self.types.kind(t) {
            TyKind::Builtin(Builtin::Void) => return None,
            TyKind::Builtin(b) => builtin_size_align(*b),
            TyKind::Nullptr | TyKind::Ptr(_) | TyKind::Ref(_) => (8, 8),
            TyKind::Array(e, n) => {
                let (s, a) = self.size_align(*e)?;
                (s * n, a)
            }
            TyKind::Func { .. } => return None,
            TyKind::Class(c) => {
                let c = self.class(*c);
                if !c.complete {
                    return None;
                }
                (c.size, c.align)
            }
        })
    }

    /// A type as C++ spells it, for diagnostics.
    pub fn type_name(&self, t: Ty) -> String {
        let base = match self.types.kind(t) {
            TyKind::Builtin(b) => crate::types::builtin_name(*b).to_string(),
            TyKind::Nullptr => "std::nullptr_t".into(),
            TyKind::Class(c) => self.class(*c).name.clone(),
            TyKind::Ptr(p) => {
                let inner = self.type_name(*p);
                if self.types.is_func(*p) {
                    return inner.replacen('(', "(*)(", 1);
                }
                format!("{inner}*")
            }
            TyKind::Ref(p) => format!("{}&", self.type_name(*p)),
            TyKind::Array(e, n) => format!("{}[{n}]", self.type_name(*e)),
            TyKind::Func {
                ret,
                params,
                variadic,
            } => {
                let mut ps: Vec<String> = params.iter().map(|&p| self.type_name(p)).collect();
                if *variadic {
                    ps.push("...".into());
                }
                format!("{} ({})", self.type_name(*ret), ps.join(", "))
            }
        };
        if self.types.is_const(t) && !matches!(self.types.kind(t), TyKind::Array(..)) {
            if self.types.is_ptr(t) {
                format!("{base} const")
            } else {
                format!("const {base}")
            }
        } else {
            base
        }
    }

    // ---- CIR types ---------------------------------------------------------------------------

    /// The CIR type of a value of C++ type `t` (references are pointers).
    pub fn cir_type(&self, ctx: &mut ModuleCtx, t: Ty) -> Type {
        let common = *ctx.types.common();
        match self.types.kind(t).clone() {
            TyKind::Builtin(b) => match b {
                Builtin::Void => common.void,
                Builtin::Bool => common.bool,
                Builtin::Char | Builtin::SChar => common.s8,
                Builtin::UChar => common.u8,
                Builtin::Short => common.s16,
                Builtin::UShort => common.u16,
                Builtin::Int => common.s32,
                Builtin::UInt => common.u32,
                Builtin::Long | Builtin::LongLong => common.s64,
                Builtin::ULong | Builtin::ULongLong => common.u64,
                Builtin::Float => common.float,
                Builtin::Double => common.double,
            },
            TyKind::Nullptr => common.void_ptr,
            TyKind::Ptr(p) | TyKind::Ref(p) => {
                let inner = self.cir_type(ctx, p);
                ctx.types.ptr(inner)
            }
            TyKind::Array(e, n) => {
                let inner = self.cir_type(ctx, e);
                ctx.types.array(inner, n)
            }
            TyKind::Func {
                ret,
                params,
                variadic,
            } => {
                let (ps, abi, r) = self.cir_signature_parts(ctx, ret, &params, None);
                ctx.types.func_with_abi(ps, abi, r, variadic)
            }
            TyKind::Class(c) => {
                let alias = ctx.sym(&self.class(c).alias);
                ctx.types.record(alias)
            }
        }
    }

    /// Whether a class type is trivial for the purposes of calls (trivial copy
    /// constructor and destructor), so that the C calling convention passes and returns
    /// it by value (x86-64: in registers or as a copy on the stack) instead of by address.
    pub fn passed_by_value(&self, t: Ty) -> bool {
        self.types.class_of(t).is_some_and(|c| {
            let class = self.class(c);
            class.complete && !class.external && class.trivial_copy_ctor && class.trivial_dtor
        })
    }

    /// CIR parameter list, their ABI marks and result of a function: a class result is
    /// returned through a leading pointer parameter, then `this`, then the parameters
    /// (class and reference parameters are pointers). Classes that are
    /// [`Program::passed_by_value`] mark their pointer `by_value_result` / `by_value`.
    pub fn cir_signature_parts(
        &self,
        ctx: &mut ModuleCtx,
        ret: Ty,
        params: &[Ty],
        this_class: Option<ClassId>,
    ) -> (Vec<Type>, Vec<ParamAbi>, Option<Type>) {
        let mut ps = Vec::new();
        let mut abi = Vec::new();
        let mut r = None;
        if self.types.is_class(ret) {
            let rt = self.cir_type(ctx, ret);
            ps.push(ctx.types.ptr(rt));
            abi.push(if self.passed_by_value(ret) {
                ParamAbi::ByValueResult
            } else {
                ParamAbi::Default
            });
        } else if !self.types.is_void(ret) {
            r = Some(self.cir_type(ctx, ret));
        }
        if let Some(c) = this_class {
            let ct = self.cir_type_of_class(ctx, c);
            ps.push(ctx.types.ptr(ct));
            abi.push(ParamAbi::Default);
        }
        for &p in params {
            let pt = self.cir_type(ctx, p);
            if self.types.is_class(p) {
                ps.push(ctx.types.ptr(pt));
                abi.push(if self.passed_by_value(p) {
                    ParamAbi::ByValue
                } else {
                    ParamAbi::Default
                });
            } else {
                ps.push(pt);
                abi.push(ParamAbi::Default);
            }
        }
        (ps, abi, r)
    }

    pub fn cir_type_of_class(&self, ctx: &mut ModuleCtx, c: ClassId) -> Type {
        let alias = ctx.sym(&self.class(c).alias);
        ctx.types.record(alias)
    }

    /// The CIR function type of a function.
    pub fn cir_sig(&self, ctx: &mut ModuleCtx, f: FuncId) -> Type {
        let func = self.func(f);
        let this = match func.kind {
            FuncKind::Method { is_static: false } | FuncKind::Ctor | FuncKind::Dtor => func.class,
            _ => None,
        };
        let (ps, abi, r) = self.cir_signature_parts(ctx, func.ret, &func.params, this);
        ctx.types.func_with_abi(ps, abi, r, func.variadic)
    }

    /// Whether calls to `f` cannot throw.
    pub fn is_nothrow(&self, f: FuncId) -> bool {
        let func = self.func(f);
        matches!(func.spec, Spec::Noexcept) || matches!(&func.spec, Spec::Throw(v) if v.is_empty())
    }

    // ---- declarations (pass 1) --------------------------------------------------------------

    /// Declares every item of the translation unit. Errors are collected per item.
    pub fn declare_items(
        &mut self,
        items: &[ast::Item],
        ctx: &mut ModuleCtx,
        errors: &mut Vec<Diagnostic>,
    ) {
        for item in items {
            let r = match item {
                ast::Item::Class(c) => self.declare_class(c, ctx),
                ast::Item::Function(f) => {
                    self.declare_function(f, None, Access::Public).map(|_| ())
                }
                ast::Item::Var(v) => self.declare_global(v),
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
    }

    fn declare_class(&mut self, decl: &ast::ClassDecl, ctx: &mut ModuleCtx) -> CxxResult<()> {
        let id = match self.class_by_name.get(&decl.name) {
            Some(&id) => {
                if self.class(id).complete && decl.body.is_some() {
                    return err(decl.loc, format!("redefinition of '{}'", decl.name));
                }
                id
            }
            None => {
                if self.funcs_by_name.contains_key(&decl.name)
                    || self.globals_by_name.contains_key(&decl.name)
                {
                    return err(
                        decl.loc,
                        format!("'{}' redeclared as a different kind of entity", decl.name),
                    );
                }
                let id = ClassId(self.classes.len() as u32);
                let seq = self.next_seq();
                let alias = record_alias(&decl.name);
                let sym = ctx.sym(&alias);
                let record = ctx.types.record(sym);
                self.classes.push(Class {
                    name: decl.name.clone(),
                    is_struct: decl.is_struct,
                    loc: decl.loc,
                    complete: false,
                    external: false,
                    bases: vec![],
                    fields: vec![],
                    statics: vec![],
                    methods: vec![],
                    size: 0,
                    align: 1,
                    dsize: 0,
                    is_empty: true,
                    pod_for_layout: true,
                    trivial_default_ctor: true,
                    trivial_copy_ctor: true,
                    trivial_copy_assign: true,
                    trivial_dtor: true,
                    record,
                    alias,
                    seq,
                });
                self.class_by_name.insert(decl.name.clone(), id);
                id
            }
        };
        let Some(body) = &decl.body else {
            return Ok(());
        };
        self.class_mut(id).loc = decl.loc;
        self.class_mut(id).is_struct = decl.is_struct;
        // Bases.
        for b in &body.bases {
            let Some(&bc) = self.class_by_name.get(&b.name) else {
                return err(b.loc, format!("unknown base class '{}'", b.name));
            };
            if bc == id {
                return err(b.loc, "a class cannot derive from itself");
            }
            if !self.class(bc).complete {
                if self.class(bc).external {
                    return unsupported(b.loc, format!("deriving from library class '{}'", b.name));
                }
                return err(b.loc, format!("base class '{}' is incomplete", b.name));
            }
            if self.class(id).bases.iter().any(|x| x.class == bc) {
                return err(b.loc, format!("duplicate base class '{}'", b.name));
            }
            self.class_mut(id).bases.push(BaseInfo {
                class: bc,
                access: b.access,
                offset: 0,
                field: None,
                loc: b.loc,
            });
        }
        // Repeated base subobjects (diamonds without virtual bases) are not supported.
        let mut all = Vec::new();
        self.collect_base_classes(id, &mut all);
        for (i, c) in all.iter().enumerate() {
            if all[..i].contains(c) {
                return unsupported(
                    decl.loc,
                    format!(
                        "class '{}' has more than one '{}' subobject",
                        decl.name,
                        self.class(*c).name
                    ),
                );
            }
        }
        // Members.
        let mut method_decls = Vec::new();
        for m in &body.members {
            match m {
                ast::Member::Field {
                    name,
                    ty,
                    access,
                    is_static,
                    init,
                    loc,
                } => {
                    if self.class(id).fields.iter().any(|f| &f.name == name)
                        || self.class(id).statics.iter().any(|s| &s.0 == name)
                    {
                        return err(*loc, format!("duplicate member '{name}'"));
                    }
                    if *is_static {
                        let t = self.resolve_type(ty, *loc)?;
                        let symbol = mangle::static_member_name(self, id, name);
                        let const_value = match init {
                            Some(e) if self.types.is_const(t) && self.types.is_integral(t) => {
                                self.const_eval_ast(e)
                            }
                            _ => None,
                        };
                        if init.is_some() && const_value.is_none() {
                            return unsupported(
                                *loc,
                                "in-class initializer of a non-const static member",
                            );
                        }
                        let seq = self.next_seq();
                        let v = VarId(self.globals.len() as u32);
                        self.globals.push(GlobalVar {
                            name: format!("{}::{name}", decl.name),
                            symbol,
                            ty: t,
                            init: GlobalInit::External,
                            internal: false,
                            loc: *loc,
                            const_value,
                            class: Some(id),
                            defined: false,
                            seq,
                            ast_init: init.clone().map(ast::Init::Copy),
                        });
                        self.class_mut(id).statics.push((name.clone(), v, *access));
                        continue;
                    }
                    let t = self.resolve_type(ty, *loc)?;
                    if self.types.is_void(t) || self.types.is_func(t) {
                        return err(*loc, format!("field '{name}' has invalid type"));
                    }
                    if self.types.referee(t).is_some() {
                        return unsupported(*loc, "reference members");
                    }
                    if let Some(c) = self.types.class_of(t)
                        && (c == id || !self.class(c).complete)
                    {
                        return err(*loc, format!("field '{name}' has incomplete type"));
                    }
                    if let TyKind::Array(e, _) = self.types.kind(t).clone()
                        && matches!(self.types.kind(e), TyKind::Array(..))
                        && self.contains_class(e)
                    {
                        return unsupported(*loc, "multi-dimensional arrays of class type");
                    }
                    self.class_mut(id).fields.push(FieldInfo {
                        name: name.clone(),
                        ty: t,
                        access: *access,
                        offset: 0,
                        index: 0,
                        init: init.clone(),
                        loc: *loc,
                    });
                }
                ast::Member::Method { decl: fd, access } => method_decls.push((fd, *access)),
            }
        }
        self.layout_class(id, ctx)?;
        // Member functions are declared once the layout is known.
        for (fd, access) in &method_decls {
            if fd.body.is_some() {
                // In-class bodies are declared now and defined below.
            }
            self.declare_function(fd, Some(id), *access)?;
        }
        self.compute_special_members(id, ctx)?;
        // In-class definitions see everything declared up to the end of the class.
        let end = self.seq;
        for &m in &self.class(id).methods.clone() {
            if self.func(m).body.is_some() && self.func(m).visible == 0 {
                self.func_mut(m).visible = end + 1;
            }
        }
        Ok(())
    }

    fn contains_class(&self, t: Ty) -> bool {
        match self.types.kind(t) {
            TyKind::Class(_) => true,
            TyKind::Array(e, _) => self.contains_class(*e),
            _ => false,
        }
    }

    /// All base classes of `c`, transitively (with repetitions).
    pub fn collect_base_classes(&self, c: ClassId, out: &mut Vec<ClassId>) {
        for b in &self.class(c).bases {
            out.push(b.class);
            self.collect_base_classes(b.class, out);
        }
    }

    /// The empty classes at each offset of a class (for the empty-subobject rule).
    fn empty_subobjects(&self, c: ClassId, at: u64, out: &mut Vec<(ClassId, u64)>) {
        let class = self.class(c);
        if class.is_empty {
            out.push((c, at));
        }
        for b in &class.bases {
            self.empty_subobjects(b.class, at + b.offset, out);
        }
        for f in &class.fields {
            if let Some(fc) = self.types.class_of(f.ty) {
                self.empty_subobjects(fc, at + f.offset, out);
            }
        }
    }

    /// Computes the Itanium layout of a class and declares its CIR record.
    fn layout_class(&mut self, id: ClassId, ctx: &mut ModuleCtx) -> CxxResult<()> {
        let loc = self.class(id).loc;
        let mut dsize = 0u64;
        let mut align = 1u64;
        let mut empties: Vec<(ClassId, u64)> = Vec::new();
        // (offset, cir type, size, align)
        let mut cir_fields: Vec<(u64, Type, u64, u64)> = Vec::new();
        let bases = self.class(id).bases.clone();
        let mut new_bases = Vec::new();
        for mut b in bases {
            let bc = self.class(b.class);
            let (bsize, balign, bdsize, bempty, bpod, brec) = (
                bc.size,
                bc.align,
                bc.dsize,
                bc.is_empty,
                bc.pod_for_layout,
                bc.record,
            );
            if bempty {
                let mut mine = Vec::new();
                self.empty_subobjects(b.class, 0, &mut mine);
                let mut off = 0;
                while mine.iter().any(|(c, o)| empties.contains(&(*c, o + off))) {
                    off += balign.max(1);
                }
                if off != 0 {
                    return unsupported(
                        b.loc,
                        "empty base classes that cannot be placed at offset 0",
                    );
                }
                empties.extend(mine.into_iter().map(|(c, o)| (c, o + off)));
                b.offset = off;
                b.field = None;
            } else {
                let off = align_up(dsize, balign);
                dsize = off + if bpod { bsize } else { bdsize };
                align = align.max(balign);
                b.offset = off;
                b.field = Some(cir_fields.len() as u32);
                cir_fields.push((off, brec, bsize, balign));
                let mut mine = Vec::new();
                self.empty_subobjects(b.class, off, &mut mine);
                empties.extend(mine);
            }
            new_bases.push(b);
        }
        let fields = self.class(id).fields.clone();
        let mut new_fields = Vec::new();
        for mut f in fields {
            let Some((fsize, falign)) = self.size_align(f.ty) else {
                return err(f.loc, format!("field '{}' has incomplete type", f.name));
            };
            let mut off = align_up(dsize, falign);
            let mut mine = Vec::new();
            if let Some(fc) = self.types.class_of(f.ty) {
                self.empty_subobjects(fc, 0, &mut mine);
            }
            while mine.iter().any(|(c, o)| empties.contains(&(*c, o + off))) {
                off += falign.max(1);
            }
            empties.extend(mine.into_iter().map(|(c, o)| (c, o + off)));
            dsize = off + fsize;
            align = align.max(falign);
            f.offset = off;
            let ct = self.cir_type(ctx, f.ty);
            f.index = cir_fields.len() as u32;
            cir_fields.push((off, ct, fsize, falign));
            new_fields.push(f);
        }
        let is_empty =
            new_fields.is_empty() && new_bases.iter().all(|b| self.class(b.class).is_empty);
        let size = align_up(dsize.max(1), align);
        // Lay the CIR fields out naturally, inserting byte padding where the Itanium
        // layout leaves gaps; reuse of tail padding cannot be expressed.
        let mut record_fields = Vec::new();
        let mut index_map = Vec::new();
        let mut at = 0u64;
        for &(off, ty, fsize, falign) in &cir_fields {
            let natural = align_up(at, falign);
            if natural > off {
                return unsupported(
                    loc,
                    format!(
                        "class '{}' reuses the tail padding of a base class (Itanium layout)",
                        self.class(id).name
                    ),
                );
            }
            if natural < off {
                record_fields.push(padding_type(ctx, off - at));
            }
            index_map.push(record_fields.len() as u32);
            record_fields.push(ty);
            at = off + fsize;
        }
        if record_fields.is_empty() {
            // An empty class: a record without fields, which occupies one byte.
            at = 1;
        }
        let natural_size = align_up(at, align);
        if natural_size < size {
            record_fields.push(padding_type(ctx, size - at));
        }
        for b in &mut new_bases {
            if let Some(i) = b.field {
                b.field = Some(index_map[i as usize]);
            }
        }
        for f in &mut new_fields {
            f.index = index_map[f.index as usize];
        }
        let pod = new_bases.is_empty()
            && new_fields
                .iter()
                .all(|f| f.access == Access::Public && self.is_pod(f.ty));
        let c = self.class_mut(id);
        c.bases = new_bases;
        c.fields = new_fields;
        c.size = size;
        c.align = align;
        c.dsize = dsize;
        c.is_empty = is_empty;
        c.pod_for_layout = pod;
        c.complete = true;
        let name = ctx.sym(&c.name);
        let alias = ctx.sym(&c.alias);
        let kind = if c.is_struct {
            RecordKind::Struct
        } else {
            RecordKind::Class
        };
        let cloc = c.loc;
        ctx.declare_record(RecordDecl {
            alias,
            kind,
            name,
            fields: Some(record_fields),
            loc: cloc,
        });
        Ok(())
    }

    fn is_pod(&self, t: Ty) -> bool {
        match self.types.kind(t) {
            TyKind::Class(c) => self.class(*c).pod_for_layout,
            TyKind::Array(e, _) => self.is_pod(*e),
            _ => true,
        }
    }

    /// Triviality of the special members and the implicit declarations.
    fn compute_special_members(&mut self, id: ClassId, _ctx: &mut ModuleCtx) -> CxxResult<()> {
        let mut sub_classes: Vec<ClassId> = self.class(id).bases.iter().map(|b| b.class).collect();
        for f in &self.class(id).fields {
            let mut t = f.ty;
            while let TyKind::Array(e, _) = self.types.kind(t) {
                t = *e;
            }
            if let Some(c) = self.types.class_of(t) {
                sub_classes.push(c);
            }
        }
        let has_nsdmi = self.class(id).fields.iter().any(|f| f.init.is_some());
        let methods = self.class(id).methods.clone();
        let mut user_ctor = false;
        let mut user_copy_ctor = None;
        let mut user_copy_assign = None;
        let mut user_dtor = None;
        let mut user_default_ctor = None;
        for &m in &methods {
            let f = self.func(m);
            match f.kind {
                FuncKind::Ctor => {
                    user_ctor = true;
                    if self.is_copy_param(id, &f.params) {
                        user_copy_ctor = Some(m);
                    }
                    if f.params.is_empty() {
                        user_default_ctor = Some(m);
                    }
                }
                FuncKind::Dtor => user_dtor = Some(m),
                FuncKind::Method { .. }
                    if f.ident == "operator=" && self.is_copy_param(id, &f.params) =>
                {
                    user_copy_assign = Some(m);
                }
                _ => {}
            }
        }
        let all = |p: &Program, pred: &dyn Fn(&Class) -> bool| {
            sub_classes.iter().all(|&c| pred(p.class(c)))
        };
        let trivial_default = !has_nsdmi && all(self, &|c| c.trivial_default_ctor);
        let trivial_copy = all(self, &|c| c.trivial_copy_ctor);
        let trivial_assign = all(self, &|c| c.trivial_copy_assign);
        let trivial_dtor = all(self, &|c| c.trivial_dtor);
        let defaulted =
            |p: &Program, m: Option<FuncId>| m.is_some_and(|m| p.func(m).implicit.is_some());
        {
            let dd = defaulted(self, user_default_ctor);
            let dc = defaulted(self, user_copy_ctor);
            let da = defaulted(self, user_copy_assign);
            let dt = defaulted(self, user_dtor);
            let c = self.class_mut(id);
            c.trivial_default_ctor = (!user_ctor || dd) && trivial_default;
            c.trivial_copy_ctor = (user_copy_ctor.is_none() || dc) && trivial_copy;
            c.trivial_copy_assign = (user_copy_assign.is_none() || da) && trivial_assign;
            c.trivial_dtor = (user_dtor.is_none() || dt) && trivial_dtor;
            if user_ctor || user_copy_assign.is_some() || user_dtor.is_some() {
                c.pod_for_layout = false;
            }
        }
        // Defaulted user declarations get their triviality.
        for (m, t) in [
            (user_default_ctor, trivial_default),
            (user_copy_ctor, trivial_copy),
            (user_copy_assign, trivial_assign),
            (user_dtor, trivial_dtor),
        ] {
            if let Some(m) = m
                && self.func(m).implicit.is_some()
            {
                self.func_mut(m).trivial = t;
            }
        }
        // Implicit declarations.
        let cty = self.types.class(id);
        let const_cty = self.types.with_const(cty, true);
        let copy_param = self.types.reference(const_cty);
        let void = self.types.builtin(Builtin::Void);
        let loc = self.class(id).loc;
        if !user_ctor {
            self.add_implicit(
                id,
                Implicit::DefaultCtor,
                vec![],
                void,
                trivial_default,
                loc,
            );
        }
        if user_copy_ctor.is_none() {
            self.add_implicit(
                id,
                Implicit::CopyCtor,
                vec![copy_param],
                void,
                trivial_copy,
                loc,
            );
        }
        if user_copy_assign.is_none() {
            let r = self.types.reference(cty);
            self.add_implicit(
                id,
                Implicit::CopyAssign,
                vec![copy_param],
                r,
                trivial_assign,
                loc,
            );
        }
        if user_dtor.is_none() {
            self.add_implicit(id, Implicit::Dtor, vec![], void, trivial_dtor, loc);
        }
        Ok(())
    }

    /// Whether parameters are those of a copy constructor/assignment: `(const X&)`/`(X&)`.
    pub fn is_copy_param(&self, class: ClassId, params: &[Ty]) -> bool {
        params.len() == 1
            && self
                .types
                .referee(params[0])
                .and_then(|r| self.types.class_of(r))
                == Some(class)
    }

    fn add_implicit(
        &mut self,
        class: ClassId,
        which: Implicit,
        params: Vec<Ty>,
        ret: Ty,
        trivial: bool,
        loc: Loc,
    ) {
        let cname = self.class(class).name.clone();
        let (kind, ident) = match which {
            Implicit::DefaultCtor | Implicit::CopyCtor => (FuncKind::Ctor, cname.clone()),
            Implicit::CopyAssign => (
                FuncKind::Method { is_static: false },
                "operator=".to_string(),
            ),
            Implicit::Dtor => (FuncKind::Dtor, format!("~{cname}")),
        };
        let mangled = self.mangle(kind, class, &ident, &params, false, false);
        let n = params.len();
        let id = FuncId(self.funcs.len() as u32);
        let seq = self.next_seq();
        self.funcs.push(Func {
            display: format!("{cname}::{ident}"),
            ident,
            kind,
            class: Some(class),
            access: Access::Public,
            params,
            param_names: vec![None; n],
            param_locs: vec![loc; n],
            ret,
            variadic: false,
            is_const: false,
            spec: if which == Implicit::Dtor {
                Spec::Noexcept
            } else {
                Spec::None
            },
            extern_c: false,
            internal: false,
            inline: true,
            explicit: false,
            deleted: false,
            implicit: Some(which),
            trivial,
            mangled,
            loc,
            body: None,
            visible: usize::MAX,
            seq,
            used: false,
        });
        self.class_mut(class).methods.push(id);
    }

    /// The mangled name of a member or free function.
    fn mangle(
        &self,
        kind: FuncKind,
        class: ClassId,
        ident: &str,
        params: &[Ty],
        is_const: bool,
        base_variant: bool,
    ) -> String {
        let name = match kind {
            FuncKind::Ctor => FunctionName::Ctor {
                class,
                base: base_variant,
            },
            FuncKind::Dtor => FunctionName::Dtor {
                class,
                base: base_variant,
            },
            FuncKind::Method { .. } if ident == "operator=" => {
                FunctionName::AssignOperator { class }
            }
            FuncKind::Method { .. } => FunctionName::Method {
                class,
                name: ident,
                is_const,
            },
            FuncKind::Free => FunctionName::Free {
                name: ident,
                in_std: false,
            },
        };
        mangle::mangle_function(&self.types, self, name, params, false)
    }

    /// The base-object variant (`C2`/`D2`) of a constructor or destructor.
    pub fn base_variant_name(&self, f: FuncId) -> String {
        let func = self.func(f);
        match (func.kind, func.class) {
            (FuncKind::Ctor | FuncKind::Dtor, Some(c)) => {
                self.mangle(func.kind, c, &func.ident, &func.params, false, true)
            }
            _ => func.mangled.clone(),
        }
    }

    /// Declares (or defines) a function; members come with their class.
    pub fn declare_function(
        &mut self,
        fd: &ast::FunctionDecl,
        in_class: Option<ClassId>,
        access: Access,
    ) -> CxxResult<FuncId> {
        // Which class (for out-of-line member definitions) and what kind.
        let (class, kind, ident) = match (&fd.name, in_class) {
            (DeclName::Ident(n), None) => (None, FuncKind::Free, n.clone()),
            (DeclName::Ident(n), Some(c)) => (
                Some(c),
                FuncKind::Method {
                    is_static: fd.is_static,
                },
                n.clone(),
            ),
            (DeclName::Ctor, Some(c)) => (Some(c), FuncKind::Ctor, self.class(c).name.clone()),
            (DeclName::Dtor, Some(c)) => {
                (Some(c), FuncKind::Dtor, format!("~{}", self.class(c).name))
            }
            (DeclName::Operator(op), Some(c)) => (
                Some(c),
                FuncKind::Method {
                    is_static: fd.is_static,
                },
                format!("operator{op}"),
            ),
            (DeclName::Qualified(cn, m), None) => {
                let Some(&c) = self.class_by_name.get(cn) else {
                    return err(fd.loc, format!("'{cn}' is not a class"));
                };
                return self.define_out_of_line(fd, c, m);
            }
            _ => return err(fd.loc, "invalid function declaration"),
        };
        if fd.is_static && matches!(kind, FuncKind::Ctor | FuncKind::Dtor) {
            return err(fd.loc, "constructors and destructors cannot be static");
        }
        if ident == "main" && class.is_none() && fd.body.is_none() {
            // A declaration of main is pointless but harmless.
        }
        let (params, names, locs, ret) = self.resolve_signature(fd)?;
        if let FuncKind::Dtor = kind {
            if !params.is_empty() {
                return err(fd.loc, "destructors take no parameters");
            }
            if fd.spec == ExceptionSpec::NoexceptFalse {
                return unsupported(fd.spec_loc, "destructors that may throw (noexcept(false))");
            }
        }
        let spec = match kind {
            FuncKind::Dtor => Spec::Noexcept,
            _ => self.resolve_spec(&fd.spec, fd.spec_loc)?,
        };
        if matches!(kind, FuncKind::Dtor)
            && !matches!(fd.spec, ExceptionSpec::None | ExceptionSpec::Noexcept)
        {
            return unsupported(fd.spec_loc, "exception specifications on destructors");
        }
        if fd.variadic && class.is_some() {
            return unsupported(fd.loc, "variadic member functions");
        }
        if fd.is_const && !matches!(kind, FuncKind::Method { is_static: false }) {
            return err(fd.loc, "only non-static member functions can be const");
        }
        if ident == "operator=" && params.len() != 1 {
            return err(fd.loc, "operator= takes exactly one parameter");
        }
        if let Some(c) = class
            && matches!(kind, FuncKind::Ctor)
            && params.len() == 1
            && self.types.class_of(params[0]) == Some(c)
        {
            return err(fd.loc, "a constructor cannot take its own class by value");
        }
        // Redeclaration of a free function?
        if class.is_none() {
            let key = ident.clone();
            if self.class_by_name.contains_key(&key) {
                return err(
                    fd.loc,
                    format!("'{key}' redeclared as a different kind of entity"),
                );
            }
            if let Some(existing) = self.funcs_by_name.get(&key).cloned() {
                for e in existing {
                    if self.func(e).params == params && self.func(e).variadic == fd.variadic {
                        if self.func(e).ret != ret {
                            return err(
                                fd.loc,
                                format!(
                                    "functions that differ only in their return type cannot be overloaded ('{key}')"
                                ),
                            );
                        }
                        if let Some(b) = &fd.body {
                            if self.func(e).body.is_some() {
                                return err(fd.loc, format!("redefinition of '{key}'"));
                            }
                            let seq = self.next_seq();
                            let f = self.func_mut(e);
                            f.body = Some(Rc::new(b.clone()));
                            f.param_names = names;
                            f.param_locs = locs;
                            f.loc = fd.loc;
                            f.visible = seq + 1;
                            if fd.is_inline {
                                f.inline = true;
                            }
                            self.definitions.push(e);
                        }
                        return Ok(e);
                    }
                    if self.func(e).extern_c || fd.extern_c {
                        return err(
                            fd.loc,
                            format!("conflicting declaration of C function '{key}'"),
                        );
                    }
                }
            }
        }
        if let Some(c) = class {
            // Member redeclaration in the same class is an error.
            for &m in &self.class(c).methods {
                let f = self.func(m);
                if f.ident == ident
                    && f.params == params
                    && f.is_const == fd.is_const
                    && f.implicit.is_none()
                {
                    return err(
                        fd.loc,
                        format!("class member cannot be redeclared ('{}')", f.display),
                    );
                }
            }
            if self.class(c).fields.iter().any(|f| f.name == ident) {
                return err(fd.loc, format!("'{ident}' conflicts with a data member"));
            }
        }
        let mangled = if fd.extern_c || (ident == "main" && class.is_none()) {
            if class.is_some() {
                return unsupported(fd.loc, "extern \"C\" member functions");
            }
            ident.clone()
        } else {
            match class {
                Some(c) => self.mangle(kind, c, &ident, &params, fd.is_const, false),
                // Internal-linkage names get g++'s `_ZL` prefix.
                None if fd.is_static => {
                    let m = self.mangle(FuncKind::Free, ClassId(0), &ident, &params, false, false);
                    format!("_ZL{}", m.strip_prefix("_Z").unwrap_or(&m))
                }
                None => self.mangle(FuncKind::Free, ClassId(0), &ident, &params, false, false),
            }
        };
        let display = match class {
            Some(c) => format!("{}::{ident}", self.class(c).name),
            None => ident.clone(),
        };
        let id = FuncId(self.funcs.len() as u32);
        let seq = self.next_seq();
        let implicit = if fd.defaulted {
            match kind {
                FuncKind::Ctor if params.is_empty() => Some(Implicit::DefaultCtor),
                FuncKind::Ctor if self.is_copy_param(class.unwrap_or(ClassId(0)), &params) => {
                    Some(Implicit::CopyCtor)
                }
                FuncKind::Dtor => Some(Implicit::Dtor),
                FuncKind::Method { is_static: false } if ident == "operator=" => {
                    Some(Implicit::CopyAssign)
                }
                _ => return err(fd.loc, "only special member functions can be defaulted"),
            }
        } else {
            None
        };
        self.funcs.push(Func {
            display,
            ident: ident.clone(),
            kind,
            class,
            access,
            params,
            param_names: names,
            param_locs: locs,
            ret,
            variadic: fd.variadic,
            is_const: fd.is_const,
            spec,
            extern_c: fd.extern_c,
            internal: fd.is_static && class.is_none(),
            inline: fd.is_inline || class.is_some() && fd.body.is_some(),
            explicit: fd.is_explicit,
            deleted: fd.deleted,
            implicit,
            trivial: false,
            mangled,
            loc: fd.loc,
            body: fd.body.clone().map(Rc::new),
            visible: if class.is_some() { 0 } else { seq + 1 },
            seq,
            used: false,
        });
        if let Some(c) = class {
            self.class_mut(c).methods.push(id);
        } else {
            self.funcs_by_name.entry(ident).or_default().push(id);
        }
        if fd.body.is_some() {
            self.definitions.push(id);
        }
        Ok(id)
    }

    fn resolve_signature(&mut self, fd: &ast::FunctionDecl) -> CxxResult<Signature> {
        let mut params = Vec::new();
        let mut names = Vec::new();
        let mut locs = Vec::new();
        for p in &fd.params {
            let t = self.resolve_param_type(&p.ty, p.loc)?;
            if self.types.is_void(t) {
                return err(p.loc, "parameter of type void");
            }
            if let Some(c) = self.types.class_of(t)
                && !self.class(c).complete
            {
                return err(
                    p.loc,
                    format!("parameter has incomplete type '{}'", self.class(c).name),
                );
            }
            params.push(t);
            names.push(p.name.clone());
            locs.push(p.loc);
        }
        let ret = self.resolve_type(&fd.ret, fd.loc)?;
        if matches!(
            self.types.kind(ret),
            TyKind::Array(..) | TyKind::Func { .. }
        ) {
            return err(fd.loc, "functions cannot return arrays or functions");
        }
        let ret = if self.types.is_class(ret) {
            self.types.unqual(ret)
        } else {
            ret
        };
        Ok((params, names, locs, ret))
    }

    fn resolve_spec(&mut self, spec: &ExceptionSpec, loc: Loc) -> CxxResult<Spec> {
        Ok(match spec {
            ExceptionSpec::None | ExceptionSpec::NoexceptFalse => Spec::None,
            ExceptionSpec::Noexcept => Spec::Noexcept,
            ExceptionSpec::Throw(types) => {
                let mut out = Vec::new();
                for t in types {
                    let ty = self.resolve_type(t, loc)?;
                    let ty = match self.types.referee(ty) {
                        Some(r) => r,
                        None => ty,
                    };
                    let ty = self.adjust_param(ty);
                    if let Some(c) = self.types.class_of(ty)
                        && !self.class(c).complete
                        && !self.class(c).external
                    {
                        return err(loc, "incomplete type in exception specification");
                    }
                    out.push(ty);
                }
                Spec::Throw(out)
            }
        })
    }

    fn define_out_of_line(
        &mut self,
        fd: &ast::FunctionDecl,
        c: ClassId,
        m: &MemberName,
    ) -> CxxResult<FuncId> {
        let ident = match m {
            MemberName::Ident(n) => n.clone(),
            MemberName::Ctor => self.class(c).name.clone(),
            MemberName::Dtor => format!("~{}", self.class(c).name),
            MemberName::Operator(op) => format!("operator{op}"),
        };
        let (params, names, locs, ret) = self.resolve_signature(fd)?;
        let cname = self.class(c).name.clone();
        let found = self.class(c).methods.iter().copied().find(|&mid| {
            let f = self.func(mid);
            f.ident == ident
                && f.params == params
                && f.is_const == fd.is_const
                && f.implicit.is_none()
        });
        let Some(mid) = found else {
            return err(
                fd.loc,
                format!(
                    "no member function '{ident}' with this signature declared in class '{cname}'"
                ),
            );
        };
        if self.func(mid).ret != ret {
            return err(
                fd.loc,
                format!(
                    "return type of out-of-line definition of '{cname}::{ident}' differs from the declaration"
                ),
            );
        }
        let declared = self.func(mid).spec.clone();
        let spec = match self.func(mid).kind {
            FuncKind::Dtor => Spec::Noexcept,
            _ => self.resolve_spec(&fd.spec, fd.spec_loc)?,
        };
        if spec != declared && !matches!(self.func(mid).kind, FuncKind::Dtor) {
            return err(
                fd.loc,
                format!(
                    "exception specification of '{cname}::{ident}' differs from its declaration"
                ),
            );
        }
        if fd.is_static {
            return err(
                fd.loc,
                "'static' can only be specified inside the class definition",
            );
        }
        let Some(body) = &fd.body else {
            return err(fd.loc, "out-of-line declaration of a member function");
        };
        if self.func(mid).body.is_some() {
            return err(fd.loc, format!("redefinition of '{cname}::{ident}'"));
        }
        let seq = self.next_seq();
        let f = self.func_mut(mid);
        f.body = Some(Rc::new(body.clone()));
        f.param_names = names;
        f.param_locs = locs;
        f.loc = fd.loc;
        f.visible = seq + 1;
        f.inline = fd.is_inline;
        self.definitions.push(mid);
        Ok(mid)
    }

    fn declare_global(&mut self, v: &ast::VarDecl) -> CxxResult<()> {
        match &v.name {
            DeclName::Qualified(cn, MemberName::Ident(n)) => {
                let Some(&c) = self.class_by_name.get(cn) else {
                    return err(v.loc, format!("'{cn}' is not a class"));
                };
                let Some(&(_, g, _)) = self.class(c).statics.iter().find(|(s, _, _)| s == n) else {
                    return err(v.loc, format!("no static member '{n}' in class '{cn}'"));
                };
                let t = self.resolve_type(&v.ty, v.loc)?;
                if self.types.unqual(t) != self.types.unqual(self.global(g).ty) {
                    return err(
                        v.loc,
                        format!("type of '{cn}::{n}' differs from its declaration"),
                    );
                }
                if self.global(g).defined {
                    return err(v.loc, format!("redefinition of '{cn}::{n}'"));
                }
                let seq = self.next_seq();
                let gv = &mut self.globals[g.0 as usize];
                gv.defined = true;
                gv.seq = gv.seq.min(seq);
                if !matches!(v.init, ast::Init::None) {
                    if gv.ast_init.is_some() {
                        return err(v.loc, "static member initialized twice");
                    }
                    gv.ast_init = Some(v.init.clone());
                }
                return Ok(());
            }
            DeclName::Ident(_) => {}
            _ => return err(v.loc, "invalid variable name"),
        }
        let DeclName::Ident(name) = &v.name else {
            return err(v.loc, "invalid variable name");
        };
        let t = match self.resolve_type(&v.ty, v.loc) {
            Ok(t) => t,
            Err(e) => {
                // `T x[] = {...}`: size from the initializer.
                if let TypeExpr::Array(inner, None) = &v.ty {
                    let n = match &v.init {
                        ast::Init::List(items, _) => items.len() as u64,
                        ast::Init::Copy(ast::Expr {
                            kind: ast::ExprKind::Str(s),
                            ..
                        }) => s.len() as u64 + 1,
                        _ => return Err(e),
                    };
                    let et = self.resolve_type(inner, v.loc)?;
                    self.types.intern(TyKind::Array(et, n), false)
                } else {
                    return Err(e);
                }
            }
        };
        if self.types.is_void(t) || self.types.is_func(t) {
            return err(v.loc, format!("variable '{name}' has invalid type"));
        }
        if self.class_by_name.contains_key(name) || self.funcs_by_name.contains_key(name) {
            return err(
                v.loc,
                format!("'{name}' redeclared as a different kind of entity"),
            );
        }
        if let Some(c) = self.types.class_of(t)
            && !self.class(c).complete
        {
            return err(v.loc, format!("variable '{name}' has incomplete type"));
        }
        if self.types.referee(t).is_some() {
            return unsupported(v.loc, "global references");
        }
        let const_value = match &v.init {
            ast::Init::Copy(e) if self.types.is_const(t) && self.types.is_integral(t) => {
                self.const_eval_ast(e)
            }
            _ => None,
        };
        let seq = self.next_seq();
        if let Some(&g) = self.globals_by_name.get(name) {
            // `extern int x;` then `int x = 1;`
            let existing = &self.globals[g.0 as usize];
            if existing.ty != t {
                return err(v.loc, format!("conflicting types for '{name}'"));
            }
            if existing.defined && !v.is_extern {
                return err(v.loc, format!("redefinition of '{name}'"));
            }
            if !v.is_extern {
                let gv = &mut self.globals[g.0 as usize];
                gv.defined = true;
                gv.ast_init = Some(v.init.clone());
                gv.const_value = const_value;
                gv.internal = v.is_static;
            }
            return Ok(());
        }
        let v2 = VarId(self.globals.len() as u32);
        let internal = v.is_static || (self.types.is_const(t) && !v.is_extern);
        self.globals.push(GlobalVar {
            name: name.clone(),
            // Internal-linkage variables get g++'s `_ZL` mangling.
            symbol: if internal {
                format!("_ZL{}", mangle::source_name(name))
            } else {
                name.clone()
            },
            ty: t,
            init: GlobalInit::External,
            internal,
            loc: v.loc,
            const_value,
            class: None,
            defined: !v.is_extern,
            seq,
            ast_init: if v.is_extern && matches!(v.init, ast::Init::None) {
                None
            } else {
                Some(v.init.clone())
            },
        });
        self.globals_by_name.insert(name.clone(), v2);
        Ok(())
    }

    /// A string literal global: returns its symbol.
    pub fn string_symbol(&mut self, bytes: &[u8]) -> String {
        let mut with_nul = bytes.to_vec();
        with_nul.push(0);
        if let Some(&i) = self.string_index.get(&with_nul) {
            return self.strings[i].1.clone();
        }
        let sym = if self.strings.is_empty() {
            ".str".to_string()
        } else {
            format!(".str.{}", self.strings.len())
        };
        self.string_index
            .insert(with_nul.clone(), self.strings.len());
        self.strings.push((with_nul, sym.clone()));
        sym
    }

    /// Records that a type's typeinfo is needed (thrown or caught).
    pub fn need_typeinfo(&mut self, t: Ty) {
        if !self.typeinfo_types.contains(&t) {
            self.typeinfo_types.push(t);
        }
    }

    /// The typeinfo symbol of a type.
    pub fn typeinfo_symbol(&self, t: Ty) -> String {
        mangle::typeinfo_name(&self.types, self, t)
    }
}
