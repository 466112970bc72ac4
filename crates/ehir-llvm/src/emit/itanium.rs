//! The EH ops of the Itanium model: `cir.eh.landingpad` → `landingpad`, `cir.eh.typeid` →
//! `llvm.eh.typeid.for.p0`, `cir.resume.flat` → `resume`, and the `__cxa_*` calls of
//! `cir.throw`, `cir.alloc.exception`, `cir.free.exception` and `cir.eh.terminate`.

use super::function::FunctionEmitter;
use super::ops::EmittedOp;
use crate::ir::{Arg, CallTarget, Clause, Inst, Operand, Ty};
use ehir_core::{ExtraData, LandingPadClause, Op, OpKind, Symbol, Value};

impl<'a, 'm> FunctionEmitter<'a, 'm> {
    /// The EH ops of the Itanium model (see the module docs).
    pub(super) fn itanium_eh_op(&mut self, emitted: EmittedOp<'_>) {
        let (op, kind, operands, results) = emitted.parts();
        match kind {
            OpKind::AllocException { size } => {
                let callee = self.module_emitter.runtime("__cxa_allocate_exception");
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
            OpKind::FreeException => {
                let object = self.operand(operands[0]);
                let args = vec![Arg::plain(Ty::Ptr, object)];
                self.call_runtime("__cxa_free_exception", Ty::Void, args, vec![]);
            }
            OpKind::Throw { type_info, dtor } => {
                self.throw(op, operands, type_info.expand(), dtor.expand())
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
                        LandingPadClause::Catch(Some(s)) => {
                            Clause::Catch(self.module_emitter.typeinfo_ref(*s))
                        }
                        LandingPadClause::Filter(list) => Clause::Filter(
                            list.iter()
                                .map(|&s| self.module_emitter.typeinfo_ref(s))
                                .collect(),
                        ),
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
                let ti = self.module_emitter.typeinfo_ref(type_info);
                let callee = self.module_emitter.runtime("llvm.eh.typeid.for.p0");
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
                    let value = self.operand(exn);
                    self.call_runtime(
                        "__cxa_begin_catch",
                        Ty::Ptr,
                        vec![Arg::plain(Ty::Ptr, value)],
                        vec!["nounwind"],
                    );
                }
                self.call_runtime("_ZSt9terminatev", Ty::Void, vec![], vec!["nounwind"]);
                self.emit(Inst::Unreachable);
            }
            _ => unreachable!("FunctionEmitter::op sends only itanium_eh_op's ops here"),
        }
    }

    /// `cir.throw` on the Itanium ABI: `__cxa_throw(obj, typeinfo, dtor)`, or
    /// `__cxa_rethrow()` without an object; an `invoke` when it has an unwind destination.
    pub(super) fn throw(
        &mut self,
        op: Op,
        operands: &[Value],
        type_info: Option<Symbol>,
        dtor: Option<Symbol>,
    ) {
        let (callee, args) = match operands.first() {
            None => (self.module_emitter.runtime("__cxa_rethrow"), vec![]),
            Some(&obj) => {
                let Some(ti) = type_info else {
                    self.error(op, "cir.throw of an object needs its typeinfo");
                    return;
                };
                let ti = self.module_emitter.typeinfo_ref(ti);
                // The destructor's address is passed as `void (*)(void *)`; an undeclared
                // one is declared that way.
                let dtor = match dtor {
                    None => Operand::Null,
                    Some(d) if self.module_emitter.is_defined_symbol(d) => {
                        Operand::Global(self.module_emitter.name(d).to_string())
                    }
                    Some(d) => {
                        let name = self.module_emitter.name(d).to_string();
                        self.module_emitter
                            .declare_function(&name, Ty::Void, vec![Ty::Ptr]);
                        Operand::Global(name)
                    }
                };
                let callee = self.module_emitter.runtime("__cxa_throw");
                (callee, vec![self.operand(obj), ti, dtor])
            }
        };
        self.emit_throw_call(op, callee, args);
    }
}
