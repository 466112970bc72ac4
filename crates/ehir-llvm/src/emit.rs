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
//! - `cir.typeinfo` items emit nothing (the Microsoft RTTI is made on demand);
//! - calls of the C++ runtime under their Itanium names are redirected to msvcrt's
//!   (`_ZSt9terminatev` → `?terminate@@YAXXZ`, `_Znwm` → `??2@YAPEAX_K@Z`, ... see
//!   `ehir_core::abi::runtime::msvc_runtime_name`), `std::uncaught_exception` gets a
//!   small definition over msvcrt's `__uncaught_exception`, and `_fltused` is defined
//!   when the module uses floating point. The module's own symbols keep their (Itanium) names.
//!
//! Blocks that cannot be reached from the entry block are not emitted.

use crate::ir::{
    self, Arg, BasicBlock, CallTarget, Clause, FloatPredicate, Inst, IntPredicate, MemoryAttr,
    Operand, Param, Ty,
};
use crate::layout::size_align;
use crate::msvc_rtti::{self, MsRtti};
use crate::sysv::{self, Passing};
use crate::typeinfo;
pub use ehir_core::abi::EhAbi;
use ehir_core::abi::runtime::{
    self, MSVC_TERMINATE, MSVC_THROW, RuntimeType, msvc_runtime_name, runtime_function,
};
use ehir_core::analysis::{funclet_colors, reachable_blocks};
use ehir_core::printer::Names;
use ehir_core::{
    AttrData, BinaryOp, Block, CastKind, CmpPredicate, ConstArrayElements, Diagnostic, Diagnostics,
    EntityRef, ExtraData, Function, LandingPadClause, Linkage, Loc, Module, ModuleCtx, Op, OpKind,
    ParamAbi, Phase, RecordKind, SecondaryMap, Successor, Symbol, Type, TypeData, UnaryOp, Value,
};
use std::collections::{BTreeMap, BTreeSet};

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
                    out.functions.push(f);
                }
            }
            ehir_core::Item::Record(_) => {}
        }
    }
    if m.msvc {
        m.finish_msvc(&mut out);
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

/// Whether values of `t` are or contain floating-point numbers (through arrays, records
/// and function signatures, not through pointers).
fn type_has_float(ctx: &ModuleCtx, t: Type) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match ctx.types.get(t) {
            TypeData::Float | TypeData::Double => return true,
            TypeData::Array(e, _) => stack.push(*e),
            TypeData::Record(alias) => {
                if let Some(fields) = ctx.record(*alias).and_then(|r| r.fields.as_ref()) {
                    stack.extend(fields.iter().copied());
                }
            }
            TypeData::Func { params, ret, .. } => {
                stack.extend(params.iter().copied());
                stack.extend(ret.iter().copied());
            }
            _ => {}
        }
    }
    false
}

