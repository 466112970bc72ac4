//! Lowering of Itanium-phase and MSVC-phase CIR to the [`crate::ir`] model of LLVM IR.
//!
//! What becomes what, on both ABIs:
//! - records → named struct types (unions → a struct of their most aligned member padded
//!   to the union's size); `!cir.bool` is `i1` in registers and `i8` in memory;
//! - `cir.alloca` → `alloca`, hoisted to the entry block; block parameters → `phi`;
//! - `cir.try_call` → `invoke`;
//! - Itanium: `by_value` / `by_value_result` parameters follow the x86-64 System V C ABI
//!   ([`crate::sysv`]): a class in registers arrives as one LLVM parameter per eightbyte
//!   (the callee stores them into a local that stands for the CIR parameter; the caller
//!   loads them from its argument), a class result in registers is the LLVM result (the
//!   callee's slot is a local; the caller stores the result into its slot, on the normal
//!   edge of an `invoke`), bigger classes are `byval` arguments and `sret` results, a
//!   class without data is not passed. The Microsoft path keeps them by address;
//! - symbols that are referenced but not defined become declarations: callees from the
//!   call's signature, typeinfo objects as `external constant ptr` (libstdc++ supplies the
//!   fundamental ones), the runtime functions with their usual attributes.
//!
//! Itanium ([`EhAbi::Itanium`], Itanium-phase functions): `cir.eh.landingpad` →
//! `landingpad { ptr, i32 }` plus two `extractvalue`s; `cir.eh.typeid` →
//! `llvm.eh.typeid.for.p0`; `cir.resume.flat` → `resume`; `cir.throw` → `__cxa_throw` (or
//! `__cxa_rethrow`), an `invoke` when it has an unwind destination;
//! `cir.alloc.exception` → `__cxa_allocate_exception`; `cir.free.exception` →
//! `__cxa_free_exception`; `cir.eh.terminate` →
//! `__cxa_begin_catch` + `std::terminate`; `cir.typeinfo` items →
//! `__class_type_info` / `__si_class_type_info` / `__vmi_class_type_info` /
//! `__pointer_type_info` objects with their `_ZTS` name strings (see [`crate::typeinfo`]).
//!
//! Microsoft ([`EhAbi::Msvc`], MSVC-phase functions, triple `x86_64-pc-windows-msvc`):
//! - `cir.catchswitch`, `cir.catchpad`, `cir.catchret`, `cir.cleanuppad`,
//!   `cir.cleanupret` → the LLVM instructions of the same names (EH tokens are `token`);
//!   a catchpad's arguments are `[ptr @TypeDescriptor|null, i32 adjectives, ptr
//!   slot|null]`, with a pointer's pointee qualifiers moved from the descriptor into the
//!   adjectives (see [`crate::msvc_rtti`]);
//! - every call and invoke in a funclet carries a `"funclet"` operand bundle naming the
//!   funclet's pad; funclets are found by colouring blocks from the pads (a block reached
//!   from two funclets is an error: the lowering clones such blocks);
//! - `cir.throw` → `_CxxThrowException(obj, ThrowInfo)` (rethrow: `(null, null)`), with
//!   the ThrowInfo → CatchableTypeArray → CatchableType → TypeDescriptor tables;
//!   `cir.alloc.exception` → an entry-block `alloca`: on this ABI the exception object lives
//!   in the throwing frame, which stays in place until the catch that ends it returns
//!   (so `cir.free.exception` emits nothing);
//!   `cir.eh.terminate` → msvcrt's `std::terminate` (`?terminate@@YAXXZ`);
//! - `cir.typeinfo` items emit nothing (the Microsoft RTTI is made on demand); module
//!   globals declared without an initializer under the name of a TypeDescriptor
//!   (`??_R0…@8`) or a Complete Object Locator (`??_R4…6B@`) are defined as those RTTI
//!   objects, from the module's `cir.typeinfo` items;
//! - calls of the C++ runtime under their Itanium names are redirected to msvcrt's
//!   (`_ZSt9terminatev` → `?terminate@@YAXXZ`, `_Znwm` → `??2@YAPEAX_K@Z`, ... see
//!   `ehir_core::abi::runtime::msvc_runtime_name`), `std::uncaught_exception` gets a
//!   small definition over msvcrt's `__uncaught_exception`, and `_fltused` is defined
//!   when the module uses floating point. The module's own symbols keep their (Itanium) names.
//!
//! Blocks that cannot be reached from the entry block are not emitted.
//!
//! Files: `mod.rs` is the module emitter (symbols and declarations, constants, globals,
//! typeinfo, one `function::FunctionEmitter` per definition); `types.rs` lowers CIR types
//! and function signatures; `function.rs` emits one function body (values, blocks, phis,
//! edges); `ops.rs` emits each op, by family; `itanium.rs` and `msvc.rs` hold what only one
//! EH model does.

