//! ehir-cxx: a front end for a subset of C++ ([`compile`]), built on the EHScopeStack-style
//! CIR builder of `ehir-builder` (re-exported as [`builder`]).
//!
//! The front end runs in stages: [`lexer`] (with the few supported `#include`s),
//! [`parser`] (a syntax tree, [`ast`]), [`program`] (declarations: classes with their
//! Itanium layout, functions with their mangled names, globals), then per function body
//! [`sema`] (typed expressions) and [`codegen`] (structured CIR through the builder).
//! Anything outside the subset is reported as `unsupported: ...`; nothing panics.
//!
//! # The subset
//! `<stdio.h>`/`<cstdio>`, `<stdlib.h>`/`<cstdlib>`, `<string.h>`/`<cstring>` and
//! `<exception>` (`std::terminate`, `std::set_terminate`, `std::set_unexpected`,
//! `std::uncaught_exception`, `std::exception` as an opaque class to catch);
//! fundamental types, pointers, references, `const`, arrays, function pointers,
//! typedefs; classes with access sections, single and multiple non-virtual inheritance,
//! constructors with member-initializer lists, destructors, member functions,
//! `operator=`, static members, function-try-blocks, `= default`/`= delete`; constant-
//! or zero-initialized globals and static locals; every statement (`goto` only out of
//! scopes); `try`/`catch` by value, reference and pointer, `throw`, `throw;`; `new` /
//! `delete` (also arrays); `noexcept` and C++14 dynamic exception specifications.
//!
//! # Semantics and ABI
//! * Objects: a cleanup is pushed when a construction completes (locals, temporaries,
//!   base and member subobjects, array elements, the storage of `new`); prvalues are
//!   constructed in place (C++17: no copy for `T x = T()`, `return T()`, `throw T()`),
//!   and the named return value is elided as g++ does when every `return` names it.
//! * Evaluation order follows g++: call arguments right to left, the right operand of
//!   an assignment first.
//! * Itanium C++ ABI: g++'s class layout (empty bases, tail padding of POD bases),
//!   mangled names (checked against `nm` of g++'s objects), `C1`/`D1` thunks calling
//!   the `C2`/`D2` bodies, class results through a leading pointer parameter, class
//!   arguments by address of a caller-owned temporary (destroyed by the caller at the
//!   end of the full expression), array cookies for `new T[n]` of classes with
//!   destructors. Classes trivial for the purposes of calls (trivial copy constructor
//!   and destructor) are passed and returned by value in the C ABI: their pointer
//!   parameters are marked `by_value` / `by_value_result` (see
//!   [`program::Program::cir_signature_parts`]) and the LLVM emitter passes them in
//!   registers, `byval` or `sret` as g++ does, so objects built by ehir and by g++ call
//!   each other either way. Empty classes are records without fields, and the bytes the
//!   layout leaves without data are [`program::padding_type`] arrays, so that the
//!   calling convention's classification sees them as no data.
//! * A handler's `cir.catch_param` is libstdc++'s adjusted pointer: the address of the
//!   exception object, or the pointer itself for pointer handlers.

pub mod ast;
pub use ehir_builder as builder;
pub mod codegen;
pub mod lexer;
pub mod mangle;
pub mod parser;
pub mod program;
pub mod sema;
pub mod types;

use ast::{Builtin, Expr, ExprKind, Init};

/// Recursive functions over syntax trees grow the stack (with `stacker`) when less than
/// this much is left...
pub(crate) const RED_ZONE: usize = 256 * 1024;
/// ...by a new segment of this size.
pub(crate) const STACK_SEGMENT: usize = 8 * 1024 * 1024;
use codegen::Extras;
use ehir_core::{
    AttrData, ConstArrayElements, Diagnostic, Diagnostics, Function, Global, Item, Linkage, Loc,
    Module, OpKind, Symbol, TypeInfoDecl, Visit,
};
use program::{CxxResult, FuncKind, GlobalInit, Program, err, unsupported};
use std::collections::{BTreeMap, HashMap, HashSet};
use types::{Ty, TyKind};

/// Compiles C++ source text to a structured-phase CIR module. Locations in diagnostics
/// are byte offsets into `text`.
pub fn compile(file_name: &str, text: &str) -> Result<Module, Diagnostics> {
    // Everything runs on a stack segment of its own: the recursive functions over the
    // syntax trees (and the drops of deep trees) need room for thousands of levels.
    stacker::grow(COMPILE_STACK, || compile_on_big_stack(file_name, text))
}