/// Calling-convention attributes for a parameter or return value of a C/C++ type.
fn abi_attrs(ctx: &ModuleCtx, t: Type) -> ir::Attrs {
    match ctx.types.get(t) {
        TypeData::Bool => vec!["zeroext"],
        TypeData::Int { width, signed } if *width < 32 => {
            vec![if *signed { "signext" } else { "zeroext" }]
        }
        _ => vec![],
    }
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
        RuntimeType::Ptr => Ty::Ptr,
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

/// One parameter of an LLVM signature.
#[derive(Clone, Debug)]
struct LlvmParam {
    ty: Ty,
    attrs: ir::Attrs,
    memory: Option<MemoryAttr>,
}

impl LlvmParam {
    fn plain(ty: Ty, attrs: ir::Attrs) -> Self {
        LlvmParam {
            ty,
            attrs,
            memory: None,
        }
    }
}

/// How one CIR parameter of a function type becomes LLVM parameters.
#[derive(Clone, Debug)]
enum ParamLowering {
    /// One LLVM parameter: the value itself, or for a class in memory the pointer
    /// (`byval` / `sret`).
    Direct,
    /// A `by_value` class in registers: one LLVM parameter per part (none for a class
    /// without data). The callee copies them into a local whose address is the CIR
    /// parameter; the caller loads them from the CIR argument.
    Parts { parts: Vec<sysv::Part> },
    /// A `by_value_result` slot of a class returned in registers: no LLVM parameter. The
    /// callee's slot is a local, returned as the parts (`ret void` without data); the
    /// caller stores the returned parts into the CIR argument.
    ResultParts { parts: Vec<sysv::Part> },
}

/// A `!cir.func` type as LLVM sees it (see [`ModuleEmitter::signature`]).
#[derive(Clone, Debug)]
struct LoweredSig {
    ret: Ty,
    ret_attrs: ir::Attrs,
    params: Vec<LlvmParam>,
    vararg: bool,
    /// Per CIR parameter.
    lowering: Vec<ParamLowering>,
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

    /// The module-level parts of the MSVC model: the RTTI tables, `__ImageBase`,
    /// `_fltused`, and `std::uncaught_exception`.
    fn finish_msvc(&mut self, out: &mut ir::Module) {
        let rtti = std::mem::take(&mut self.rtti);
        if !rtti.is_empty() {
            self.extern_global(msvc_rtti::IMAGE_BASE, Ty::i8(), true);
        }
        out.globals.extend(rtti.into_globals());
        // The Microsoft linker expects a definition of `_fltused` in any program that uses
        // floating point (the C runtime normally supplies it).
        let module = self.module;
        let has_float = |t: Type| type_has_float(self.ctx, t);
        let uses_float = module.globals.values().any(|g| has_float(g.ty))
            || module
                .functions
                .values()
                .any(|f| has_float(f.sig) || f.dfg.values.values().any(|v| has_float(v.ty)));
        let defines_fltused = self
            .ctx
            .symbols
            .lookup("_fltused")
            .is_some_and(|s| self.is_defined_symbol(s));
        if uses_float && !defines_fltused {
            // `weak`, not `linkonce_odr`: nothing in the IR refers to it (llc adds the
            // reference), so a discardable definition would be dropped by `opt`.
            out.globals.push(ir::Global {
                name: "_fltused".into(),
                linkage: "weak",
                constant: false,
                unnamed_addr: false,
                ty: Ty::i32(),
                init: Some(Operand::Int(0)),
                align: Some(4),
                comdat: true,
            });
        }
        if self.uses_uncaught_exception {
            // bool std::uncaught_exception() over msvcrt's int __uncaught_exception().
            let callee = self.runtime(runtime::MSVC_UNCAUGHT_EXCEPTION);
            out.functions.push(ir::Function {
                name: UNCAUGHT_EXCEPTION.into(),
                linkage: "linkonce_odr",
                ret: Ty::i1(),
                ret_attrs: vec!["zeroext"],
                params: vec![],
                vararg: false,
                fn_attrs: vec!["nounwind"],
                comdat: true,
                personality: None,
                blocks: Some(vec![BasicBlock {
                    label: "entry".into(),
                    insts: vec![
                        Inst::Call {
                            result: Some("count".into()),
                            target: CallTarget::simple(Ty::i32(), callee, vec![], vec![]),
                        },
                        Inst::ICmp {
                            result: "active".into(),
                            pred: IntPredicate::Ne,
                            ty: Ty::i32(),
                            lhs: Operand::Local("count".into()),
                            rhs: Operand::Int(0),
                        },
                        Inst::Ret(Some((Ty::i1(), Operand::Local("active".into())))),
                    ],
                }]),
            });
        }
    }

    fn error(&mut self, loc: Loc, message: impl Into<String>) {
        self.errors.push(Diagnostic::error(loc, message));
    }

    fn name(&self, s: Symbol) -> &'m str {
        self.ctx.name(s)
    }

    // ---- types ------------------------------------------------------------------------------

    /// The named struct types: every declared record, then undeclared ones as opaque.
    fn record_types(&mut self) -> Vec<(String, Option<Vec<Ty>>)> {
        let mut out = Vec::new();
        let mut declared = BTreeSet::new();
        for r in &self.ctx.records {
            declared.insert(r.alias);
            let name = self.name(r.alias).to_string();
            let body = match &r.fields {
                None => None,
                Some(fields) => match self.record_body(r.kind, fields) {
                    Ok(b) => Some(b),
                    Err(msg) => {
                        self.error(r.loc, msg);
                        None
                    }
                },
            };
            out.push((name, body));
        }
        for i in 0..self.ctx.types.len() {
            let t = Type::new(i);
            if let TypeData::Record(alias) = self.ctx.types.get(t)
                && declared.insert(*alias)
            {
                out.push((self.name(*alias).to_string(), None));
            }
        }
        out
    }

    fn record_body(&self, kind: RecordKind, fields: &[Type]) -> Result<Vec<Ty>, String> {
        if fields.is_empty() {
            // An empty class occupies one byte, as in C++.
            return Ok(vec![Ty::i8()]);
        }
        if kind != RecordKind::Union {
            return fields.iter().map(|&f| self.mem_ty(f)).collect();
        }
        // A union: its most aligned (then largest) member, padded to the union's size.
        let mut best: Option<(Type, u64, u64)> = None;
        let mut size = 0;
        let mut align = 1;
        for &f in fields {
            let (s, a) = size_align(self.ctx, f)?;
            size = size.max(s);
            align = align.max(a);
            if best.is_none_or(|(_, bs, ba)| a > ba || (a == ba && s > bs)) {
                best = Some((f, s, a));
            }
        }
        let size = size.next_multiple_of(align);
        let (member, member_size, _) = best.expect("non-empty union");
        let mut body = vec![self.mem_ty(member)?];
        if size > member_size {
            body.push(Ty::Array(size - member_size, Box::new(Ty::i8())));
        }
        Ok(body)
    }

    /// The LLVM type of a value of `t` in memory.
    fn mem_ty(&self, t: Type) -> Result<Ty, String> {
        self.ty(t, true)
    }

    /// The LLVM type of a value of `t` in a register.
    fn value_ty(&self, t: Type) -> Result<Ty, String> {
        self.ty(t, false)
    }

    fn ty(&self, t: Type, memory: bool) -> Result<Ty, String> {
        // Arrays nest; pointers do not recurse.
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || {
            Ok(match self.ctx.types.get(t) {
                TypeData::Int { width, .. } => Ty::Int(u32::from(*width)),
                TypeData::Bool => {
                    if memory {
                        Ty::i8()
                    } else {
                        Ty::i1()
                    }
                }
                TypeData::Float => Ty::Float,
                TypeData::Double => Ty::Double,
                TypeData::Void => Ty::Void,
                TypeData::Ptr(_) => Ty::Ptr,
                TypeData::Array(e, n) => Ty::Array(*n, Box::new(self.ty(*e, true)?)),
                TypeData::Record(alias) => Ty::Named(self.name(*alias).to_string()),
                TypeData::Func { .. } => {
                    return Err("a function type is not a value type".into());
                }
                TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken if self.msvc => {
                    Ty::Token
                }
                TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken => {
                    return Err(format!(
                        "{} has no LLVM equivalent; run eh-abi-lowering first",
                        type_text(self.ctx, t)
                    ));
                }
            })
        })
    }

    /// The register type of a value passed or returned by value: its size must be known.
    fn by_value_ty(&self, t: Type) -> Result<Ty, String> {
        if let TypeData::Record(_) | TypeData::Array(..) = self.ctx.types.get(t) {
            size_align(self.ctx, t).map_err(|m| {
                format!("{} cannot be passed by value: {m}", type_text(self.ctx, t))
            })?;
        }
        self.value_ty(t)
    }

    /// The LLVM signature of a `!cir.func` type: return type and attributes, parameters,
    /// varargs, and how each CIR parameter maps to them. On the Itanium ABI (x86-64
    /// System V) `by_value` and `by_value_result` parameters follow the C calling
    /// convention ([`crate::sysv`]); the Microsoft path keeps every class by address.
    fn signature(&self, sig: Type) -> Result<LoweredSig, String> {
        let types = &self.ctx.types;
        let (params, ret, vararg) = types
            .func_info(sig)
            .ok_or_else(|| format!("{} is not a function type", type_text(self.ctx, sig)))?;
        if let Some(msg) = types.func_abi_error(sig) {
            return Err(msg);
        }
        let (mut ret_ty, ret_attrs) = match ret {
            None => (Ty::Void, vec![]),
            Some(r) if matches!(types.get(r), TypeData::Void) => (Ty::Void, vec![]),
            Some(r) => (self.by_value_ty(r)?, abi_attrs(self.ctx, r)),
        };
        let mut out = LoweredSig {
            ret: Ty::Void,
            ret_attrs,
            params: Vec::with_capacity(params.len()),
            vararg,
            lowering: Vec::with_capacity(params.len()),
        };
        // Registers left for arguments (rdi, rsi, rdx, rcx, r8, r9; xmm0-7): a class that
        // does not fit entirely goes to memory (psABI 3.2.3: no argument is split).
        let (mut free_int, mut free_sse) = (6u32, 8u32);
        for (i, &p) in params.iter().enumerate() {
            let mark = if self.msvc {
                ParamAbi::Default
            } else {
                types.param_abi(sig, i)
            };
            let record = || {
                types
                    .pointee(p)
                    .ok_or_else(|| format!("parameter #{i} is not a pointer to a record"))
            };
            let lowering = match mark {
                ParamAbi::Default => {
                    let ty = self.by_value_ty(p)?;
                    match &ty {
                        Ty::Float | Ty::Double => free_sse = free_sse.saturating_sub(1),
                        Ty::Int(w) if *w > 64 => {
                            // Two registers or none (the stack).
                            free_int = if free_int >= 2 {
                                free_int - 2
                            } else {
                                free_int
                            };
                        }
                        Ty::Int(_) | Ty::Ptr => free_int = free_int.saturating_sub(1),
                        _ => {}
                    }
                    out.params
                        .push(LlvmParam::plain(ty, abi_attrs(self.ctx, p)));
                    ParamLowering::Direct
                }
                ParamAbi::ByValueResult => {
                    let record = record()?;
                    match sysv::classify(self.ctx, record)
                        .map_err(|m| format!("parameter #{i}: {m}"))?
                    {
                        Passing::Ignore => ParamLowering::ResultParts { parts: vec![] },
                        Passing::Registers(parts) => {
                            ret_ty = match parts.as_slice() {
                                [one] => one.ty.clone(),
                                _ => Ty::Struct(parts.iter().map(|p| p.ty.clone()).collect()),
                            };
                            ParamLowering::ResultParts { parts }
                        }
                        Passing::Memory { align } => {
                            free_int = free_int.saturating_sub(1);
                            out.params.push(LlvmParam {
                                ty: Ty::Ptr,
                                attrs: vec![],
                                memory: Some(MemoryAttr::Sret {
                                    ty: self.mem_ty(record)?,
                                    align,
                                }),
                            });
                            ParamLowering::Direct
                        }
                    }
                }
                ParamAbi::ByValue => {
                    let record = record()?;
                    let passing = sysv::classify(self.ctx, record)
                        .map_err(|m| format!("parameter #{i}: {m}"))?;
                    let (need_int, need_sse) = passing.registers_needed();
                    match passing {
                        Passing::Ignore => ParamLowering::Parts { parts: vec![] },
                        Passing::Registers(parts)
                            if need_int <= free_int && need_sse <= free_sse =>
                        {
                            free_int -= need_int;
                            free_sse -= need_sse;
                            for part in &parts {
                                out.params.push(LlvmParam::plain(part.ty.clone(), vec![]));
                            }
                            ParamLowering::Parts { parts }
                        }
                        Passing::Registers(_) | Passing::Memory { .. } => {
                            // clang: byval with at least eightbyte alignment.
                            let (_, align) = size_align(self.ctx, record)?;
                            out.params.push(LlvmParam {
                                ty: Ty::Ptr,
                                attrs: vec![],
                                memory: Some(MemoryAttr::ByVal {
                                    ty: self.mem_ty(record)?,
                                    align: align.max(8),
                                }),
                            });
                            ParamLowering::Direct
                        }
                    }
                }
            };
            out.lowering.push(lowering);
        }
        out.ret = ret_ty;
        Ok(out)
    }

    /// LLVM parameters of a declaration.
    fn declaration_params(sig: &LoweredSig) -> Vec<Param> {
        sig.params
            .iter()
            .map(|p| Param {
                ty: p.ty.clone(),
                attrs: p.attrs.clone(),
                memory: p.memory.clone(),
                name: String::new(),
            })
            .collect()
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

    /// A reference to a function symbol; declares it from `sig` when the module does not.
    /// Whether the module defines (not just declares) function `s`.
    fn has_function_body(&self, s: Symbol) -> bool {
        self.module
            .function_by_name(s)
            .is_some_and(|f| self.module.functions[f].body.is_some())
    }

    /// Whether a declaration of `name` is left out of the module because calls go
    /// elsewhere on this ABI (see [`ModuleEmitter::msvc_redirect`]).
    fn is_redirected(&self, name: &str) -> bool {
        self.msvc && (name == UNCAUGHT_EXCEPTION || msvc_runtime_name(name).is_some())
    }

    /// MSVC: a C++ runtime function the module calls by its Itanium name but does not
    /// define goes to msvcrt's export, declared with `sig` (`std::uncaught_exception` is
    /// defined by the module; see [`ModuleEmitter::finish_msvc`]).
    fn msvc_redirect(&mut self, s: Symbol, sig: Type, loc: Loc) -> Option<Operand> {
        let name = self.name(s);
        if !self.is_redirected(name) || self.has_function_body(s) {
            return None;
        }
        if name == UNCAUGHT_EXCEPTION {
            self.uses_uncaught_exception = true;
            return Some(Operand::Global(name.to_string()));
        }
        let ms = msvc_runtime_name(name)?;
        if runtime_decl(ms).is_some() {
            return Some(self.runtime(ms));
        }
        if !self.extern_functions.contains_key(ms) {
            self.declare_with_signature(ms, name, sig, loc);
        }
        Some(Operand::Global(ms.to_string()))
    }

    /// MSVC: a function defined elsewhere whose signature passes or returns a class by
    /// value. This path passes such classes by address (as everywhere in CIR), which is
    /// consistent among ehir's objects but not what the Microsoft x64 convention does, so
    /// a call to code built by another compiler would silently disagree.
    fn check_msvc_external(&mut self, name: &str, sig: Type, loc: Loc) {
        if !self.msvc {
            return;
        }
        let abi = self.ctx.types.func_abi(sig);
        if let Some(i) = abi.iter().position(|a| *a != ParamAbi::Default) {
            let what = if abi[i] == ParamAbi::ByValueResult {
                "returns a class by value"
            } else {
                "passes a class by value"
            };
            self.error(
                loc,
                format!(
                    "unsupported: @{name} is not defined in this module and {what} (parameter #{i}); LLVM IR for the msvc ABI passes such classes by address, not as the Microsoft x64 calling convention does"
                ),
            );
        }
    }

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
        let source = self.mem_ty(self.module.globals[g].ty)?;
        let mut idx = vec![(Ty::i32(), Operand::Int(0))];
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
            self.constant_inner(a, ty, memory, loc)
        })
    }

    fn constant_inner(
        &mut self,
        a: ehir_core::Attr,
        ty: Type,
        memory: bool,
        loc: Loc,
    ) -> Result<Operand, String> {
        let ctx = self.ctx;
        let tdata = ctx.types.get(ty).clone();
        Ok(match ctx.attrs.get(a).clone() {
            AttrData::Int { value, .. } => match tdata {
                TypeData::Int { width, .. } => Operand::Int(int_repr(value, width)),
                TypeData::Bool if memory => Operand::Int(i128::from(value != 0)),
                TypeData::Bool => Operand::Bool(value != 0),
                TypeData::Ptr(_) if value == 0 => Operand::Null,
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
            AttrData::GlobalView {
                symbol, indices, ..
            } => self.global_view(symbol, &indices, loc)?,
            AttrData::Str(bytes) => self.byte_array(&bytes, ty)?,
            AttrData::ConstArray { elements, .. } => match elements {
                ConstArrayElements::Bytes(bytes) => self.byte_array(&bytes, ty)?,
                ConstArrayElements::Attrs(items) => self.aggregate(&items, ty, loc)?,
            },
            AttrData::Zero(_) => Operand::Zero,
            AttrData::Undef(_) => Operand::Undef,
            AttrData::List(items) => self.aggregate(&items, ty, loc)?,
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
                Ok(Operand::Struct(out))
            }
            _ => Err(format!(
                "a list cannot initialize {}",
                type_text(self.ctx, ty)
            )),
        }
    }

    // ---- globals and functions -------------------------------------------------------------------

    fn global(&mut self, g: &ehir_core::Global) -> Option<ir::Global> {
        let name = self.name(g.name).to_string();
        let ty = match self.mem_ty(g.ty) {
            Ok(t) => t,
            Err(msg) => {
                self.error(g.loc, format!("global @{name}: {msg}"));
                return None;
            }
        };
        let init = match g.init {
            None => None,
            Some(a) => match self.constant(a, g.ty, true, g.loc) {
                Ok(c) => Some(c),
                Err(msg) => {
                    self.error(g.loc, format!("global @{name}: {msg}"));
                    return None;
                }
            },
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
        let lowered = match self.signature(f.sig) {
            Ok(s) => s,
            Err(msg) => {
                self.error(f.loc, format!("function @{name}: {msg}"));
                return None;
            }
        };
        let mut fn_attrs: ir::Attrs = Vec::new();
        if f.nothrow {
            fn_attrs.push("nounwind");
        }
        if f.body.is_none() && self.is_redirected(&name) {
            return None;
        }
        if f.body.is_none() {
            self.check_msvc_external(&name, f.sig, f.loc);
            return Some(ir::Function {
                name,
                linkage: "",
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

/// A class a call returns in registers: the CIR `by_value_result` argument it goes to.
struct ReturnedClass {
    slot: Operand,
    parts: Vec<sysv::Part>,
    align: u64,
}

/// Emits the body of one function.
struct FunctionEmitter<'a, 'm> {
    m: &'a mut ModuleEmitter<'m>,
    func: &'m Function,
    names: Names,
    /// Values that are another value under a new type (no-op casts).
    alias: BTreeMap<Value, Value>,
    /// Values that are constants (`cir.const`, `cir.get_global`).
    constants: BTreeMap<Value, Operand>,
    reachable: SecondaryMap<Block, bool>,
    blocks: Vec<BasicBlock>,
    /// Trampoline blocks to append after the current block.
    pending: Vec<BasicBlock>,
    /// Phi inputs per target block: (arguments, predecessor label).
    incoming: BTreeMap<Block, Vec<(Vec<Operand>, String)>>,
    allocas: Vec<Inst>,
    temp: u32,
    unreachable_label: Option<String>,
    /// The label of the block whose instructions are being emitted.
    current_label: String,
    /// MSVC: the pad (a `cir.catchpad` or `cir.cleanuppad` result) of the funclet each
    /// block belongs to; `None` for the function's own code.
    funclet_of: BTreeMap<Block, Option<Value>>,
    /// The local name of the current block's funclet pad.
    current_funclet: Option<String>,
    /// How the function's own CIR parameters arrive (see [`ModuleEmitter::signature`]).
    lowering: Vec<ParamLowering>,
    /// A class result returned in registers: the local slot (the CIR `by_value_result`
    /// parameter), its parts and the slot's alignment. `cir.return` returns its parts.
    result_slot: Option<(Operand, Vec<sysv::Part>, u64)>,
}

/// The alignment of the address `offset` bytes into an object aligned to `align`.
fn offset_align(align: u64, offset: u64) -> u64 {
    if offset == 0 {
        align
    } else {
        align.min(1 << offset.trailing_zeros())
    }
}

impl<'a, 'm> FunctionEmitter<'a, 'm> {
    fn new(m: &'a mut ModuleEmitter<'m>, func: &'m Function, lowering: Vec<ParamLowering>) -> Self {
        FunctionEmitter {
            m,
            func,
            names: Names::new(func),
            alias: BTreeMap::new(),
            constants: BTreeMap::new(),
            reachable: SecondaryMap::new(),
            blocks: Vec::new(),
            pending: Vec::new(),
            incoming: BTreeMap::new(),
            allocas: Vec::new(),
            temp: 0,
            unreachable_label: None,
            current_label: String::new(),
            funclet_of: BTreeMap::new(),
            current_funclet: None,
            lowering,
            result_slot: None,
        }
    }

    /// `base` advanced by `offset` bytes: the operand and the `getelementptr` that makes
    /// it (none for offset 0).
    fn byte_offset(&mut self, base: &Operand, offset: u64) -> (Operand, Option<Inst>) {
        if offset == 0 {
            return (base.clone(), None);
        }
        let name = self.fresh("part.addr");
        let gep = Inst::Gep {
            result: name.clone(),
            source: Ty::i8(),
            base: base.clone(),
            indices: vec![(Ty::i64(), Operand::Int(i128::from(offset)))],
            inbounds: true,
        };
        (Operand::Local(name), Some(gep))
    }

    /// Loads the register parts of a class from `ptr`: the instructions and the values.
    fn load_parts(
        &mut self,
        ptr: &Operand,
        parts: &[sysv::Part],
        align: u64,
    ) -> (Vec<Inst>, Vec<Operand>) {
        let mut insts = Vec::new();
        let mut values = Vec::new();
        for part in parts {
            let (addr, gep) = self.byte_offset(ptr, part.offset);
            insts.extend(gep);
            let name = self.fresh("part");
            insts.push(Inst::Load {
                result: name.clone(),
                ty: part.ty.clone(),
                ptr: addr,
                align: offset_align(align, part.offset) as u32,
                volatile: false,
            });
            values.push(Operand::Local(name));
        }
        (insts, values)
    }

    /// Stores the register parts of a class (`values`, one per part) to `ptr`.
    fn store_parts(
        &mut self,
        ptr: &Operand,
        parts: &[sysv::Part],
        values: Vec<Operand>,
        align: u64,
    ) -> Vec<Inst> {
        let mut insts = Vec::new();
        for (part, value) in parts.iter().zip(values) {
            let (addr, gep) = self.byte_offset(ptr, part.offset);
            insts.extend(gep);
            insts.push(Inst::Store {
                ty: part.ty.clone(),
                value,
                ptr: addr,
                align: offset_align(align, part.offset) as u32,
                volatile: false,
            });
        }
        insts
    }

    /// The record a `by_value` / `by_value_result` pointer points to: its LLVM type and
    /// alignment.
    fn pointee_record(&mut self, ptr_ty: Type) -> Option<(Ty, u64)> {
        let ctx = self.ctx();
        let record = ctx.types.pointee(ptr_ty)?;
        let ty = self.m.mem_ty(record).ok()?;
        let (_, align) = size_align(ctx, record).ok()?;
        Some((ty, align))
    }

    /// Allocas for the CIR parameters that arrive in registers (named like the
    /// parameters, whose uses are their addresses) and the stores that fill them from the
    /// LLVM parameters; sets [`FunctionEmitter::result_slot`].
    fn parameter_prologue(&mut self, params: &[Value], names: &[String]) -> Vec<Inst> {
        let mut prologue = Vec::new();
        let lowering = self.lowering.clone();
        for (i, lowering) in lowering.iter().enumerate() {
            let (parts, is_result) = match lowering {
                ParamLowering::Direct => continue,
                ParamLowering::Parts { parts } => (parts, false),
                ParamLowering::ResultParts { parts } => (parts, true),
            };
            let (Some(&p), Some(name)) = (params.get(i), names.get(i)) else {
                continue;
            };
            let Some((ty, align)) = self.pointee_record(self.vty(p)) else {
                self.m.error(
                    self.func.loc,
                    format!("parameter #{i} is not a pointer to a complete record"),
                );
                continue;
            };
            self.allocas.push(Inst::Alloca {
                result: name.clone(),
                ty,
                align: align as u32,
            });
            let slot = Operand::Local(name.clone());
            if is_result {
                self.result_slot = Some((slot, parts.clone(), align));
            } else {
                let values = (0..parts.len())
                    .map(|k| Operand::Local(format!("{name}.coerce{k}")))
                    .collect();
                prologue.extend(self.store_parts(&slot, parts, values, align));
            }
        }
        prologue
    }

    fn ctx(&self) -> &'m ModuleCtx {
        self.m.ctx
    }

    fn error(&mut self, op: Op, message: impl Into<String>) {
        let loc = self.func.dfg.loc(op);
        let loc = if loc == Loc::NONE { self.func.loc } else { loc };
        self.m.error(loc, message);
    }

    fn value_name(&self, v: Value) -> String {
        let n = self.names.value(v);
        let n = n.trim_start_matches('%');
        if n.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v{n}")
        } else {
            n.to_string()
        }
    }

    fn block_label(&self, b: Block) -> String {
        self.names.block(b).trim_start_matches('^').to_string()
    }

    fn fresh(&mut self, hint: &str) -> String {
        let n = self.temp;
        self.temp += 1;
        format!("{hint}.{n}")
    }

    /// The operand for a value, looking through aliases and constants.
    fn operand(&self, v: Value) -> Operand {
        let mut v = v;
        let mut steps = 0;
        while let Some(&src) = self.alias.get(&v) {
            v = src;
            steps += 1;
            if steps > self.alias.len() {
                break;
            }
        }
        match self.constants.get(&v) {
            Some(c) => c.clone(),
            None => Operand::Local(self.value_name(v)),
        }
    }

    fn vty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    fn value_ty(&mut self, op: Op, t: Type) -> Option<Ty> {
        match self.m.value_ty(t) {
            Ok(t) => Some(t),
            Err(msg) => {
                self.error(op, msg);
                None
            }
        }
    }

    fn mem_ty(&mut self, op: Op, t: Type) -> Option<Ty> {
        match self.m.mem_ty(t) {
            Ok(t) => Some(t),
            Err(msg) => {
                self.error(op, msg);
                None
            }
        }
    }

    fn emit(&mut self, mut inst: Inst) {
        if let Some(pad) = &self.current_funclet
            && let Inst::Call { target, .. } | Inst::Invoke { target, .. } = &mut inst
            && target.funclet.is_none()
        {
            target.funclet = Some(pad.clone());
        }
        self.blocks
            .last_mut()
            .expect("a block is open")
            .insts
            .push(inst);
    }

    fn is_bool(&self, t: Type) -> bool {
        matches!(self.ctx().types.get(t), TypeData::Bool)
    }

    fn int_info(&self, t: Type) -> Option<(u16, bool)> {
        self.ctx().types.int_info(t)
    }

    /// Returns the emitted blocks and the parameter names of the function.
    fn run(&mut self) -> (Vec<BasicBlock>, Vec<String>) {
        let func = self.func;
        let entry = func.entry_block().expect("a definition has an entry block");
        self.reachable = reachable_blocks(func, entry);
        if self.m.msvc {
            self.note_funclets();
        }
        let param_values: Vec<Value> = func.dfg.block_params(entry).to_vec();
        let param_names: Vec<String> = param_values.iter().map(|&p| self.value_name(p)).collect();
        let prologue = self.parameter_prologue(&param_values, &param_names);
        let body = func.body.expect("definition");
        let blocks: Vec<Block> = func
            .layout
            .blocks(body)
            .filter(|&b| self.reachable[b])
            .collect();
        // Pass 1: values that need no instruction.
        for &b in &blocks {
            for op in func.layout.ops(b) {
                self.classify(op);
            }
        }
        // An entry block that is also a branch target gets a separate LLVM entry block.
        let entry_is_target = blocks.iter().any(|&b| {
            func.layout
                .last_op(b)
                .is_some_and(|t| func.dfg.successor_blocks(t).any(|s| s == entry))
        });
        if entry_is_target {
            if !func.dfg.block_params(entry).is_empty() {
                self.m.error(
                    func.loc,
                    "a branch to the entry block of a function with parameters cannot be emitted",
                );
            }
            self.blocks.push(BasicBlock {
                label: "entry".into(),
                insts: vec![Inst::Br(self.block_label(entry))],
            });
        }
        for &b in &blocks {
            self.current_label = self.block_label(b);
            self.current_funclet = self
                .funclet_of
                .get(&b)
                .copied()
                .flatten()
                .map(|pad| self.value_name(pad));
            self.blocks.push(BasicBlock {
                label: self.current_label.clone(),
                insts: Vec::new(),
            });
            for op in func.layout.ops(b) {
                self.op(op);
            }
            let pending = std::mem::take(&mut self.pending);
            self.blocks.extend(pending);
        }
        if let Some(l) = self.unreachable_label.clone() {
            self.blocks.push(BasicBlock {
                label: l,
                insts: vec![Inst::Unreachable],
            });
        }
        self.insert_phis(&blocks, entry);
        let mut entry_insts = std::mem::take(&mut self.allocas);
        entry_insts.extend(prologue);
        let first = &mut self.blocks[0].insts;
        first.splice(0..0, entry_insts);
        (std::mem::take(&mut self.blocks), param_names)
    }

    /// Notes the funclet of every reachable block (from [`funclet_colors`], LLVM's
    /// `colorEHFunclets`) as the token of the pad that begins it. A block reached from two
    /// funclets is an error (eh-abi-lowering=msvc clones such blocks).
    fn note_funclets(&mut self) {
        let func = self.func;
        let colors = funclet_colors(func);
        let Some(body) = func.body else {
            return;
        };
        for block in func.layout.blocks(body) {
            let Some(&color) = colors[block].first() else {
                continue;
            };
            if colors[block].len() > 1 {
                let label = self.block_label(block);
                let message = format!(
                    "block ^{label} belongs to two funclets; run eh-abi-lowering=msvc, which clones such blocks"
                );
                match func.layout.first_op(block) {
                    Some(op) => self.error(op, message),
                    None => self.m.error(func.loc, message),
                }
            }
            let token = color.and_then(|pad| func.dfg.results(pad).first().copied());
            self.funclet_of.insert(block, token);
        }
    }

    fn insert_phis(&mut self, blocks: &[Block], entry: Block) {
        let func = self.func;
        let index: BTreeMap<String, usize> = self
            .blocks
            .iter()
            .enumerate()
            .map(|(i, bb)| (bb.label.clone(), i))
            .collect();
        for &b in blocks {
            if b == entry {
                continue;
            }
            let params = func.dfg.block_params(b);
            if params.is_empty() {
                continue;
            }
            let label = self.block_label(b);
            let incoming = self.incoming.remove(&b).unwrap_or_default();
            let mut phis = Vec::new();
            for (i, &p) in params.iter().enumerate() {
                let Ok(ty) = self.m.value_ty(self.vty(p)) else {
                    self.m.error(
                        func.loc,
                        format!(
                            "block {} parameter {}: {}",
                            label,
                            i,
                            self.m.value_ty(self.vty(p)).err().unwrap_or_default()
                        ),
                    );
                    continue;
                };
                phis.push(Inst::Phi {
                    result: self.value_name(p),
                    ty,
                    incoming: incoming
                        .iter()
                        .map(|(args, from)| {
                            (args.get(i).cloned().unwrap_or(Operand::Undef), from.clone())
                        })
                        .collect(),
                });
            }
            if let Some(&i) = index.get(&label) {
                self.blocks[i].insts.splice(0..0, phis);
            }
        }
    }

    /// Records values that need no instruction of their own.
    fn classify(&mut self, op: Op) {
        let dfg = &self.func.dfg;
        let results = dfg.results(op);
        let operands = dfg.operands(op);
        if !arity_ok(dfg.kind(op), operands.len(), results.len()) {
            return;
        }
        match *dfg.kind(op) {
            OpKind::Const { value } => {
                let r = results[0];
                let loc = dfg.loc(op);
                match self.m.constant(value, dfg.value_type(r), false, loc) {
                    Ok(c) => {
                        self.constants.insert(r, c);
                    }
                    Err(msg) => self.error(op, msg),
                }
            }
            OpKind::GetGlobal { symbol } => {
                let r = results[0];
                let pointee = self.ctx().types.pointee(dfg.value_type(r));
                let loc = dfg.loc(op);
                let function = self.m.module.function_by_name(symbol);
                let redirected = function.and_then(|f| {
                    let sig = self.m.module.functions[f].sig;
                    self.m.msvc_redirect(symbol, sig, loc)
                });
                let o = if let Some(o) = redirected {
                    o
                } else if function.is_some() {
                    Operand::Global(self.m.name(symbol).to_string())
                } else {
                    self.m.global_ref(symbol, pointee, loc)
                };
                self.constants.insert(r, o);
            }
            OpKind::Cast(kind) => {
                let (Some(&src), Some(&r)) = (operands.first(), results.first()) else {
                    return;
                };
                if self.cast_is_noop(kind, dfg.value_type(src), dfg.value_type(r)) {
                    self.alias.insert(r, src);
                } else if kind == CastKind::NullToPtr {
                    self.constants.insert(r, Operand::Null);
                }
            }
            OpKind::Unary(UnaryOp::Plus) => {
                if let (Some(&src), Some(&r)) = (operands.first(), results.first()) {
                    self.alias.insert(r, src);
                }
            }
            OpKind::GetMember { .. } => {
                if let (Some(&src), Some(&r)) = (operands.first(), results.first()) {
                    let record = self.ctx().types.pointee(dfg.value_type(src));
                    let is_union = record.is_some_and(|t| match self.ctx().types.get(t) {
                        TypeData::Record(a) => self
                            .ctx()
                            .record(*a)
                            .is_some_and(|d| d.kind == RecordKind::Union),
                        _ => false,
                    });
                    if is_union {
                        self.alias.insert(r, src);
                    }
                }
            }
            OpKind::BaseClassAddr { offset: 0, .. }
            | OpKind::DerivedClassAddr { offset: 0, .. } => {
                if let (Some(&src), Some(&r)) = (operands.first(), results.first()) {
                    self.alias.insert(r, src);
                }
            }
            _ => {}
        }
    }

    fn cast_is_noop(&self, kind: CastKind, from: Type, to: Type) -> bool {
        let types = &self.ctx().types;
        match kind {
            CastKind::ArrayToPtrDecay => true,
            CastKind::Bitcast => {
                (types.is_ptr(from) && types.is_ptr(to))
                    || self.m.value_ty(from).ok() == self.m.value_ty(to).ok()
            }
            CastKind::Integral => match (types.int_info(from), types.int_info(to)) {
                (Some((a, _)), Some((b, _))) => a == b,
                _ => false,
            },
            CastKind::Floating => types.get(from) == types.get(to),
            _ => false,
        }
    }

    // ---- edges ---------------------------------------------------------------------------------------

    /// Labels to branch to for each successor edge of `op`, recording phi inputs. An edge to
    /// a block with parameters that the same terminator targets more than once goes through
    /// a trampoline block of its own, so each phi input has a distinct predecessor.
    fn edge_labels(&mut self, op: Op) -> Vec<String> {
        let dfg = &self.func.dfg;
        let succs: Vec<Successor> = dfg.successors(op).to_vec();
        let targets: Vec<Block> = succs.iter().map(|&s| dfg.successor_block(s)).collect();
        let mut labels = Vec::with_capacity(succs.len());
        for (i, &s) in succs.iter().enumerate() {
            let target = targets[i];
            let args: Vec<Operand> = dfg
                .successor_args(s)
                .iter()
                .map(|&a| self.operand(a))
                .collect();
            let has_params = !dfg.block_params(target).is_empty();
            let duplicate = targets.iter().filter(|&&t| t == target).count() > 1;
            if has_params && duplicate {
                let label = format!("{}.edge{}", self.current_label, i);
                self.pending.push(BasicBlock {
                    label: label.clone(),
                    insts: vec![Inst::Br(self.block_label(target))],
                });
                self.incoming
                    .entry(target)
                    .or_default()
                    .push((args, label.clone()));
                labels.push(label);
            } else {
                if has_params {
                    let from = self.current_label.clone();
                    self.incoming.entry(target).or_default().push((args, from));
                }
                labels.push(self.block_label(target));
            }
        }
        labels
    }

    fn unreachable_block(&mut self) -> String {
        self.unreachable_label
            .get_or_insert_with(|| "unreachable".to_string())
            .clone()
    }

    // ---- ops -------------------------------------------------------------------------------------------

    fn op(&mut self, op: Op) {
        let dfg = &self.func.dfg;
        let kind = *dfg.kind(op);
        let operands: Vec<Value> = dfg.operands(op).to_vec();
        let results: Vec<Value> = dfg.results(op).to_vec();
        if !arity_ok(&kind, operands.len(), results.len()) {
            self.error(
                op,
                format!(
                    "malformed {}: {} operands and {} results",
                    kind.name(),
                    operands.len(),
                    results.len()
                ),
            );
            return;
        }
        match kind {
            // Values without instructions (see `classify`).
            OpKind::Const { .. } | OpKind::GetGlobal { .. } => {}
            OpKind::Cast(_)
            | OpKind::Unary(UnaryOp::Plus)
            | OpKind::GetMember { .. }
            | OpKind::BaseClassAddr { .. }
            | OpKind::DerivedClassAddr { .. }
                if results.first().is_some_and(|r| {
                    self.alias.contains_key(r) || self.constants.contains_key(r)
                }) => {}
            OpKind::Return if self.result_slot.is_some() && operands.is_empty() => {
                let Some((slot, parts, align)) = self.result_slot.clone() else {
                    return;
                };
                let (loads, values) = self.load_parts(&slot, &parts, align);
                for inst in loads {
                    self.emit(inst);
                }
                let ret = match (parts.as_slice(), values.as_slice()) {
                    ([], _) => None,
                    ([part], [value]) => Some((part.ty.clone(), value.clone())),
                    _ => {
                        let ty = Ty::Struct(parts.iter().map(|p| p.ty.clone()).collect());
                        let mut aggregate = Operand::Undef;
                        for (k, (part, value)) in parts.iter().zip(values).enumerate() {
                            let name = self.fresh("ret");
                            self.emit(Inst::InsertValue {
                                result: name.clone(),
                                ty: ty.clone(),
                                aggregate,
                                element_ty: part.ty.clone(),
                                element: value,
                                index: k as u32,
                            });
                            aggregate = Operand::Local(name);
                        }
                        Some((ty, aggregate))
                    }
                };
                self.emit(Inst::Ret(ret));
            }
            OpKind::Return => {
                let ret = match operands.first() {
                    None => None,
                    Some(&v) => {
                        let Some(t) = self.value_ty(op, self.vty(v)) else {
                            return;
                        };
                        Some((t, self.operand(v)))
                    }
                };
                self.emit(Inst::Ret(ret));
            }
            OpKind::Alloca {
                alloc_ty, align, ..
            } => {
                let Some(ty) = self.mem_ty(op, alloc_ty) else {
                    return;
                };
                if let Err(msg) = size_align(self.ctx(), alloc_ty) {
                    self.error(
                        op,
                        format!("cannot allocate {}: {msg}", type_text(self.ctx(), alloc_ty)),
                    );
                    return;
                }
                let result = self.value_name(results[0]);
                self.allocas.push(Inst::Alloca {
                    result,
                    ty,
                    align: u32::from(align),
                });
            }
            OpKind::Load { align, volatile } => {
                let r = results[0];
                let rt = self.vty(r);
                let Some(ty) = self.mem_ty(op, rt) else {
                    return;
                };
                let ptr = self.operand(operands[0]);
                let name = self.value_name(r);
                if self.is_bool(rt) {
                    let raw = self.fresh(&name);
                    self.emit(Inst::Load {
                        result: raw.clone(),
                        ty: Ty::i8(),
                        ptr,
                        align: u32::from(align),
                        volatile,
                    });
                    self.emit(Inst::Cast {
                        result: name,
                        op: "trunc",
                        from: Ty::i8(),
                        value: Operand::Local(raw),
                        to: Ty::i1(),
                    });
                } else {
                    self.emit(Inst::Load {
                        result: name,
                        ty,
                        ptr,
                        align: u32::from(align),
                        volatile,
                    });
                }
            }
            OpKind::Store { align, volatile } => {
                let v = operands[0];
                let vt = self.vty(v);
                let Some(ty) = self.mem_ty(op, vt) else {
                    return;
                };
                let mut value = self.operand(v);
                if self.is_bool(vt) {
                    let t = self.fresh("frombool");
                    self.emit(Inst::Cast {
                        result: t.clone(),
                        op: "zext",
                        from: Ty::i1(),
                        value,
                        to: Ty::i8(),
                    });
                    value = Operand::Local(t);
                }
                let ptr = self.operand(operands[1]);
                self.emit(Inst::Store {
                    ty,
                    value,
                    ptr,
                    align: u32::from(align),
                    volatile,
                });
            }
            OpKind::Call { callee, sig, flags } => {
                let Some((target, returned)) =
                    self.call_target(op, callee.expand(), sig, &operands, flags.nothrow)
                else {
                    return;
                };
                match returned {
                    None => {
                        let result = results.first().map(|&r| self.value_name(r));
                        self.emit(Inst::Call { result, target });
                    }
                    Some(returned) => {
                        let result = self.fresh("call");
                        self.emit(Inst::Call {
                            result: Some(result.clone()),
                            target,
                        });
                        for inst in self.store_returned(&returned, &result) {
                            self.emit(inst);
                        }
                    }
                }
            }
            OpKind::TryCall { callee, sig, flags } => {
                let Some((target, returned)) =
                    self.call_target(op, callee.expand(), sig, &operands, flags.nothrow)
                else {
                    return;
                };
                let labels = self.edge_labels(op);
                if labels.len() != 2 {
                    self.error(op, "cir.try_call needs a normal and an unwind destination");
                    return;
                }
                let Some(returned) = returned else {
                    let result = results.first().map(|&r| self.value_name(r));
                    self.emit(Inst::Invoke {
                        result,
                        target,
                        normal: labels[0].clone(),
                        unwind: labels[1].clone(),
                    });
                    return;
                };
                // The class result is stored on the normal edge, in a block of its own that
                // becomes the normal destination's predecessor.
                let result = self.fresh("call");
                let stores = self.store_returned(&returned, &result);
                let label = format!("{}.ret", result);
                self.emit(Inst::Invoke {
                    result: Some(result),
                    target,
                    normal: label.clone(),
                    unwind: labels[1].clone(),
                });
                let normal = self.func.dfg.successors(op).first().copied();
                if let Some(target_block) = normal.map(|s| self.func.dfg.successor_block(s))
                    && let Some(incoming) = self.incoming.get_mut(&target_block)
                    && let Some(entry) = incoming
                        .iter_mut()
                        .rev()
                        .find(|(_, from)| *from == self.current_label)
                {
                    entry.1 = label.clone();
                }
                let mut insts = stores;
                insts.push(Inst::Br(labels[0].clone()));
                self.pending.push(BasicBlock { label, insts });
            }
            OpKind::Binary(b) => self.binary(op, b, &operands, results[0]),
            OpKind::Unary(u) => self.unary(op, u, operands[0], results[0]),
            OpKind::Cmp(p) => self.cmp(op, p, &operands, results[0]),
            OpKind::Cast(k) => self.cast(op, k, operands[0], results[0]),
            OpKind::Select => {
                let r = results[0];
                let Some(ty) = self.value_ty(op, self.vty(r)) else {
                    return;
                };
                let inst = Inst::Select {
                    result: self.value_name(r),
                    cond: self.operand(operands[0]),
                    ty,
                    if_true: self.operand(operands[1]),
                    if_false: self.operand(operands[2]),
                };
                self.emit(inst);
            }
            OpKind::PtrStride => {
                let r = results[0];
                let Some(pointee) = self.ctx().types.pointee(self.vty(r)) else {
                    self.error(op, "cir.ptr_stride must produce a pointer");
                    return;
                };
                // Arithmetic on `void *` steps by bytes (the GNU rule).
                let source = match self.ctx().types.get(pointee) {
                    TypeData::Void => Ty::i8(),
                    _ => match self.mem_ty(op, pointee) {
                        Some(t) => t,
                        None => return,
                    },
                };
                let index = self.index_i64(op, operands[1]);
                let inst = Inst::Gep {
                    result: self.value_name(r),
                    source,
                    base: self.operand(operands[0]),
                    indices: vec![(Ty::i64(), index)],
                    inbounds: false,
                };
                self.emit(inst);
            }
            OpKind::GetMember { index, .. } => {
                let r = results[0];
                let Some(record) = self.ctx().types.pointee(self.vty(operands[0])) else {
                    self.error(op, "cir.get_member needs a pointer to a record");
                    return;
                };
                let Some(source) = self.mem_ty(op, record) else {
                    return;
                };
                let inst = Inst::Gep {
                    result: self.value_name(r),
                    source,
                    base: self.operand(operands[0]),
                    indices: vec![
                        (Ty::i32(), Operand::Int(0)),
                        (Ty::i32(), Operand::Int(i128::from(index))),
                    ],
                    inbounds: true,
                };
                self.emit(inst);
            }
            OpKind::BaseClassAddr { offset, nonnull } => {
                self.class_addr(operands[0], results[0], i128::from(offset), nonnull)
            }
            OpKind::DerivedClassAddr { offset, nonnull } => {
                self.class_addr(operands[0], results[0], -i128::from(offset), nonnull)
            }
            OpKind::AllocException { size } if self.m.msvc => {
                // The exception object lives in the throwing frame (see the module docs).
                let result = self.value_name(results[0]);
                self.allocas.push(Inst::Alloca {
                    result,
                    ty: Ty::Array(size.max(1), Box::new(Ty::i8())),
                    align: 16,
                });
            }
            // The object lives in the throwing frame: nothing to release.
            OpKind::FreeException if self.m.msvc => {}
            OpKind::Throw { type_info, dtor } if self.m.msvc => {
                self.msvc_throw(op, &operands, type_info.expand(), dtor.expand())
            }
            OpKind::EhTerminate if self.m.msvc => {
                let callee = self.m.runtime(MSVC_TERMINATE);
                self.emit(Inst::Call {
                    result: None,
                    target: CallTarget::simple(
                        Ty::Void,
                        callee,
                        vec![],
                        vec!["noreturn", "nounwind"],
                    ),
                });
                self.emit(Inst::Unreachable);
            }
            OpKind::CatchSwitch { unwind_to_caller } if self.m.msvc => {
                let labels = self.edge_labels(op);
                let handler_count = if unwind_to_caller {
                    labels.len()
                } else {
                    labels.len().saturating_sub(1)
                };
                if handler_count == 0 {
                    self.error(op, "cir.catchswitch needs at least one handler");
                    return;
                }
                let parent = self.within_operand(&operands);
                let inst = Inst::CatchSwitch {
                    result: self.value_name(results[0]),
                    parent,
                    handlers: labels[..handler_count].to_vec(),
                    unwind: labels.get(handler_count).cloned(),
                };
                self.emit(inst);
            }
            OpKind::CatchPad {
                type_desc,
                adjectives,
                has_slot,
            } if self.m.msvc => {
                let mut adjectives = adjectives;
                let descriptor = match type_desc.expand() {
                    None => Operand::Null,
                    Some(s) => {
                        let name = self.m.name(s).to_string();
                        match self.m.rtti.catch_descriptor(&name) {
                            Some((descriptor, qualifiers)) => {
                                adjectives |= qualifiers;
                                Operand::Global(descriptor)
                            }
                            None => {
                                let loc = self.func.dfg.loc(op);
                                self.m.global_ref(s, None, loc)
                            }
                        }
                    }
                };
                let slot = match (has_slot, operands.get(1)) {
                    (true, Some(&v)) => self.operand(v),
                    _ => Operand::Null,
                };
                let inst = Inst::CatchPad {
                    result: self.value_name(results[0]),
                    parent: self.operand(operands[0]),
                    args: vec![
                        (Ty::Ptr, descriptor),
                        (Ty::i32(), Operand::Int(i128::from(adjectives))),
                        (Ty::Ptr, slot),
                    ],
                };
                self.emit(inst);
            }
            OpKind::CatchRet if self.m.msvc => {
                let labels = self.edge_labels(op);
                let Some(target) = labels.first().cloned() else {
                    self.error(op, "cir.catchret needs a destination");
                    return;
                };
                let pad = self.operand(operands[0]);
                self.emit(Inst::CatchRet { pad, target });
            }
            OpKind::CleanupPad if self.m.msvc => {
                let parent = self.within_operand(&operands);
                let inst = Inst::CleanupPad {
                    result: self.value_name(results[0]),
                    parent,
                    args: vec![],
                };
                self.emit(inst);
            }
            OpKind::CleanupRet if self.m.msvc => {
                let labels = self.edge_labels(op);
                let pad = self.operand(operands[0]);
                self.emit(Inst::CleanupRet {
                    pad,
                    unwind: labels.first().cloned(),
                });
            }
            OpKind::AllocException { size } => {
                let callee = self.m.runtime("__cxa_allocate_exception");
                let result = self.value_name(results[0]);
                self.emit(Inst::Call {
                    result: Some(result),
                    target: CallTarget::simple(
                        Ty::Ptr,
                        callee,
                        vec![Arg::plain(Ty::i64(), Operand::Int(i128::from(size)))],
                        vec![],
                    ),
                });
            }
            // Lifetime markers are optional hints to LLVM; none are emitted.
            OpKind::LifetimeStart | OpKind::LifetimeEnd => {}
            OpKind::FreeException => {
                let callee = self.m.runtime("__cxa_free_exception");
                let object = self.operand(operands[0]);
                self.emit(Inst::Call {
                    result: None,
                    target: CallTarget::simple(
                        Ty::Void,
                        callee,
                        vec![Arg::plain(Ty::Ptr, object)],
                        vec![],
                    ),
                });
            }
            OpKind::Throw { type_info, dtor } => {
                self.throw(op, &operands, type_info.expand(), dtor.expand())
            }
            OpKind::Unreachable => self.emit(Inst::Unreachable),
            OpKind::Br => {
                let labels = self.edge_labels(op);
                match labels.first() {
                    Some(l) => self.emit(Inst::Br(l.clone())),
                    None => self.error(op, "cir.br without a destination"),
                }
            }
            OpKind::BrCond => {
                let labels = self.edge_labels(op);
                if labels.len() != 2 {
                    self.error(op, "cir.brcond needs two destinations");
                    return;
                }
                let cond = self.operand(operands[0]);
                self.emit(Inst::CondBr {
                    cond,
                    if_true: labels[0].clone(),
                    if_false: labels[1].clone(),
                });
            }
            OpKind::SwitchFlat { cases } => {
                let values: Vec<i128> = match self.func.dfg.extra(cases) {
                    ExtraData::Cases(v) => v.clone(),
                    _ => Vec::new(),
                };
                let v = operands[0];
                let vt = self.vty(v);
                let Some(ty) = self.value_ty(op, vt) else {
                    return;
                };
                let width = self.int_info(vt).map(|(w, _)| w).unwrap_or(1);
                let labels = self.edge_labels(op);
                if labels.len() != values.len() + 1 {
                    self.error(
                        op,
                        "cir.switch.flat has a destination count that does not match its cases",
                    );
                    return;
                }
                let value = self.operand(v);
                self.emit(Inst::Switch {
                    ty,
                    value,
                    default: labels[0].clone(),
                    cases: values
                        .iter()
                        .map(|&c| int_repr(c, width))
                        .zip(labels[1..].iter().cloned())
                        .collect(),
                });
            }
            OpKind::EhLandingPad { cleanup, clauses } => {
                let clauses: Vec<LandingPadClause> = match self.func.dfg.extra(clauses) {
                    ExtraData::LandingPadClauses(c) => c.clone(),
                    _ => Vec::new(),
                };
                let clauses: Vec<Clause> = clauses
                    .iter()
                    .map(|c| match c {
                        LandingPadClause::Catch(None) => Clause::Catch(Operand::Null),
                        LandingPadClause::Catch(Some(s)) => Clause::Catch(self.m.typeinfo_ref(*s)),
                        LandingPadClause::Filter(list) => {
                            Clause::Filter(list.iter().map(|&s| self.m.typeinfo_ref(s)).collect())
                        }
                    })
                    .collect();
                let cleanup = cleanup || clauses.is_empty();
                if results.len() != 2 {
                    self.error(op, "cir.eh.landingpad must have two results");
                    return;
                }
                let lp = self.fresh("lpad");
                self.emit(Inst::LandingPad {
                    result: lp.clone(),
                    cleanup,
                    clauses,
                });
                for (i, &r) in results.iter().enumerate() {
                    let inst = Inst::ExtractValue {
                        result: self.value_name(r),
                        ty: Ty::landing_pad(),
                        aggregate: Operand::Local(lp.clone()),
                        index: i as u32,
                    };
                    self.emit(inst);
                }
            }
            OpKind::EhTypeId { type_info } => {
                let ti = self.m.typeinfo_ref(type_info);
                let callee = self.m.runtime("llvm.eh.typeid.for.p0");
                let result = self.value_name(results[0]);
                self.emit(Inst::Call {
                    result: Some(result),
                    target: CallTarget::simple(
                        Ty::i32(),
                        callee,
                        vec![Arg::plain(Ty::Ptr, ti)],
                        vec![],
                    ),
                });
            }
            OpKind::ResumeFlat => {
                if operands.len() != 2 {
                    self.error(
                        op,
                        "cir.resume.flat needs the exception pointer and the selector",
                    );
                    return;
                }
                let a = self.fresh("resume");
                let b = self.fresh("resume");
                let exn = self.operand(operands[0]);
                let sel = self.operand(operands[1]);
                self.emit(Inst::InsertValue {
                    result: a.clone(),
                    ty: Ty::landing_pad(),
                    aggregate: Operand::Poison,
                    element_ty: Ty::Ptr,
                    element: exn,
                    index: 0,
                });
                self.emit(Inst::InsertValue {
                    result: b.clone(),
                    ty: Ty::landing_pad(),
                    aggregate: Operand::Local(a),
                    element_ty: Ty::i32(),
                    element: sel,
                    index: 1,
                });
                self.emit(Inst::Resume {
                    ty: Ty::landing_pad(),
                    value: Operand::Local(b),
                });
            }
            OpKind::EhTerminate => {
                if let Some(&exn) = operands.first() {
                    if !self.ctx().types.is_ptr(self.vty(exn)) {
                        self.error(op, "cir.eh.terminate takes an exception token here; run eh-abi-lowering=itanium first");
                        return;
                    }
                    let callee = self.m.runtime("__cxa_begin_catch");
                    let value = self.operand(exn);
                    self.emit(Inst::Call {
                        result: None,
                        target: CallTarget::simple(
                            Ty::Ptr,
                            callee,
                            vec![Arg::plain(Ty::Ptr, value)],
                            vec!["nounwind"],
                        ),
                    });
                }
                let callee = self.m.runtime("_ZSt9terminatev");
                self.emit(Inst::Call {
                    result: None,
                    target: CallTarget::simple(Ty::Void, callee, vec![], vec!["nounwind"]),
                });
                self.emit(Inst::Unreachable);
            }
            OpKind::Resume => self.error(
                op,
                "cir.resume cannot be emitted as LLVM IR; run eh-abi-lowering=itanium first",
            ),
            OpKind::IndirectBr | OpKind::BlockAddress { .. } => {
                self.error(op, format!("{} is not supported by emit-llvm", kind.name()))
            }
            _ => {
                let phase = match kind.phases() {
                    ehir_core::PhaseSet::Structured => {
                        "run flatten-cfg and eh-abi-lowering=itanium first"
                    }
                    ehir_core::PhaseSet::Flat => "run eh-abi-lowering=itanium first",
                    ehir_core::PhaseSet::Msvc => "it belongs to the msvc phase",
                    _ => "it has no LLVM lowering",
                };
                self.error(
                    op,
                    format!("{} cannot be emitted as LLVM IR: {phase}", kind.name()),
                );
            }
        }
    }

    /// The callee and arguments of a call, after emitting the loads of the classes it
    /// passes in registers; also the class result it returns in registers, which the
    /// caller stores with [`FunctionEmitter::store_returned`].
    fn call_target(
        &mut self,
        op: Op,
        callee: Option<Symbol>,
        sig: Type,
        operands: &[Value],
        nothrow: bool,
    ) -> Option<(CallTarget, Option<ReturnedClass>)> {
        let loc = self.func.dfg.loc(op);
        let (callee_operand, args) = match callee {
            Some(s) => (self.m.function_ref(s, sig, loc), operands),
            None => match operands.split_first() {
                Some((&f, rest)) => (self.operand(f), rest),
                None => {
                    self.error(op, "an indirect call needs a callee operand");
                    return None;
                }
            },
        };
        let lowered = match self.m.signature(sig) {
            Ok(s) => s,
            Err(msg) => {
                self.error(op, msg);
                return None;
            }
        };
        let mut call_args = Vec::with_capacity(lowered.params.len());
        let mut llvm_params = lowered.params.iter();
        let mut returned = None;
        for (i, &a) in args.iter().enumerate() {
            let at = self.vty(a);
            let value = self.operand(a);
            match lowered.lowering.get(i) {
                None => {
                    // A variadic argument.
                    let ty = self.value_ty(op, at)?;
                    call_args.push(Arg {
                        ty,
                        attrs: abi_attrs(self.ctx(), at),
                        memory: None,
                        value,
                    });
                }
                Some(ParamLowering::Direct) => {
                    let ty = self.value_ty(op, at)?;
                    let (attrs, memory) = match llvm_params.next() {
                        Some(p) => (p.attrs.clone(), p.memory.clone()),
                        None => (abi_attrs(self.ctx(), at), None),
                    };
                    call_args.push(Arg {
                        ty,
                        attrs,
                        memory,
                        value,
                    });
                }
                Some(ParamLowering::Parts { parts }) => {
                    let Some((_, align)) = self.pointee_record(at) else {
                        self.error(
                            op,
                            format!("argument #{i} is not a pointer to a complete record"),
                        );
                        return None;
                    };
                    let (loads, values) = self.load_parts(&value, parts, align);
                    for inst in loads {
                        self.emit(inst);
                    }
                    for (part, v) in parts.iter().zip(values) {
                        llvm_params.next();
                        call_args.push(Arg {
                            ty: part.ty.clone(),
                            attrs: vec![],
                            memory: None,
                            value: v,
                        });
                    }
                }
                Some(ParamLowering::ResultParts { parts }) => {
                    let Some((_, align)) = self.pointee_record(at) else {
                        self.error(
                            op,
                            format!("argument #{i} is not a pointer to a complete record"),
                        );
                        return None;
                    };
                    returned = Some(ReturnedClass {
                        slot: value,
                        parts: parts.clone(),
                        align,
                    });
                }
            }
        }
        let vararg_params = lowered
            .vararg
            .then(|| lowered.params.iter().map(|p| p.ty.clone()).collect());
        // A class without data comes back as `void`: nothing to store.
        let returned = returned.filter(|r| !r.parts.is_empty());
        Some((
            CallTarget {
                ret: lowered.ret,
                ret_attrs: lowered.ret_attrs,
                vararg_params,
                callee: callee_operand,
                args: call_args,
                fn_attrs: if nothrow { vec!["nounwind"] } else { vec![] },
                funclet: None,
            },
            returned,
        ))
    }

    /// Stores a class result returned in registers (the call's value `result`) into the
    /// slot the CIR call passed.
    fn store_returned(&mut self, r: &ReturnedClass, result: &str) -> Vec<Inst> {
        let mut insts = Vec::new();
        let values = match r.parts.as_slice() {
            [_] => vec![Operand::Local(result.to_string())],
            _ => {
                let ty = Ty::Struct(r.parts.iter().map(|p| p.ty.clone()).collect());
                let mut values = Vec::new();
                for k in 0..r.parts.len() {
                    let name = self.fresh("ret.part");
                    insts.push(Inst::ExtractValue {
                        result: name.clone(),
                        ty: ty.clone(),
                        aggregate: Operand::Local(result.to_string()),
                        index: k as u32,
                    });
                    values.push(Operand::Local(name));
                }
                values
            }
        };
        insts.extend(self.store_parts(&r.slot, &r.parts, values, r.align));
        insts
    }

    /// An integer index widened to `i64` (zero-extended when unsigned).
    fn index_i64(&mut self, op: Op, v: Value) -> Operand {
        let t = self.vty(v);
        let o = self.operand(v);
        match self.int_info(t) {
            Some((64, _)) => o,
            Some((w, signed)) => {
                let name = self.fresh("idx");
                let from = Ty::Int(u32::from(w));
                let cast = if w > 64 {
                    "trunc"
                } else if signed {
                    "sext"
                } else {
                    "zext"
                };
                self.emit(Inst::Cast {
                    result: name.clone(),
                    op: cast,
                    from,
                    value: o,
                    to: Ty::i64(),
                });
                Operand::Local(name)
            }
            None => {
                self.error(op, "a pointer stride must be an integer");
                o
            }
        }
    }

    fn class_addr(&mut self, src: Value, result: Value, offset: i128, nonnull: bool) {
        let name = self.value_name(result);
        let base = self.operand(src);
        let gep_name = if nonnull {
            name.clone()
        } else {
            self.fresh(&name)
        };
        self.emit(Inst::Gep {
            result: gep_name.clone(),
            source: Ty::i8(),
            base: base.clone(),
            indices: vec![(Ty::i64(), Operand::Int(offset))],
            inbounds: true,
        });
        if !nonnull {
            let is_null = self.fresh(&name);
            self.emit(Inst::ICmp {
                result: is_null.clone(),
                pred: IntPredicate::Eq,
                ty: Ty::Ptr,
                lhs: base,
                rhs: Operand::Null,
            });
            self.emit(Inst::Select {
                result: name,
                cond: Operand::Local(is_null),
                ty: Ty::Ptr,
                if_true: Operand::Null,
                if_false: Operand::Local(gep_name),
            });
        }
    }

    /// The `within` operand of a pad: its parent pad token, or `none`.
    fn within_operand(&self, operands: &[Value]) -> Operand {
        match operands.first() {
            Some(&p) => self.operand(p),
            None => Operand::NoneToken,
        }
    }

    /// `cir.throw` on the Microsoft ABI: `_CxxThrowException(obj, ThrowInfo)`, or
    /// `_CxxThrowException(null, null)` to rethrow; an `invoke` when it has an unwind
    /// destination.
    fn msvc_throw(
        &mut self,
        op: Op,
        operands: &[Value],
        type_info: Option<Symbol>,
        dtor: Option<Symbol>,
    ) {
        let args = match operands.first() {
            None => vec![Operand::Null, Operand::Null],
            Some(&obj) => {
                let Some(ti) = type_info else {
                    self.error(op, "cir.throw of an object needs its typeinfo");
                    return;
                };
                let Some(thrown) = self.ctx().types.pointee(self.vty(obj)) else {
                    self.error(op, "cir.throw needs a pointer to the exception object");
                    return;
                };
                let dtor_name = dtor.map(|d| {
                    let name = self.m.name(d).to_string();
                    if !self.m.is_defined_symbol(d) {
                        self.m.declare_function(&name, Ty::Void, vec![Ty::Ptr]);
                    }
                    name
                });
                let module = self.m.module;
                let throw_info =
                    match self
                        .m
                        .rtti
                        .throw_info(module, ti, thrown, dtor_name.as_deref())
                    {
                        Ok(t) => t,
                        Err(msg) => {
                            self.error(op, msg);
                            return;
                        }
                    };
                vec![self.operand(obj), Operand::Global(throw_info)]
            }
        };
        let callee = self.m.runtime(MSVC_THROW);
        self.emit_throw_call(op, callee, args);
    }

    /// The call of a throwing runtime function with pointer arguments: a `call` followed by
    /// `unreachable`, or an `invoke` when `op` has an unwind destination.
    fn emit_throw_call(&mut self, op: Op, callee: Operand, args: Vec<Operand>) {
        let args = args.into_iter().map(|a| Arg::plain(Ty::Ptr, a)).collect();
        let target = CallTarget::simple(Ty::Void, callee, args, vec![]);
        if self.func.dfg.successors(op).is_empty() {
            self.emit(Inst::Call {
                result: None,
                target,
            });
            self.emit(Inst::Unreachable);
        } else {
            let labels = self.edge_labels(op);
            let normal = self.unreachable_block();
            self.emit(Inst::Invoke {
                result: None,
                target,
                normal,
                unwind: labels[0].clone(),
            });
        }
    }

    fn throw(
        &mut self,
        op: Op,
        operands: &[Value],
        type_info: Option<Symbol>,
        dtor: Option<Symbol>,
    ) {
        let (callee, args) = match operands.first() {
            None => (self.m.runtime("__cxa_rethrow"), vec![]),
            Some(&obj) => {
                let Some(ti) = type_info else {
                    self.error(op, "cir.throw of an object needs its typeinfo");
                    return;
                };
                let ti = self.m.typeinfo_ref(ti);
                // The destructor's address is passed as `void (*)(void *)`; an undeclared
                // one is declared that way.
                let dtor = match dtor {
                    None => Operand::Null,
                    Some(d) if self.m.is_defined_symbol(d) => {
                        Operand::Global(self.m.name(d).to_string())
                    }
                    Some(d) => {
                        let name = self.m.name(d).to_string();
                        self.m.declare_function(&name, Ty::Void, vec![Ty::Ptr]);
                        Operand::Global(name)
                    }
                };
                let callee = self.m.runtime("__cxa_throw");
                (callee, vec![self.operand(obj), ti, dtor])
            }
        };
        self.emit_throw_call(op, callee, args);
    }

    fn binary(&mut self, op: Op, b: BinaryOp, operands: &[Value], r: Value) {
        let t = self.vty(r);
        let Some(ty) = self.value_ty(op, t) else {
            return;
        };
        let types = &self.ctx().types;
        let float = types.is_float(t);
        let signed = types.int_info(t).is_some_and(|(_, s)| s);
        let is_int = types.is_int(t) || self.is_bool(t);
        if !float && !is_int {
            self.error(
                op,
                format!("cir.binop on {} is not supported", type_text(self.ctx(), t)),
            );
            return;
        }
        let by_sign = |signed_op, unsigned_op| if signed { signed_op } else { unsigned_op };
        let opcode = match (b, float) {
            (BinaryOp::Add, false) => "add",
            (BinaryOp::Add, true) => "fadd",
            (BinaryOp::Sub, false) => "sub",
            (BinaryOp::Sub, true) => "fsub",
            (BinaryOp::Mul, false) => "mul",
            (BinaryOp::Mul, true) => "fmul",
            (BinaryOp::Div, true) => "fdiv",
            (BinaryOp::Div, false) => by_sign("sdiv", "udiv"),
            (BinaryOp::Rem, true) => "frem",
            (BinaryOp::Rem, false) => by_sign("srem", "urem"),
            (BinaryOp::And, false) => "and",
            (BinaryOp::Or, false) => "or",
            (BinaryOp::Xor, false) => "xor",
            (BinaryOp::Shl, false) => "shl",
            (BinaryOp::Shr, false) => by_sign("ashr", "lshr"),
            (k, true) => {
                self.error(op, format!("cir.binop({}) on a float", k.name()));
                return;
            }
        };
        let inst = Inst::Binary {
            result: self.value_name(r),
            op: opcode,
            ty,
            lhs: self.operand(operands[0]),
            rhs: self.operand(operands[1]),
        };
        self.emit(inst);
    }

    fn unary(&mut self, op: Op, u: UnaryOp, v: Value, r: Value) {
        let t = self.vty(r);
        let Some(ty) = self.value_ty(op, t) else {
            return;
        };
        let float = self.ctx().types.is_float(t);
        let is_bool = self.is_bool(t);
        let result = self.value_name(r);
        let x = self.operand(v);
        let one = if float {
            Operand::Float(1.0f64.to_bits())
        } else {
            Operand::Int(1)
        };
        let inst = match u {
            UnaryOp::Plus => unreachable!("classified as an alias"),
            UnaryOp::Inc | UnaryOp::Dec if is_bool => {
                self.error(op, "increment of a bool is not supported");
                return;
            }
            UnaryOp::Inc => Inst::Binary {
                result,
                op: if float { "fadd" } else { "add" },
                ty,
                lhs: x,
                rhs: one,
            },
            UnaryOp::Dec => Inst::Binary {
                result,
                op: if float { "fsub" } else { "sub" },
                ty,
                lhs: x,
                rhs: one,
            },
            UnaryOp::Minus if float => Inst::FNeg {
                result,
                ty,
                value: x,
            },
            UnaryOp::Minus => Inst::Binary {
                result,
                op: "sub",
                ty,
                lhs: Operand::Int(0),
                rhs: x,
            },
            UnaryOp::Not if float => {
                self.error(op, "cir.unary(not) on a float");
                return;
            }
            UnaryOp::Not => Inst::Binary {
                result,
                op: "xor",
                ty,
                lhs: x,
                rhs: if is_bool {
                    Operand::Bool(true)
                } else {
                    Operand::Int(-1)
                },
            },
        };
        self.emit(inst);
    }

    fn cmp(&mut self, op: Op, p: CmpPredicate, operands: &[Value], r: Value) {
        let t = self.vty(operands[0]);
        let Some(ty) = self.value_ty(op, t) else {
            return;
        };
        let types = &self.ctx().types;
        let result = self.value_name(r);
        let lhs = self.operand(operands[0]);
        let rhs = self.operand(operands[1]);
        if types.is_float(t) {
            let pred = match p {
                CmpPredicate::Eq => FloatPredicate::Oeq,
                CmpPredicate::Ne => FloatPredicate::Une,
                CmpPredicate::Lt => FloatPredicate::Olt,
                CmpPredicate::Le => FloatPredicate::Ole,
                CmpPredicate::Gt => FloatPredicate::Ogt,
                CmpPredicate::Ge => FloatPredicate::Oge,
            };
            self.emit(Inst::FCmp {
                result,
                pred,
                ty,
                lhs,
                rhs,
            });
            return;
        }
        let signed = types.int_info(t).is_some_and(|(_, s)| s);
        let pred = match (p, signed) {
            (CmpPredicate::Eq, _) => IntPredicate::Eq,
            (CmpPredicate::Ne, _) => IntPredicate::Ne,
            (CmpPredicate::Lt, true) => IntPredicate::Slt,
            (CmpPredicate::Le, true) => IntPredicate::Sle,
            (CmpPredicate::Gt, true) => IntPredicate::Sgt,
            (CmpPredicate::Ge, true) => IntPredicate::Sge,
            (CmpPredicate::Lt, false) => IntPredicate::Ult,
            (CmpPredicate::Le, false) => IntPredicate::Ule,
            (CmpPredicate::Gt, false) => IntPredicate::Ugt,
            (CmpPredicate::Ge, false) => IntPredicate::Uge,
        };
        self.emit(Inst::ICmp {
            result,
            pred,
            ty,
            lhs,
            rhs,
        });
    }

    fn cast(&mut self, op: Op, k: CastKind, v: Value, r: Value) {
        let from_t = self.vty(v);
        let to_t = self.vty(r);
        let Some(from) = self.value_ty(op, from_t) else {
            return;
        };
        let Some(to) = self.value_ty(op, to_t) else {
            return;
        };
        let result = self.value_name(r);
        let value = self.operand(v);
        let types = &self.ctx().types;
        let from_signed = types.int_info(from_t).is_some_and(|(_, s)| s);
        let to_signed = types.int_info(to_t).is_some_and(|(_, s)| s);
        let int_width = |t: &Ty| match t {
            Ty::Int(w) => *w,
            _ => 0,
        };
        let opcode = match k {
            CastKind::IntToBool | CastKind::PtrToBool => {
                let zero = if k == CastKind::PtrToBool {
                    Operand::Null
                } else {
                    Operand::Int(0)
                };
                self.emit(Inst::ICmp {
                    result,
                    pred: IntPredicate::Ne,
                    ty: from,
                    lhs: value,
                    rhs: zero,
                });
                return;
            }
            CastKind::FloatToBool => {
                self.emit(Inst::FCmp {
                    result,
                    pred: FloatPredicate::Une,
                    ty: from,
                    lhs: value,
                    rhs: Operand::Float(0f64.to_bits()),
                });
                return;
            }
            CastKind::BoolToInt => "zext",
            CastKind::Integral => {
                let (a, b) = (int_width(&from), int_width(&to));
                if a > b {
                    "trunc"
                } else if from_signed {
                    "sext"
                } else {
                    "zext"
                }
            }
            CastKind::FloatToInt => {
                if to_signed {
                    "fptosi"
                } else {
                    "fptoui"
                }
            }
            CastKind::IntToFloat => {
                if from_signed {
                    "sitofp"
                } else {
                    "uitofp"
                }
            }
            CastKind::BoolToFloat => "uitofp",
            CastKind::Floating => match (&from, &to) {
                (Ty::Float, Ty::Double) => "fpext",
                _ => "fptrunc",
            },
            CastKind::PtrToInt => "ptrtoint",
            CastKind::IntToPtr => "inttoptr",
            CastKind::Bitcast => "bitcast",
            CastKind::ArrayToPtrDecay | CastKind::NullToPtr => {
                unreachable!("classified as an alias or a constant")
            }
        };
        self.emit(Inst::Cast {
            result,
            op: opcode,
            from,
            value,
            to,
        });
    }
}