mod function;
mod itanium;
mod msvc;
mod ops;
mod types;

use crate::ir::{self, Operand, Param, Ty};
use crate::msvc_rtti::MsRtti;
use crate::typeinfo;
use crate::writer;
pub use ehir_core::abi::EhAbi;
use ehir_core::abi::runtime::{self, RuntimeType, runtime_function};
use ehir_core::{
    AttrData, ConstArrayElements, Diagnostic, Diagnostics, Function, Linkage, Loc, Module,
    ModuleCtx, OpKind, Phase, RecordKind, Symbol, Type, TypeData,
};
use function::FunctionEmitter;
use std::collections::BTreeMap;
use types::ParamLowering;

/// Target description written into the module, and the EH model.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// The `target triple` (`x86_64-pc-linux-gnu`).
    pub triple: String,
    /// The `target datalayout` string.
    pub data_layout: String,
    /// The EH ABI: every function definition must be in its phase.
    pub abi: EhAbi,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            triple: "x86_64-pc-linux-gnu".into(),
            data_layout:
                "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
                    .into(),
            abi: EhAbi::Itanium,
        }
    }
}

impl EmitOptions {
    /// 64-bit Windows with the Microsoft C++ EH model.
    pub fn msvc() -> Self {
        EmitOptions {
            triple: MSVC_TRIPLE.into(),
            data_layout:
                "e-m:w-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
                    .into(),
            abi: EhAbi::Msvc,
        }
    }
}

/// The target triple of the Microsoft C++ ABI on x86-64.
pub const MSVC_TRIPLE: &str = "x86_64-pc-windows-msvc";
/// The Itanium name of `std::uncaught_exception()`, which the MSVC module defines itself.
const UNCAUGHT_EXCEPTION: &str = runtime::STD_UNCAUGHT_EXCEPTION;

/// Emits a module whose function definitions are all in the phase of `options.abi`
/// (declarations may be in any). The module must verify: this is the unchecked step
/// behind [`crate::emit_module`], which verifies first.
pub fn emit_module(
    module: &Module,
    source_name: &str,
    options: &EmitOptions,
) -> Result<ir::Module, Diagnostics> {
    let mut defined = Vec::new();
    let mut out = emit_each_function(module, source_name, options, |function| {
        defined.push(function)
    })?;
    // The functions handed out come first, as the module's items order them.
    out.functions.splice(0..0, defined);
    Ok(out)
}

/// [`emit_module`] written as LLVM IR text, one function at a time: each function is
/// written as soon as it is emitted and its model dropped, so memory stays near the size
/// of the text rather than of the whole module's model. The text is the same as
/// `writer::module_to_string(&emit_module(..)?)`.
pub fn emit_module_text(
    module: &Module,
    source_name: &str,
    options: &EmitOptions,
) -> Result<String, Diagnostics> {
    let mut functions_text = String::new();
    let mut comdats = Vec::new();
    let rest = emit_each_function(module, source_name, options, |function| {
        if writer::has_comdat(&function) {
            comdats.push(function.name.clone());
        }
        writer::write_function_text(&mut functions_text, &function)
            .expect("writing to a String cannot fail");
    })?;
    let mut text = String::new();
    writer::write_module_prelude(&mut text, &rest, &comdats)
        .expect("writing to a String cannot fail");
    text.reserve(functions_text.len());
    text.push_str(&functions_text);
    drop(functions_text);
    writer::write_functions(&mut text, &rest.functions).expect("writing to a String cannot fail");
    Ok(text)
}

