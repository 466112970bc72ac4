//! CIR types and function signatures as LLVM sees them: named struct types for records
//! (unions as their most aligned member padded to size), `!cir.bool` as `i1`/`i8`, and the
//! lowering of each parameter and result of a `!cir.func` (direct, split into the eightbytes
//! of the x86-64 System V classification, `byval`, `sret`, or not passed at all).

use super::{ModuleEmitter, type_text};
use crate::ir;
use crate::ir::{MemoryAttr, NamedStruct, Param, Ty};
use crate::layout::size_align;
use crate::sysv::{self, Passing};
use ehir_core::{EntityRef, ModuleCtx, ParamAbi, RecordKind, Type, TypeData};
use std::collections::BTreeSet;

/// Calling-convention attributes for a parameter or return value of a C/C++ type.
pub(super) fn abi_attrs(ctx: &ModuleCtx, t: Type) -> ir::Attrs {
    match ctx.types.get(t) {
        TypeData::Bool => vec!["zeroext"],
        TypeData::Int { width, signed } if *width < 32 => {
            vec![if *signed { "signext" } else { "zeroext" }]
        }
        _ => vec![],
    }
}

/// One parameter of an LLVM signature.
#[derive(Clone, Debug)]
pub(super) struct LlvmParam {
    pub(super) ty: Ty,
    pub(super) attrs: ir::Attrs,
    pub(super) memory: Option<MemoryAttr>,
}

impl LlvmParam {
    pub(super) fn plain(ty: Ty, attrs: ir::Attrs) -> Self {
        LlvmParam {
            ty,
            attrs,
            memory: None,
        }
    }
}

/// How one CIR parameter of a function type becomes LLVM parameters.
#[derive(Clone, Debug)]
pub(super) enum ParamLowering {
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
pub(super) struct LoweredSig {
    pub(super) ret: Ty,
    pub(super) ret_attrs: ir::Attrs,
    pub(super) params: Vec<LlvmParam>,
    pub(super) vararg: bool,
    /// Per CIR parameter.
    pub(super) lowering: Vec<ParamLowering>,
}

impl<'m> ModuleEmitter<'m> {
    /// The named struct types: every declared record, then undeclared ones as opaque.
    pub(super) fn record_types(&mut self) -> Vec<NamedStruct> {
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
            // A packed union is laid out as any union (see `FieldPlacement`).
            let packed = r.kind != RecordKind::Union && self.ctx.packed_records.contains(&r.alias);
            out.push(NamedStruct { name, body, packed });
        }
        for i in 0..self.ctx.types.len() {
            let t = Type::new(i);
            if let TypeData::Record(alias) = self.ctx.types.get(t)
                && declared.insert(*alias)
            {
                out.push(NamedStruct {
                    name: self.name(*alias).to_string(),
                    body: None,
                    packed: false,
                });
            }
        }
        out
    }

    pub(super) fn record_body(&self, kind: RecordKind, fields: &[Type]) -> Result<Vec<Ty>, String> {
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
    pub(super) fn mem_ty(&self, t: Type) -> Result<Ty, String> {
        self.ty(t, true)
    }

    /// The LLVM type of a value of `t` in a register.
    pub(super) fn value_ty(&self, t: Type) -> Result<Ty, String> {
        self.ty(t, false)
    }

    pub(super) fn ty(&self, t: Type, memory: bool) -> Result<Ty, String> {
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
                TypeData::Ptr(_, 0) => Ty::Ptr,
                TypeData::Ptr(_, space) => Ty::PtrIn(*space),
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
    pub(super) fn by_value_ty(&self, t: Type) -> Result<Ty, String> {
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
    pub(super) fn signature(&self, sig: Type) -> Result<LoweredSig, String> {
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
    pub(super) fn declaration_params(sig: &LoweredSig) -> Vec<Param> {
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
}