/// The stack [`compile`] runs on (reserved, committed only as used).
const COMPILE_STACK: usize = 256 * 1024 * 1024;

fn compile_on_big_stack(file_name: &str, text: &str) -> Result<Module, Diagnostics> {
    let _ = file_name;
    let one = |d: Diagnostic| Diagnostics(vec![d]);
    let lexed = lexer::lex(text).map_err(one)?;
    let parsed = parser::parse(&lexed.tokens, &lexed.headers).map_err(one)?;
    let mut module = Module::new();
    let mut prog = Program::new(&lexed.headers, &mut module.ctx);
    prog.using_std = parsed.using_std;
    let mut errors = Vec::new();
    prog.declare_items(&parsed.items, &mut module.ctx, &mut errors);
    if let Some(&m) = prog.funcs_by_name.get("main").and_then(|v| v.first()) {
        let int = prog.types.builtin(Builtin::Int);
        let f = prog.func(m);
        if f.ret != int {
            errors.push(Diagnostic::error(f.loc, "'main' must return 'int'"));
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    let mut extras = Extras {
        static_locals: Vec::new(),
    };
    let mut definitions: Vec<Function> = Vec::new();
    let mut generated: HashSet<program::FuncId> = HashSet::new();
    let mut queue: Vec<program::FuncId> = prog.definitions.clone();
    loop {
        for fid in std::mem::take(&mut queue) {
            if !generated.insert(fid) {
                continue;
            }
            match codegen::gen_function(&mut prog, &mut module.ctx, fid, &mut extras) {
                Ok(fs) => definitions.extend(fs),
                Err(e) => errors.push(e),
            }
            if matches!(prog.func(fid).kind, FuncKind::Ctor | FuncKind::Dtor) {
                definitions.push(codegen::gen_complete_variant(
                    &mut prog,
                    &mut module.ctx,
                    fid,
                ));
            }
        }
        // Implicitly defined special members that are used.
        queue = (0..prog.funcs.len() as u32)
            .map(program::FuncId)
            .filter(|&f| {
                let func = prog.func(f);
                func.implicit.is_some()
                    && !func.trivial
                    && func.used
                    && func.body.is_none()
                    && !generated.contains(&f)
            })
            .collect();
        if queue.is_empty() {
            break;
        }
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| d.loc);
        return Err(Diagnostics(errors));
    }
    // Globals (their initializers may create string literals).
    let mut globals = Vec::new();
    for i in 0..prog.globals.len() {
        let g = &prog.globals[i];
        if !g.defined {
            continue;
        }
        let (ty, loc, init) = (g.ty, g.loc, g.ast_init.clone());
        match global_init(&mut prog, ty, init.as_ref(), loc) {
            Ok(init) => globals.push((i, init)),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    // Records, in declaration order.
    for i in 0..module.ctx.records.len() {
        module.items.push(Item::Record(i));
    }
    // Typeinfo objects of the thrown and caught types.
    let mut declared = HashSet::new();
    for t in prog.typeinfo_types.clone() {
        declare_typeinfo(&mut prog, &mut module, t, &mut declared);
    }
    // String literals, globals, static locals.
    for (bytes, sym) in prog.strings.clone() {
        let name = module.ctx.sym(&sym);
        module.add_string_literal(name, bytes);
    }
    for (i, init) in globals {
        let g = &prog.globals[i];
        let (symbol, ty, internal, loc) = (g.symbol.clone(), g.ty, g.internal, g.loc);
        add_global(&prog, &mut module, &symbol, ty, &init, internal, loc);
    }
    for g in std::mem::take(&mut extras.static_locals) {
        add_global(&prog, &mut module, &g.symbol, g.ty, &g.init, true, g.loc);
    }
    // Declarations of everything called or referenced but not defined here.
    let defined: HashSet<String> = definitions
        .iter()
        .map(|f| module.ctx.name(f.name).to_string())
        .collect();
    let mut by_name: HashMap<String, program::FuncId> = HashMap::new();
    for i in 0..prog.funcs.len() as u32 {
        let f = program::FuncId(i);
        by_name.insert(prog.func(f).mangled.clone(), f);
        by_name.insert(prog.base_variant_name(f), f);
    }
    let mut decls: BTreeMap<String, (ehir_core::Type, bool)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for f in &definitions {
        f.visit_in_order(&mut |v| {
            let Visit::Op(op) = v else { return };
            let (sym, sig) = match *f.dfg.kind(op) {
                OpKind::Call { callee, sig, .. } => match callee.expand() {
                    Some(s) => (s, Some(sig)),
                    None => return,
                },
                OpKind::GetGlobal { symbol } => (symbol, None),
                _ => return,
            };
            let name = module.ctx.name(sym).to_string();
            if defined.contains(&name) || decls.contains_key(&name) {
                return;
            }
            let Some(sig) = sig.or_else(|| {
                let ty = f.dfg.value_type(f.dfg.results(op)[0]);
                let pointee = module.ctx.types.pointee(ty)?;
                module.ctx.types.func_info(pointee).map(|_| pointee)
            }) else {
                return;
            };
            let nothrow = match by_name.get(&name) {
                Some(&fid) => prog.is_nothrow(fid),
                None => matches!(name.as_str(), "_ZdlPv" | "_ZdaPv"),
            };
            order.push(name.clone());
            decls.insert(name, (sig, nothrow));
        });
    }
    for name in order {
        let (sig, nothrow) = decls[&name];
        let sym = module.ctx.sym(&name);
        let mut d = Function::new_declaration(sym, sig);
        d.nothrow = nothrow;
        if let Some(&fid) = by_name.get(&name) {
            d.loc = prog.func(fid).loc;
        }
        module.add_function(d);
    }
    for f in definitions {
        module.add_function(f);
    }
    Ok(module)
}

/// Declares the typeinfo object of a thrown or caught type (and of its public bases).
fn declare_typeinfo(prog: &mut Program, module: &mut Module, t: Ty, declared: &mut HashSet<Ty>) {
    if !declared.insert(t) {
        return;
    }
    match prog.types.kind(t).clone() {
        TyKind::Class(c) => {
            if prog.class(c).external {
                return;
            }
            let mut bases = Vec::new();
            for b in prog.class(c).bases.clone() {
                if b.access != ast::Access::Public {
                    continue;
                }
                let bt = prog.types.class(b.class);
                declare_typeinfo(prog, module, bt, declared);
                let sym = prog.typeinfo_symbol(bt);
                bases.push((module.ctx.sym(&sym), b.offset));
            }
            let loc = prog.class(c).loc;
            add_typeinfo(prog, module, t, bases, loc);
        }
        TyKind::Ptr(p) => {
            let pu = prog.types.unqual(p);
            if let Some(c) = prog.types.class_of(pu) {
                if prog.class(c).external {
                    return;
                }
                declare_typeinfo(prog, module, pu, declared);
                let loc = prog.class(c).loc;
                add_typeinfo(prog, module, t, Vec::new(), loc);
            }
        }
        _ => {}
    }
}

/// Adds the typeinfo of `t`, with its public `bases` (typeinfo symbol, offset), at `loc`.
fn add_typeinfo(
    prog: &mut Program,
    module: &mut Module,
    t: Ty,
    bases: Vec<(Symbol, u64)>,
    loc: Loc,
) {
    let sym = prog.typeinfo_symbol(t);
    let symbol = module.ctx.sym(&sym);
    let ty = prog.cir_type(&mut module.ctx, t);
    module.add_typeinfo(TypeInfoDecl {
        symbol,
        ty,
        bases: bases
            .into_iter()
            .map(|(base, offset)| ehir_core::TypeInfoBase::public(base, offset))
            .collect(),
        loc,
    });
}

fn add_global(
    prog: &Program,
    module: &mut Module,
    symbol: &str,
    ty: Ty,
    init: &GlobalInit,
    internal: bool,
    loc: Loc,
) {
    let ct = prog.cir_type(&mut module.ctx, ty);
    let common = *module.ctx.types.common();
    let attr = match init {
        GlobalInit::External => None,
        GlobalInit::Zero => Some(AttrData::Zero(ct)),
        GlobalInit::Int(v) => Some(if ct == common.bool {
            AttrData::Bool(*v != 0)
        } else {
            AttrData::Int { value: *v, ty: ct }
        }),
        GlobalInit::Float(v) => Some(AttrData::Float {
            bits: v.to_bits(),
            ty: ct,
        }),
        GlobalInit::Null => Some(AttrData::Null(ct)),
        GlobalInit::StrPtr(s) | GlobalInit::AddrOf(s) => Some(AttrData::GlobalView {
            symbol: module.ctx.sym(s),
            indices: vec![],
            ty: Some(ct),
        }),
        GlobalInit::Bytes(b) => Some(AttrData::ConstArray {
            elements: ConstArrayElements::Bytes(b.clone()),
            ty: ct,
        }),
        GlobalInit::Ints(vs) => {
            let et = element_or_self(&module.ctx.types, ct);
            let items = vs
                .iter()
                .map(|&v| {
                    let a = if et == common.bool {
                        AttrData::Bool(v != 0)
                    } else {
                        AttrData::Int { value: v, ty: et }
                    };
                    module.ctx.attrs.intern(a)
                })
                .collect();
            Some(AttrData::ConstArray {
                elements: ConstArrayElements::Attrs(items),
                ty: ct,
            })
        }
        GlobalInit::Ptrs(ps) => {
            let et = element_or_self(&module.ctx.types, ct);
            let items = ps
                .iter()
                .map(|p| {
                    let a = match p {
                        Some(s) => AttrData::GlobalView {
                            symbol: module.ctx.sym(s),
                            indices: vec![],
                            ty: Some(et),
                        },
                        None => AttrData::Null(et),
                    };
                    module.ctx.attrs.intern(a)
                })
                .collect();
            Some(AttrData::ConstArray {
                elements: ConstArrayElements::Attrs(items),
                ty: ct,
            })
        }
    };
    let init = attr.map(|a| module.ctx.attrs.intern(a));
    let name = module.ctx.sym(symbol);
    let align = prog.size_align(ty).map(|(_, a)| a as u32);
    module.add_global(Global {
        name,
        ty: ct,
        init,
        constant: prog.types.is_const(ty) && !matches!(prog.types.kind(ty), TyKind::Class(_)),
        linkage: if internal {
            Linkage::Internal
        } else {
            Linkage::External
        },
        private_visibility: false,
        align,
        loc,
    });
}

/// The element type of array type `ty`; any other type itself.
fn element_or_self(types: &ehir_core::TypeStore, ty: ehir_core::Type) -> ehir_core::Type {
    match types.get(ty) {
        ehir_core::TypeData::Array(element, _) => *element,
        _ => ty,
    }
}

fn single_init(init: &Init) -> Option<&Expr> {
    match init {
        Init::Copy(e) => Some(e),
        Init::Direct(v) | Init::List(v, _) if v.len() == 1 => Some(&v[0]),
        _ => None,
    }
}

/// The constant initializer of a global (static storage: zero- or constant-initialized).
pub(crate) fn global_init(
    prog: &mut Program,
    t: Ty,
    init: Option<&Init>,
    loc: Loc,
) -> CxxResult<GlobalInit> {
    let init = match init {
        None | Some(Init::None) => {
            if let Some(c) = first_class(prog, t) {
                let class = prog.class(c);
                if !(class.trivial_default_ctor && class.trivial_dtor) {
                    return unsupported(
                        loc,
                        "global objects that need a constructor or destructor call",
                    );
                }
            }
            return Ok(GlobalInit::Zero);
        }
        Some(i) => i,
    };
    if first_class(prog, t).is_some() {
        return unsupported(loc, "initializers of global objects of class type");
    }
    if let TyKind::Array(e, n) = prog.types.kind(t).clone() {
        let is_char = matches!(
            prog.types.kind(e),
            TyKind::Builtin(Builtin::Char | Builtin::SChar | Builtin::UChar)
        );
        if let (
            true,
            Some(Expr {
                kind: ExprKind::Str(s),
                ..
            }),
        ) = (is_char, single_init(init))
        {
            if s.len() as u64 + 1 > n {
                return err(loc, "initializer-string for char array is too long");
            }
            let mut b = s.clone();
            b.resize(n as usize, 0);
            return Ok(GlobalInit::Bytes(b));
        }
        let Init::List(items, _) = init else {
            return err(
                loc,
                "array must be initialized with a brace-enclosed initializer",
            );
        };
        if prog.types.is_ptr(e) {
            if items.len() as u64 > n {
                return err(loc, "excess elements in array initializer");
            }
            let mut ps = Vec::new();
            for it in items {
                let one = Init::Copy(it.clone());
                match global_init(prog, e, Some(&one), it.loc)? {
                    GlobalInit::Null => ps.push(None),
                    GlobalInit::StrPtr(s) | GlobalInit::AddrOf(s) => ps.push(Some(s)),
                    _ => return unsupported(it.loc, "this initializer of a global pointer array"),
                }
            }
            ps.resize(n as usize, None);
            return Ok(GlobalInit::Ptrs(ps));
        }
        if !prog.types.is_integral(e) {
            return unsupported(loc, "global arrays of non-integer type with initializers");
        }
        if items.len() as u64 > n {
            return err(loc, "excess elements in array initializer");
        }
        let mut vs = Vec::new();
        for it in items {
            match prog.const_eval_ast(it) {
                Some(v) => vs.push(if prog.types.is_bool(e) {
                    (v != 0) as i128
                } else {
                    prog.wrap_to_type(v, e)
                }),
                None => return unsupported(it.loc, "non-constant initializer of a global"),
            }
        }
        vs.resize(n as usize, 0);
        return Ok(GlobalInit::Ints(vs));
    }
    let Some(e) = single_init(init) else {
        return err(loc, "invalid initializer of a scalar");
    };
    if prog.types.is_integral(t) {
        if let ExprKind::Float { value, .. } = e.kind {
            return Ok(GlobalInit::Int(if prog.types.is_bool(t) {
                (value != 0.0) as i128
            } else {
                prog.wrap_to_type(value as i128, t)
            }));
        }
        return match prog.const_eval_ast(e) {
            Some(v) => Ok(GlobalInit::Int(if prog.types.is_bool(t) {
                (v != 0) as i128
            } else {
                prog.wrap_to_type(v, t)
            })),
            None => unsupported(
                e.loc,
                "non-constant initializer of a global (dynamic initialization)",
            ),
        };
    }
    if prog.types.is_floating(t) {
        let v = match &e.kind {
            ExprKind::Float { value, .. } => Some(*value),
            ExprKind::Unary(ast::UnOp::Neg, x) => match &x.kind {
                ExprKind::Float { value, .. } => Some(-value),
                _ => prog.const_eval_ast(x).map(|v| -(v as f64)),
            },
            _ => prog.const_eval_ast(e).map(|v| v as f64),
        };
        return match v {
            Some(v) => Ok(GlobalInit::Float(v)),
            None => unsupported(
                e.loc,
                "non-constant initializer of a global (dynamic initialization)",
            ),
        };
    }
    if let Some(p) = prog.types.pointee(t) {
        match &e.kind {
            ExprKind::Nullptr => return Ok(GlobalInit::Null),
            ExprKind::Int { value: 0, .. } => return Ok(GlobalInit::Null),
            ExprKind::Str(s) if matches!(prog.types.kind(p), TyKind::Builtin(Builtin::Char)) => {
                if !prog.types.is_const(p) {
                    return err(
                        e.loc,
                        "ISO C++ forbids converting a string constant to 'char*'",
                    );
                }
                return Ok(GlobalInit::StrPtr(prog.string_symbol(s)));
            }
            ExprKind::Unary(ast::UnOp::AddrOf, x) => {
                if let ExprKind::Name(n) = &x.kind
                    && let Some(&g) = prog.globals_by_name.get(n)
                {
                    return Ok(GlobalInit::AddrOf(prog.global(g).symbol.clone()));
                }
            }
            ExprKind::Name(n) => {
                if let Some(fs) = prog.funcs_by_name.get(n)
                    && fs.len() == 1
                {
                    let f = fs[0];
                    prog.func_mut(f).used = true;
                    return Ok(GlobalInit::AddrOf(prog.func(f).mangled.clone()));
                }
            }
            _ => {}
        }
        return unsupported(e.loc, "non-constant initializer of a global pointer");
    }
    unsupported(loc, "this global initializer")
}

fn first_class(prog: &Program, t: Ty) -> Option<types::ClassId> {
    match prog.types.kind(t) {
        TyKind::Class(c) => Some(*c),
        TyKind::Array(e, _) => first_class(prog, *e),
        _ => None,
    }
}