/// Emits the module, handing each function definition of its items to `each_function`
/// as soon as it is emitted (in item order); returns the rest of the module: header,
/// types, globals, and the functions that come after the definitions (the MSVC helpers
/// and the declarations of everything referenced but not defined).
fn emit_each_function(
    module: &Module,
    source_name: &str,
    options: &EmitOptions,
    mut each_function: impl FnMut(ir::Function),
) -> Result<ir::Module, Diagnostics> {
    let mut m = ModuleEmitter::new(module, options.abi);
    let mut out = ir::Module {
        source_filename: source_name.to_string(),
        data_layout: options.data_layout.clone(),
        triple: options.triple.clone(),
        ..Default::default()
    };
    out.types = m.record_types();
    for item in &module.items {
        match *item {
            ehir_core::Item::Global(g) => {
                if let Some(g) = m.global(&module.globals[g]) {
                    out.globals.push(g);
                }
            }
            ehir_core::Item::TypeInfo(_) if m.msvc => {}
            ehir_core::Item::TypeInfo(i) => {
                let decl = &module.ctx.typeinfos[i];
                match typeinfo::class_type_info(&module.ctx, decl) {
                    Ok(info) => {
                        m.extern_global(info.vtable, Ty::Ptr, false);
                        for name in info.referenced {
                            m.typeinfo_ref_by_name(&name);
                        }
                        out.globals.extend(info.globals);
                    }
                    Err(msg) => m.error(decl.loc, msg),
                }
            }
            ehir_core::Item::Function(f) => {
                if let Some(f) = m.function(&module.functions[f]) {
                    each_function(f);
                }
            }
            ehir_core::Item::Record(_) => {}
        }
    }
    if m.msvc {
        m.finish_msvc(&mut out);
    }
    if let Some(ctors) = global_ctors(module) {
        out.globals.push(ctors);
    }
    // Declarations of everything referenced but not defined, sorted by name.
    out.globals
        .extend(std::mem::take(&mut m.extern_globals).into_values());
    out.functions
        .extend(std::mem::take(&mut m.extern_functions).into_values());
    if m.errors.is_empty() {
        Ok(out)
    } else {
        Err(Diagnostics(m.errors))
    }
}

/// `@llvm.global_ctors`: the module's `global_ctor` functions with their priorities, in
/// module order (the C runtime runs them before `main`, lower priorities first).
fn global_ctors(module: &Module) -> Option<ir::Global> {
    let entry = Ty::Struct(vec![Ty::i32(), Ty::Ptr, Ty::Ptr]);
    let entries: Vec<Operand> = module
        .functions
        .values()
        .filter(|f| f.body.is_some())
        .filter_map(|f| {
            let priority = f.global_ctor?;
            Some(Operand::Struct(vec![
                (Ty::i32(), Operand::Int(i128::from(priority))),
                (
                    Ty::Ptr,
                    Operand::Global(module.ctx.name(f.name).to_string()),
                ),
                (Ty::Ptr, Operand::Null),
            ]))
        })
        .collect();
    if entries.is_empty() {
        return None;
    }
    Some(ir::Global {
        name: "llvm.global_ctors".to_string(),
        linkage: "appending",
        constant: false,
        unnamed_addr: false,
        ty: Ty::Array(entries.len() as u64, Box::new(entry.clone())),
        init: Some(Operand::Array(entry, entries)),
        align: None,
        comdat: false,
    })
}

/// `value` truncated to `width` bits and sign-extended back: the decimal LLVM expects.
fn int_repr(value: i128, width: u16) -> i128 {
    if width == 0 || width >= 128 {
        return value;
    }
    let shift = 128 - u32::from(width);
    (value << shift) >> shift
}

/// The `f64` bits of a constant as LLVM wants them for `ty` (floats must be exact floats).
fn float_bits(bits: u64, single: bool) -> u64 {
    let v = f64::from_bits(bits);
    if single {
        f64::from(v as f32).to_bits()
    } else {
        v.to_bits()
    }
}

