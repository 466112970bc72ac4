//! The Microsoft model: funclets (which pad each block belongs to, for the `"funclet"`
//! bundles), the pad instructions, `_CxxThrowException`, the exception object in the
//! throwing frame, and the module-level parts (RTTI tables, `_fltused`, msvcrt
//! redirections of runtime functions, `std::uncaught_exception`).

use super::function::FunctionEmitter;
use super::ops::EmittedOp;
use super::{ModuleEmitter, UNCAUGHT_EXCEPTION, runtime_decl};
use crate::ir::{BasicBlock, CallTarget, Inst, IntPredicate, Operand, Ty};
use crate::{ir, msvc_rtti};
use ehir_core::abi::runtime::{self, MSVC_TERMINATE, MSVC_THROW, msvc_runtime_name};
use ehir_core::analysis::funclet_colors;
use ehir_core::{Loc, ModuleCtx, Op, OpKind, ParamAbi, Symbol, Type, TypeData, Value};
use std::collections::BTreeSet;

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

impl<'m> ModuleEmitter<'m> {
    /// The module-level parts of the MSVC model: the RTTI tables, `__ImageBase`,
    /// `_fltused`, and `std::uncaught_exception`.
    pub(super) fn finish_msvc(&mut self, out: &mut ir::Module) {
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
                hidden: false,
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
                        Inst::Cmp {
                            result: "active".into(),
                            pred: IntPredicate::Ne.into(),
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

    /// MSVC: whether `g` declares (without defining) a Microsoft RTTI object the RTTI
    /// tables define — a TypeDescriptor or a Complete Object Locator; an object of an
    /// unknown class is reported.
    pub(super) fn is_msvc_rtti_declaration(&mut self, g: &ehir_core::Global) -> bool {
        let name = self.name(g.name);
        // A Complete Object Locator's initializer gives its vftable pointer's offset.
        if !self.msvc || (g.init.is_some() && !name.starts_with("??_R4")) {
            return false;
        }
        match self.rtti.declared_object(self.module, name) {
            Ok(defined) => defined,
            Err(msg) => {
                self.error(g.loc, format!("global @{name}: {msg}"));
                true
            }
        }
    }

    /// Whether a declaration of `name` is left out of the module because calls go
    /// elsewhere on this ABI (see [`ModuleEmitter::msvc_redirect`]).
    pub(super) fn is_redirected(&self, name: &str) -> bool {
        self.msvc && (name == UNCAUGHT_EXCEPTION || msvc_runtime_name(name).is_some())
    }

    /// MSVC: a C++ runtime function the module calls by its Itanium name but does not
    /// define goes to msvcrt's export, declared with `sig` (`std::uncaught_exception` is
    /// defined by the module; see [`ModuleEmitter::finish_msvc`]).
    pub(super) fn msvc_redirect(&mut self, s: Symbol, sig: Type, loc: Loc) -> Option<Operand> {
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
    pub(super) fn check_msvc_external(&mut self, name: &str, sig: Type, loc: Loc) {
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
}

impl<'a, 'm> FunctionEmitter<'a, 'm> {
    /// Notes the funclet of every reachable block (from [`funclet_colors`], LLVM's
    /// `colorEHFunclets`) as the token of the pad that begins it. A block reached from two
    /// funclets is an error (eh-abi-lowering=msvc clones such blocks).
    pub(super) fn note_funclets(&mut self) {
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
                    None => self.module_emitter.error(func.loc, message),
                }
            }
            let token = color.and_then(|pad| func.dfg.results(pad).first().copied());
            self.funclet_of.insert(block, token);
        }
    }

    /// The EH ops of the Microsoft model (see the module docs).
    pub(super) fn msvc_eh_op(&mut self, emitted: EmittedOp<'_>) {
        let (op, kind, operands, results) = emitted.parts();
        match kind {
            OpKind::AllocException { size } => {
                // The exception object lives in the throwing frame (see the module docs).
                let result = self.value_name(results[0]);
                self.allocas.push(Inst::Alloca {
                    result,
                    ty: Ty::Array(size.max(1), Box::new(Ty::i8())),
                    align: 16,
                });
            }
            // The object lives in the throwing frame: nothing to release.
            OpKind::FreeException => {}
            OpKind::Throw { type_info, dtor } => {
                self.msvc_throw(op, operands, type_info.expand(), dtor.expand())
            }
            OpKind::EhTerminate => {
                self.call_runtime(
                    MSVC_TERMINATE,
                    Ty::Void,
                    vec![],
                    vec!["noreturn", "nounwind"],
                );
                self.emit(Inst::Unreachable);
            }
            OpKind::CatchSwitch { .. } => {
                let labels = self.edge_labels(op);
                let handler_count = self.func.dfg.catchswitch_edges(op).0.len();
                if handler_count == 0 {
                    self.error(op, "cir.catchswitch needs at least one handler");
                    return;
                }
                let parent = self.within_operand(operands);
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
            } => {
                let mut adjectives = adjectives;
                let descriptor = match type_desc.expand() {
                    None => Operand::Null,
                    Some(s) => {
                        let name = self.module_emitter.name(s).to_string();
                        match self.module_emitter.rtti.catch_descriptor(&name) {
                            Some((descriptor, qualifiers)) => {
                                adjectives |= qualifiers;
                                Operand::Global(descriptor)
                            }
                            None => {
                                let loc = self.func.dfg.loc(op);
                                self.module_emitter.global_ref(s, None, loc)
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
            OpKind::CatchRet => {
                let labels = self.edge_labels(op);
                let Some(target) = labels.first().cloned() else {
                    self.error(op, "cir.catchret needs a destination");
                    return;
                };
                let pad = self.operand(operands[0]);
                self.emit(Inst::CatchRet { pad, target });
            }
            OpKind::CleanupPad => {
                let parent = self.within_operand(operands);
                let inst = Inst::CleanupPad {
                    result: self.value_name(results[0]),
                    parent,
                    args: vec![],
                };
                self.emit(inst);
            }
            OpKind::CleanupRet => {
                let labels = self.edge_labels(op);
                let pad = self.operand(operands[0]);
                self.emit(Inst::CleanupRet {
                    pad,
                    unwind: labels.first().cloned(),
                });
            }
            _ => unreachable!("FunctionEmitter::op sends only msvc_eh_op's ops here"),
        }
    }

    /// The `within` operand of a pad: its parent pad token, or `none`.
    pub(super) fn within_operand(&self, operands: &[Value]) -> Operand {
        match operands.first() {
            Some(&p) => self.operand(p),
            None => Operand::NoneToken,
        }
    }

    /// `cir.throw` on the Microsoft ABI: `_CxxThrowException(obj, ThrowInfo)`, or
    /// `_CxxThrowException(null, null)` to rethrow; an `invoke` when it has an unwind
    /// destination.
    pub(super) fn msvc_throw(
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
                    let name = self.module_emitter.name(d).to_string();
                    if !self.module_emitter.is_defined_symbol(d) {
                        self.module_emitter
                            .declare_function(&name, Ty::Void, vec![Ty::Ptr]);
                    }
                    name
                });
                let module = self.module_emitter.module;
                let result =
                    self.module_emitter
                        .rtti
                        .throw_info(module, ti, thrown, dtor_name.as_deref());
                let Some(throw_info) = self.reported(op, result) else {
                    return;
                };
                vec![self.operand(obj), Operand::Global(throw_info)]
            }
        };
        let callee = self.module_emitter.runtime(MSVC_THROW);
        self.emit_throw_call(op, callee, args);
    }
}
