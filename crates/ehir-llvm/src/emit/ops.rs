//! Per-op emission: [`FunctionEmitter::op`] checks an op's arity and sends it to the
//! function of its family — control flow, memory, arithmetic, calls — or to the EH ops
//! of its ABI ([`super::itanium`], [`super::msvc`]); the helpers of each family follow it.

use super::function::{FunctionEmitter, ReturnedClass};
use super::types::{ParamLowering, abi_attrs};
use super::{arity_ok, int_repr, type_text};
use crate::ir::{
    Arg, BasicBlock, CallTarget, FloatPredicate, Inst, IntPredicate, Operand, Predicate, Ty,
};
use crate::layout::size_align;
use ehir_core::{
    BinaryOp, CallFlags, CastKind, CmpPredicate, ExtraData, Op, OpKind, Symbol, Type, TypeData,
    UnaryOp, Value,
};

/// The op being emitted with its kind, operands and results, as [`FunctionEmitter::op`]
/// hands it to the function of its family.
#[derive(Clone, Copy)]
pub(super) struct EmittedOp<'v> {
    /// The op.
    pub op: Op,
    /// Its kind.
    pub kind: OpKind,
    /// Its operands, in order.
    pub operands: &'v [Value],
    /// Its results, in order.
    pub results: &'v [Value],
}

impl<'v> EmittedOp<'v> {
    /// The op, its kind, operands and results.
    pub fn parts(self) -> (Op, OpKind, &'v [Value], &'v [Value]) {
        (self.op, self.kind, self.operands, self.results)
    }
}