/// What a runtime function looks like: return type, parameters, varargs, attributes.
struct RuntimeDecl {
    ret: Ty,
    params: Vec<Ty>,
    vararg: bool,
    fn_attrs: ir::Attrs,
}

/// The LLVM type of a runtime signature's parameter or result.
fn runtime_ty(ty: RuntimeType) -> Ty {
    match ty {
        RuntimeType::Ptr | RuntimeType::BytePtr => Ty::Ptr,
        RuntimeType::I32 => Ty::i32(),
        RuntimeType::U64 => Ty::i64(),
    }
}

/// The declaration of a runtime function the emitter declares itself: the rows of
/// `ehir_core::abi::runtime` marked `declared_by_emitter`, and `llvm.eh.typeid.for.p0`.
fn runtime_decl(name: &str) -> Option<RuntimeDecl> {
    if name == "llvm.eh.typeid.for.p0" {
        return Some(RuntimeDecl {
            ret: Ty::i32(),
            params: vec![Ty::Ptr],
            vararg: false,
            fn_attrs: vec!["nounwind"],
        });
    }
    let function = runtime_function(name).filter(|f| f.declared_by_emitter)?;
    let mut fn_attrs = vec![];
    if function.noreturn {
        fn_attrs.push("noreturn");
    }
    if function.nounwind {
        fn_attrs.push("nounwind");
    }
    Some(RuntimeDecl {
        ret: function.result.map_or(Ty::Void, runtime_ty),
        params: function.params.iter().map(|&p| runtime_ty(p)).collect(),
        vararg: function.vararg,
        fn_attrs,
    })
}

pub(crate) struct ModuleEmitter<'m> {
    module: &'m Module,
    ctx: &'m ModuleCtx,
    /// Emitting for the Microsoft EH model.
    msvc: bool,
    errors: Vec<Diagnostic>,
    extern_functions: BTreeMap<String, ir::Function>,
    extern_globals: BTreeMap<String, ir::Global>,
    /// Microsoft RTTI and throw tables (MSVC only).
    rtti: MsRtti,
    /// `std::uncaught_exception` was referenced (MSVC only: the module defines it).
    uses_uncaught_exception: bool,
}

impl<'m> ModuleEmitter<'m> {
    fn new(module: &'m Module, abi: EhAbi) -> Self {
        ModuleEmitter {
            module,
            ctx: &module.ctx,
            msvc: abi == EhAbi::Msvc,
            errors: Vec::new(),
            extern_functions: BTreeMap::new(),
            extern_globals: BTreeMap::new(),
            rtti: MsRtti::default(),
            uses_uncaught_exception: false,
        }
    }

    fn error(&mut self, loc: Loc, message: impl Into<String>) {
        self.errors.push(Diagnostic::error(loc, message));
    }

    /// The value of `result`, or `None` with its error reported at `loc` as an error of
    /// `item` (`global @g`, `function @f`).
    fn reported<T>(&mut self, loc: Loc, item: &str, result: Result<T, String>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(msg) => {
                self.error(loc, format!("{item}: {msg}"));
                None
            }
        }
    }

    fn name(&self, s: Symbol) -> &'m str {
        self.ctx.name(s)
    }

    // ---- symbols -------------------------------------------------------------------------------

    fn is_defined_symbol(&self, s: Symbol) -> bool {
        self.module.function_by_name(s).is_some()
            || self.module.global_by_name(s).is_some()
            || self.ctx.typeinfo(s).is_some()
    }

    /// Makes sure a runtime function is declared; returns its name as an operand.
    fn runtime(&mut self, name: &str) -> Operand {
        let defined = self
            .ctx
            .symbols
            .lookup(name)
            .is_some_and(|s| self.module.function_by_name(s).is_some());
        if !defined
            && !self.extern_functions.contains_key(name)
            && let Some(d) = runtime_decl(name)
        {
            let params = d.params.into_iter().map(Param::plain).collect();
            self.extern_functions.insert(
                name.to_string(),
                ir::Function::declaration(name, d.ret, params, d.vararg, d.fn_attrs),
            );
        }
        Operand::Global(name.to_string())
    }

    /// Whether the module defines (not just declares) function `s`.
    fn has_function_body(&self, s: Symbol) -> bool {
        self.module
            .function_by_name(s)
            .is_some_and(|f| self.module.functions[f].body.is_some())
    }

    /// A reference to a function symbol; declares it from `sig` when the module does not.
    fn function_ref(&mut self, s: Symbol, sig: Type, loc: Loc) -> Operand {
        if let Some(o) = self.msvc_redirect(s, sig, loc) {
            return o;
        }
        let name = self.name(s);
        if self.is_defined_symbol(s) || self.extern_functions.contains_key(name) {
            return Operand::Global(name.to_string());
        }
        if runtime_decl(name).is_some() {
            return self.runtime(name);
        }
        self.check_msvc_external(name, sig, loc);
        self.declare_with_signature(name, name, sig, loc);
        Operand::Global(name.to_string())
    }

    /// Declares external function `name` with the lowering of CIR signature `sig`; an
    /// error names the callee as `callee`, the name the module calls it by.
    fn declare_with_signature(&mut self, name: &str, callee: &str, sig: Type, loc: Loc) {
        match self.signature(sig) {
            Ok(lowered) => {
                let params = Self::declaration_params(&lowered);
                let declaration = ir::Function {
                    ret_attrs: lowered.ret_attrs,
                    ..ir::Function::declaration(name, lowered.ret, params, lowered.vararg, vec![])
                };
                self.extern_functions.insert(name.to_string(), declaration);
            }
            Err(msg) => self.error(loc, format!("callee @{callee}: {msg}")),
        }
    }

    /// Declares an external function unless it is already declared.
    fn declare_function(&mut self, name: &str, ret: Ty, params: Vec<Ty>) {
        if !self.extern_functions.contains_key(name) {
            let params = params.into_iter().map(Param::plain).collect();
            self.extern_functions.insert(
                name.to_string(),
                ir::Function::declaration(name, ret, params, false, vec![]),
            );
        }
    }

    /// Declares an external global unless it is already declared.
    fn extern_global(&mut self, name: &str, ty: Ty, constant: bool) {
        if !self.extern_globals.contains_key(name) {
            self.extern_globals.insert(
                name.to_string(),
                ir::Global {
                    name: name.to_string(),
                    linkage: "",
                    constant,
                    unnamed_addr: false,
                    ty,
                    init: None,
                    align: None,
                    comdat: false,
                },
            );
        }
    }

    /// A reference to a typeinfo object; declares it `external constant ptr` when the
    /// module does not define it (libstdc++ defines those of the fundamental types).
    fn typeinfo_ref(&mut self, s: Symbol) -> Operand {
        let name = self.name(s);
        if !self.is_defined_symbol(s) {
            self.extern_global(name, Ty::Ptr, true);
        }
        Operand::Global(name.to_string())
    }

    /// Declares the typeinfo object `name` `external constant ptr` unless the module
    /// defines it.
    fn typeinfo_ref_by_name(&mut self, name: &str) {
        match self.ctx.symbols.lookup(name) {
            Some(s) => {
                self.typeinfo_ref(s);
            }
            None => self.extern_global(name, Ty::Ptr, true),
        }
    }

    /// A reference to a global of (pointee) type `ty`; declares it when unknown.
    fn global_ref(&mut self, s: Symbol, pointee: Option<Type>, loc: Loc) -> Operand {
        let name = self.name(s);
        if self.is_defined_symbol(s) || self.extern_globals.contains_key(name) {
            return Operand::Global(name.to_string());
        }
        if name.starts_with("_ZTI") {
            return self.typeinfo_ref(s);
        }
        let ty = match pointee.map(|p| self.mem_ty(p)) {
            Some(Ok(Ty::Void)) | None => Ty::i8(),
            Some(Ok(t)) => t,
            Some(Err(msg)) => {
                self.error(loc, format!("global @{name}: {msg}"));
                Ty::i8()
            }
        };
        self.extern_globals.insert(
            name.to_string(),
            ir::Global {
                name: name.to_string(),
                linkage: "",
                constant: false,
                unnamed_addr: false,
                ty,
                init: None,
                align: None,
                comdat: false,
            },
        );
        Operand::Global(name.to_string())
    }

    /// `#cir.global_view<@g[, [i, j]]>`: the address of `g` or of an element inside it.
    fn global_view(&mut self, s: Symbol, indices: &[i64], loc: Loc) -> Result<Operand, String> {
        if indices.is_empty() {
            return Ok(match self.module.function_by_name(s) {
                Some(_) => Operand::Global(self.name(s).to_string()),
                None => self.global_ref(s, None, loc),
            });
        }
        let g = self
            .module
            .global_by_name(s)
            .ok_or_else(|| format!("@{} is not a global of this module", self.name(s)))?;
        let global_ty = self.module.globals[g].ty;
        let source = self.mem_ty(global_ty)?;
        // Into an array or record the first index selects an element or field, as
        // upstream lowers it (after the leading 0 that steps through the global's
        // address); a global of another type is the first of an array of its type, so
        // `[2]` on a pointer global is two pointers on (a vtable's address point).
        let mut idx = Vec::with_capacity(indices.len() + 1);
        if matches!(
            self.ctx.types.get(global_ty),
            TypeData::Array(..) | TypeData::Record(_)
        ) {
            idx.push((Ty::i32(), Operand::Int(0)));
        }
        idx.extend(
            indices
                .iter()
                .map(|&i| (Ty::i32(), Operand::Int(i128::from(i)))),
        );
        Ok(Operand::GepConst {
            source,
            base: Box::new(Operand::Global(self.name(s).to_string())),
            indices: idx,
        })
    }

    // ---- constants -----------------------------------------------------------------------------

    /// The constant for an attribute of CIR type `ty`, in memory form when `memory`.
    fn constant(
        &mut self,
        a: ehir_core::Attr,
        ty: Type,
        memory: bool,
        loc: Loc,
    ) -> Result<Operand, String> {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || {
            let ctx = self.ctx;
            let tdata = ctx.types.get(ty).clone();
            Ok(match ctx.attrs.get(a).clone() {
                AttrData::Int { value, .. } => match tdata {
                    TypeData::Int { width, .. } => Operand::Int(int_repr(value, width)),
                    TypeData::Bool if memory => Operand::Int(i128::from(value != 0)),
                    TypeData::Bool => Operand::Bool(value != 0),
                    TypeData::Ptr(..) if value == 0 => Operand::Null,
                    TypeData::Float => Operand::Float(float_bits((value as f64).to_bits(), true)),
                    TypeData::Double => Operand::Float((value as f64).to_bits()),
                    _ => {
                        return Err(format!(
                            "an integer cannot initialize {}",
                            type_text(ctx, ty)
                        ));
                    }
                },
                AttrData::Bool(b) => match tdata {
                    TypeData::Bool if !memory => Operand::Bool(b),
                    TypeData::Bool | TypeData::Int { .. } => Operand::Int(i128::from(b)),
                    _ => {
                        return Err(format!(
                            "a boolean cannot initialize {}",
                            type_text(ctx, ty)
                        ));
                    }
                },
                AttrData::Float { bits, .. } => match tdata {
                    TypeData::Float => Operand::Float(float_bits(bits, true)),
                    TypeData::Double => Operand::Float(bits),
                    _ => return Err(format!("a float cannot initialize {}", type_text(ctx, ty))),
                },
                AttrData::Null(_) => Operand::Null,
                AttrData::IntPtr { value, .. } => Operand::IntToPtr(value),
                AttrData::GlobalView {
                    symbol, indices, ..
                } => self.global_view(symbol, &indices, loc)?,
                AttrData::Str(bytes) => self.byte_array(&bytes, ty)?,
                AttrData::ConstArray { elements, .. } => match elements {
                    ConstArrayElements::Bytes(bytes) => self.byte_array(&bytes, ty)?,
                    ConstArrayElements::Attrs(items) => self.aggregate(&items, ty, loc)?,
                },
                AttrData::ConstRecord { fields, .. } => self.aggregate(&fields, ty, loc)?,
                AttrData::Zero(_) => Operand::Zero,
                AttrData::Undef(_) => Operand::Undef,
                AttrData::List(items) => self.aggregate(&items, ty, loc)?,
            })
        })
    }

    fn byte_array(&self, bytes: &[u8], ty: Type) -> Result<Operand, String> {
        match self.ctx.types.get(ty) {
            TypeData::Array(e, n)
                if matches!(self.ctx.types.get(*e), TypeData::Int { width: 8, .. }) =>
            {
                let n = *n as usize;
                if bytes.len() > n {
                    return Err(format!(
                        "a string of {} bytes does not fit in {}",
                        bytes.len(),
                        type_text(self.ctx, ty)
                    ));
                }
                let mut b = bytes.to_vec();
                b.resize(n, 0);
                Ok(Operand::Bytes(b))
            }
            _ => Err(format!(
                "a string cannot initialize {}",
                type_text(self.ctx, ty)
            )),
        }
    }

    fn aggregate(
        &mut self,
        items: &[ehir_core::Attr],
        ty: Type,
        loc: Loc,
    ) -> Result<Operand, String> {
        match self.ctx.types.get(ty).clone() {
            TypeData::Array(e, n) => {
                if items.len() as u64 > n {
                    return Err(format!(
                        "{} elements do not fit in {}",
                        items.len(),
                        type_text(self.ctx, ty)
                    ));
                }
                let elem = self.mem_ty(e)?;
                let mut out = Vec::with_capacity(n as usize);
                for &x in items {
                    out.push(self.constant(x, e, true, loc)?);
                }
                while (out.len() as u64) < n {
                    out.push(Operand::Zero);
                }
                Ok(Operand::Array(elem, out))
            }
            TypeData::Record(alias) => {
                let decl = self
                    .ctx
                    .record(alias)
                    .ok_or_else(|| format!("record !{} is incomplete", self.name(alias)))?;
                let fields = decl
                    .fields
                    .clone()
                    .ok_or_else(|| format!("record !{} is incomplete", self.name(alias)))?;
                if decl.kind == RecordKind::Union {
                    return Err("constant unions are not supported".into());
                }
                if items.len() != fields.len() {
                    return Err(format!(
                        "!{} has {} fields but the constant has {}",
                        self.name(alias),
                        fields.len(),
                        items.len()
                    ));
                }
                if fields.is_empty() {
                    return Ok(Operand::Zero);
                }
                let mut out = Vec::new();
                for (&x, &f) in items.iter().zip(&fields) {
                    out.push((self.mem_ty(f)?, self.constant(x, f, true, loc)?));
                }
                if self.ctx.packed_records.contains(&alias) {
                    Ok(Operand::PackedStruct(out))
                } else {
                    Ok(Operand::Struct(out))
                }
            }
            _ => Err(format!(
                "a list cannot initialize {}",
                type_text(self.ctx, ty)
            )),
        }
    }

    // ---- globals and functions -------------------------------------------------------------------

    fn global(&mut self, g: &ehir_core::Global) -> Option<ir::Global> {
        if self.is_msvc_rtti_declaration(g) {
            return None;
        }
        let name = self.name(g.name).to_string();
        let item = format!("global @{name}");
        let result = self.mem_ty(g.ty);
        let ty = self.reported(g.loc, &item, result)?;
        let init = match g.init {
            None => None,
            Some(a) => {
                let result = self.constant(a, g.ty, true, g.loc);
                Some(self.reported(g.loc, &item, result)?)
            }
        };
        Some(ir::Global {
            name,
            linkage: linkage_text(g.linkage),
            constant: g.constant,
            unnamed_addr: g.constant && g.linkage == Linkage::Private,
            ty,
            init,
            align: g.align,
            comdat: g.linkage == Linkage::LinkOnceOdr && g.init.is_some(),
        })
    }

    fn function(&mut self, f: &'m Function) -> Option<ir::Function> {
        let name = self.name(f.name).to_string();
        let result = self.signature(f.sig);
        let lowered = self.reported(f.loc, &format!("function @{name}"), result)?;
        let mut fn_attrs: ir::Attrs = Vec::new();
        if f.nothrow {
            fn_attrs.push("nounwind");
        }
        // Upstream's `attributes {noreturn}` (the Itanium lowering's `__clang_call_terminate`).
        if f.attributes.iter().any(|a| a.name == "noreturn") {
            fn_attrs.push("noreturn");
        }
        if let Some(inline) = f.inline {
            fn_attrs.push(inline.llvm_attribute());
        }
        if f.body.is_none() && self.is_redirected(&name) {
            return None;
        }
        if f.body.is_none() {
            self.check_msvc_external(&name, f.sig, f.loc);
            return Some(ir::Function {
                name,
                linkage: "",
                hidden: f.hidden,
                params: Self::declaration_params(&lowered),
                ret: lowered.ret,
                ret_attrs: lowered.ret_attrs,
                vararg: lowered.vararg,
                fn_attrs,
                comdat: false,
                personality: None,
                blocks: None,
            });
        }
        let (phase, abi_name) = if self.msvc {
            (Phase::Msvc, "msvc")
        } else {
            (Phase::Itanium, "itanium")
        };
        if f.phase != phase {
            self.error(
                f.loc,
                format!(
                    "function @{name} is in the {} phase; LLVM IR for the {abi_name} ABI needs the {abi_name} phase (lower it with eh-abi-lowering={abi_name} first)",
                    f.phase.name()
                ),
            );
            return None;
        }
        fn_attrs.push("uwtable");
        let personality = f.personality.map(|p| {
            let n = self.name(p).to_string();
            if runtime_decl(&n).is_some() {
                self.runtime(&n);
            } else if !self.is_defined_symbol(p) && !self.extern_functions.contains_key(&n) {
                self.extern_functions.insert(
                    n.clone(),
                    ir::Function {
                        name: n.clone(),
                        linkage: "",
                        hidden: false,
                        ret: Ty::i32(),
                        ret_attrs: vec![],
                        params: vec![],
                        vararg: true,
                        fn_attrs: vec![],
                        comdat: false,
                        personality: None,
                        blocks: None,
                    },
                );
            }
            n
        });
        let errors_before = self.errors.len();
        let mut fe = FunctionEmitter::new(self, f, lowered.lowering.clone());
        let (blocks, param_names) = fe.run();
        if self.errors.len() > errors_before {
            return None;
        }
        // The LLVM parameters in order, named after the CIR parameters they carry.
        let mut llvm_params = lowered.params.iter();
        let mut params = Vec::with_capacity(lowered.params.len());
        for (lowering, cir_name) in lowered.lowering.iter().zip(&param_names) {
            let names: Vec<String> = match lowering {
                ParamLowering::Direct => vec![cir_name.clone()],
                ParamLowering::Parts { parts } => (0..parts.len())
                    .map(|k| format!("{cir_name}.coerce{k}"))
                    .collect(),
                ParamLowering::ResultParts { .. } => vec![],
            };
            for name in names {
                let Some(p) = llvm_params.next() else { break };
                params.push(Param {
                    ty: p.ty.clone(),
                    attrs: p.attrs.clone(),
                    memory: p.memory.clone(),
                    name,
                });
            }
        }
        Some(ir::Function {
            name,
            linkage: linkage_text(f.linkage),
            hidden: f.hidden,
            ret: lowered.ret,
            ret_attrs: lowered.ret_attrs,
            params,
            vararg: lowered.vararg,
            fn_attrs,
            comdat: f.linkage == Linkage::LinkOnceOdr,
            personality,
            blocks: Some(blocks),
        })
    }
}

/// Whether an op has the operands and results the emitter indexes: at least the least
/// counts of its row of the op table (the verifier checks them too; the emitter must not
/// panic on IR that skipped it).
fn arity_ok(kind: &OpKind, operands: usize, results: usize) -> bool {
    operands >= kind.operand_count().min && results >= kind.result_count().min
}

fn linkage_text(l: Linkage) -> &'static str {
    match l {
        Linkage::External => "",
        Linkage::Private => "private",
        Linkage::Internal => "internal",
        Linkage::LinkOnceOdr => "linkonce_odr",
        Linkage::Weak => "weak",
    }
}

/// A CIR type as text, for messages.
pub(crate) fn type_text(ctx: &ModuleCtx, t: Type) -> String {
    let mut out = Vec::new();
    let _ = ehir_core::printer::write_type(&mut out, ctx, t);
    String::from_utf8_lossy(&out).into_owned()
}