impl<'a, 'm> FunctionEmitter<'a, 'm> {
    /// Emits one op. Values without instructions were settled by `classify`; every other
    /// op goes to the function of its family.
    pub(super) fn op(&mut self, op: Op) {
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
        let emitted = EmittedOp {
            op,
            kind,
            operands: &operands,
            results: &results,
        };
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
            OpKind::Return
            | OpKind::Br
            | OpKind::BrCond
            | OpKind::SwitchFlat { .. }
            | OpKind::Unreachable => self.control_flow_op(emitted),
            OpKind::Alloca { .. }
            | OpKind::Load { .. }
            | OpKind::Store { .. }
            | OpKind::PtrStride
            | OpKind::GetMember { .. }
            | OpKind::BaseClassAddr { .. }
            | OpKind::DerivedClassAddr { .. } => self.memory_op(emitted),
            OpKind::Binary(_)
            | OpKind::Unary(_)
            | OpKind::Cmp(_)
            | OpKind::Cast(_)
            | OpKind::Select => self.arithmetic_op(emitted),
            OpKind::Call { .. } | OpKind::TryCall { .. } => self.call_op(emitted),
            // Lifetime markers are optional hints to LLVM; none are emitted.
            OpKind::LifetimeStart | OpKind::LifetimeEnd => {}
            // EH ops of both ABIs.
            OpKind::AllocException { .. }
            | OpKind::FreeException
            | OpKind::Throw { .. }
            | OpKind::EhTerminate => {
                if self.module_emitter.msvc {
                    self.msvc_eh_op(emitted)
                } else {
                    self.itanium_eh_op(emitted)
                }
            }
            OpKind::CatchSwitch { .. }
            | OpKind::CatchPad { .. }
            | OpKind::CatchRet
            | OpKind::CleanupPad
            | OpKind::CleanupRet
                if self.module_emitter.msvc =>
            {
                self.msvc_eh_op(emitted)
            }
            OpKind::EhLandingPad { .. } | OpKind::EhTypeId { .. } | OpKind::ResumeFlat => {
                self.itanium_eh_op(emitted)
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

    // ---- control flow ----------------------------------------------------------------------------

    /// Returns, branches, switches and `cir.unreachable`.
    pub(super) fn control_flow_op(&mut self, emitted: EmittedOp<'_>) {
        let (op, kind, operands, _) = emitted.parts();
        match kind {
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
            _ => unreachable!("FunctionEmitter::op sends only control_flow_op's ops here"),
        }
    }

    // ---- memory --------------------------------------------------------------------------------------

    /// Allocas, loads, stores and address arithmetic.
    pub(super) fn memory_op(&mut self, emitted: EmittedOp<'_>) {
        let (op, kind, operands, results) = emitted.parts();
        match kind {
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
                if let [count] = operands {
                    let Some(count_ty) = self.mem_ty(op, self.vty(*count)) else {
                        return;
                    };
                    let count = self.operand(*count);
                    self.emit(Inst::DynamicAlloca {
                        result,
                        ty,
                        count_ty,
                        count,
                        align: u32::from(align),
                    });
                    return;
                }
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
            _ => unreachable!("FunctionEmitter::op sends only memory_op's ops here"),
        }
    }

    /// An integer index widened to `i64` (zero-extended when unsigned).
    pub(super) fn index_i64(&mut self, op: Op, v: Value) -> Operand {
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

    pub(super) fn class_addr(&mut self, src: Value, result: Value, offset: i128, nonnull: bool) {
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
            self.emit(Inst::Cmp {
                result: is_null.clone(),
                pred: IntPredicate::Eq.into(),
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

    // ---- arithmetic ------------------------------------------------------------------------------

    /// Binary and unary operators, comparisons, casts and `cir.select`.
    pub(super) fn arithmetic_op(&mut self, emitted: EmittedOp<'_>) {
        let (op, kind, operands, results) = emitted.parts();
        match kind {
            OpKind::Binary(b) => self.binary(op, b, operands, results[0]),
            OpKind::Unary(u) => self.unary(op, u, operands[0], results[0]),
            OpKind::Cmp(p) => self.cmp(op, p, operands, results[0]),
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
            _ => unreachable!("FunctionEmitter::op sends only arithmetic_op's ops here"),
        }
    }

    pub(super) fn binary(&mut self, op: Op, b: BinaryOp, operands: &[Value], r: Value) {
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
                format!(
                    "{} on {} is not supported",
                    b.op_name(),
                    type_text(self.ctx(), t)
                ),
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
                self.error(op, format!("{} on a float", k.op_name()));
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

    pub(super) fn unary(&mut self, op: Op, u: UnaryOp, v: Value, r: Value) {
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
            UnaryOp::Inc | UnaryOp::Dec => Inst::Binary {
                result,
                op: match (u, float) {
                    (UnaryOp::Inc, true) => "fadd",
                    (UnaryOp::Inc, false) => "add",
                    (_, true) => "fsub",
                    (_, false) => "sub",
                },
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

    pub(super) fn cmp(&mut self, op: Op, p: CmpPredicate, operands: &[Value], r: Value) {
        let t = self.vty(operands[0]);
        let Some(ty) = self.value_ty(op, t) else {
            return;
        };
        let types = &self.ctx().types;
        let result = self.value_name(r);
        let lhs = self.operand(operands[0]);
        let rhs = self.operand(operands[1]);
        let pred = if types.is_float(t) {
            Predicate::Float(match p {
                CmpPredicate::Eq => FloatPredicate::Oeq,
                CmpPredicate::Ne => FloatPredicate::Une,
                CmpPredicate::Lt => FloatPredicate::Olt,
                CmpPredicate::Le => FloatPredicate::Ole,
                CmpPredicate::Gt => FloatPredicate::Ogt,
                CmpPredicate::Ge => FloatPredicate::Oge,
            })
        } else {
            let signed = types.int_info(t).is_some_and(|(_, s)| s);
            Predicate::Int(match (p, signed) {
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
            })
        };
        self.emit(Inst::Cmp {
            result,
            pred,
            ty,
            lhs,
            rhs,
        });
    }

    pub(super) fn cast(&mut self, op: Op, k: CastKind, v: Value, r: Value) {
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
                self.emit(Inst::Cmp {
                    result,
                    pred: IntPredicate::Ne.into(),
                    ty: from,
                    lhs: value,
                    rhs: zero,
                });
                return;
            }
            CastKind::FloatToBool => {
                self.emit(Inst::Cmp {
                    result,
                    pred: FloatPredicate::Une.into(),
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

    // ---- calls ---------------------------------------------------------------------------------------

    /// `cir.call` → `call`, `cir.try_call` → `invoke`.
    pub(super) fn call_op(&mut self, emitted: EmittedOp<'_>) {
        let (op, kind, operands, results) = emitted.parts();
        match kind {
            OpKind::Call { callee, sig, flags } => {
                let Some((target, returned)) =
                    self.call_target(op, callee.expand(), sig, operands, flags)
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
                    self.call_target(op, callee.expand(), sig, operands, flags)
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
            _ => unreachable!("FunctionEmitter::op sends only call_op's ops here"),
        }
    }

    /// The callee and arguments of a call, after emitting the loads of the classes it
    /// passes in registers; also the class result it returns in registers, which the
    /// caller stores with [`FunctionEmitter::store_returned`].
    pub(super) fn call_target(
        &mut self,
        op: Op,
        callee: Option<Symbol>,
        sig: Type,
        operands: &[Value],
        flags: CallFlags,
    ) -> Option<(CallTarget, Option<ReturnedClass>)> {
        let loc = self.func.dfg.loc(op);
        // A runtime function that never throws but whose lowered calls are not written
        // `nothrow` (upstream's lowering leaves `__cxa_begin_catch` unmarked) is called
        // `nounwind`, as Clang emits it.
        let nothrow = flags.nothrow
            || callee.is_some_and(|s| {
                ehir_core::abi::runtime::runtime_function(self.ctx().name(s))
                    .is_some_and(|f| f.nounwind && !f.call_nothrow)
            });
        let (callee_operand, args) = match callee {
            Some(s) => (self.module_emitter.function_ref(s, sig, loc), operands),
            None => match operands.split_first() {
                Some((&f, rest)) => (self.operand(f), rest),
                None => {
                    self.error(op, "an indirect call needs a callee operand");
                    return None;
                }
            },
        };
        let result = self.module_emitter.signature(sig);
        let lowered = self.reported(op, result)?;
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
                    let result = self.pointee_record(at).ok_or_else(|| {
                        format!("argument #{i} is not a pointer to a complete record")
                    });
                    let (_, align) = self.reported(op, result)?;
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
                    let result = self.pointee_record(at).ok_or_else(|| {
                        format!("argument #{i} is not a pointer to a complete record")
                    });
                    let (_, align) = self.reported(op, result)?;
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
                // Call-site attributes: `nothrow` and upstream's `{noreturn}`.
                fn_attrs: [(nothrow, "nounwind"), (flags.noreturn, "noreturn")]
                    .into_iter()
                    .filter_map(|(set, attr)| set.then_some(attr))
                    .collect(),
                funclet: None,
            },
            returned,
        ))
    }

    /// Stores a class result returned in registers (the call's value `result`) into the
    /// slot the CIR call passed.
    pub(super) fn store_returned(&mut self, r: &ReturnedClass, result: &str) -> Vec<Inst> {
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

    // ---- EH, both ABIs ------------------------------------------------------------------------------

    /// The call of a throwing runtime function with pointer arguments: a `call` followed by
    /// `unreachable`, or an `invoke` when `op` has an unwind destination.
    pub(super) fn emit_throw_call(&mut self, op: Op, callee: Operand, args: Vec<Operand>) {
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
}
