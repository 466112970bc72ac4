//! CIR generation for function bodies on top of the EHScopeStack builder: statements,
//! typed expressions, object lifetimes (a cleanup is pushed when a construction
//! completes), constructors with partial-construction cleanups, destructors, `new` /
//! `delete`, `throw` and `try`/`catch`, exception specifications.

use crate::ast::{self, Builtin, Init, Stmt, VarDecl};
use crate::builder::{CatchKind, FunctionBuilder, Op, Value};
use crate::program::{
    CxxResult, FuncId, FuncKind, GlobalInit, GlobalVar, Implicit, Program, Spec, err, unsupported,
};
use crate::sema::{Callee, Conv, LocalId, Sema, TExpr, TypedExprKind, arith_conversion};
use crate::types::{ClassId, Ty, TyKind};
use ehir_core::{
    AttrData, BinaryOp, CallFlags, CastKind, CleanupKind, CmpPredicate, Function, Linkage, Loc,
    ModuleCtx, OpKind, Symbol, Type, UnaryOp,
};
use std::collections::HashMap;

/// Where a local lives.
#[derive(Copy, Clone, Debug)]
enum Storage {
    /// The object's address.
    Addr(Value),
    /// An alloca holding the address of the referenced object.
    RefSlot(Value),
    /// A static local: a global.
    Global(Symbol, Type),
}

/// Runtime functions the generated code calls.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Runtime {
    New,
    NewArray,
    Delete,
    DeleteArray,
}

impl Runtime {
    pub fn symbol(self) -> &'static str {
        match self {
            Runtime::New => "_Znwm",
            Runtime::NewArray => "_Znam",
            Runtime::Delete => "_ZdlPv",
            Runtime::DeleteArray => "_ZdaPv",
        }
    }
}

/// What code generation of function bodies adds to the module besides functions.
pub struct Extras {
    /// Static locals defined while compiling bodies.
    pub static_locals: Vec<GlobalVar>,
}

/// A forward `goto`: its label, the frames it sits in, and its location.
type PendingGoto = (String, Vec<(Op, usize)>, Loc);

/// Generates one function.
pub struct FnGen<'a, 'm> {
    /// The meaning of the function's names, types and expressions.
    pub sema: Sema<'a>,
    /// The builder the function's IR is made with.
    pub builder: FunctionBuilder<'m>,
    fid: FuncId,
    storage: Vec<Option<Storage>>,
    this_val: Option<Value>,
    sret: Option<Value>,
    retval: Option<Value>,
    ret_ty: Ty,
    nrvo: Option<String>,
    labels: HashMap<String, Vec<(Op, usize)>>,
    gotos: Vec<PendingGoto>,
    extras: &'a mut Extras,
    static_counts: HashMap<String, usize>,
}

fn flags(nothrow: bool) -> CallFlags {
    CallFlags {
        nothrow,
        exception: false,
    }
}

/// Which variant of a constructor or destructor to call.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Variant {
    Complete,
    Base,
}

impl<'a, 'm> FnGen<'a, 'm> {
    fn cty(&mut self, t: Ty) -> Type {
        self.sema.prog.cir_type(self.builder.ctx, t)
    }

    fn sym(&mut self, name: &str) -> Symbol {
        self.builder.ctx.sym(name)
    }

    fn align_of(&self, t: Ty) -> u16 {
        self.sema
            .prog
            .size_align(t)
            .map(|(_, a)| a as u16)
            .unwrap_or(0)
    }

    /// The symbol and CIR signature of a function (`variant` for ctors/dtors).
    fn callee_symbol(&mut self, f: FuncId, variant: Variant) -> (Symbol, Type, bool) {
        let name = if variant == Variant::Base {
            self.sema.prog.base_variant_name(f)
        } else {
            self.sema.prog.func(f).mangled.clone()
        };
        self.sema.prog.func_mut(f).used = true;
        let sym = self.sym(&name);
        let sig = self.sema.prog.cir_sig(self.builder.ctx, f);
        let nothrow = self.sema.prog.is_nothrow(f);
        (sym, sig, nothrow)
    }

    fn runtime(&mut self, r: Runtime) -> (Symbol, Type, bool) {
        let common = *self.builder.ctx.types.common();
        let (sig, nothrow) = match r {
            Runtime::New | Runtime::NewArray => (
                self.builder
                    .ctx
                    .types
                    .func(vec![common.u64], Some(common.void_ptr), false),
                false,
            ),
            Runtime::Delete | Runtime::DeleteArray => (
                self.builder
                    .ctx
                    .types
                    .func(vec![common.void_ptr], None, false),
                true,
            ),
        };
        let sym = self.sym(r.symbol());
        (sym, sig, nothrow)
    }

    // ---- destructors as cleanups -------------------------------------------------------------

    /// The destructor call of an object of type `t` (`None` if trivially destructible).
    fn dtor_of(&mut self, t: Ty, variant: Variant) -> Option<(Symbol, Type)> {
        let c = self.sema.prog.types.class_of(t)?;
        if self.sema.prog.class(c).trivial_dtor {
            return None;
        }
        let d = self.sema.dtor(c)?;
        let (sym, sig, _) = self.callee_symbol(d, variant);
        Some((sym, sig))
    }

    /// Pushes the cleanup that destroys the object of type `t` at `addr`.
    fn push_destroy(&mut self, kind: CleanupKind, t: Ty, addr: Value, temporary: bool) -> bool {
        match self.sema.prog.types.kind(t).clone() {
            TyKind::Class(_) => {
                let Some((sym, sig)) = self.dtor_of(t, Variant::Complete) else {
                    return false;
                };
                let emit = move |b: &mut FunctionBuilder<'_>| {
                    b.call(sym, sig, &[addr], flags(true));
                };
                if temporary {
                    self.builder.push_temporary_cleanup(kind, emit);
                } else {
                    self.builder.push_cleanup(kind, emit);
                }
                true
            }
            TyKind::Array(e, _) => {
                let Some((sym, sig)) = self.dtor_of(e, Variant::Complete) else {
                    return false;
                };
                let ep = self.cty(e);
                let ep = self.builder.ctx.types.ptr(ep);
                let emit = move |b: &mut FunctionBuilder<'_>| {
                    emit_array_dtor(b, addr, ep, sym, sig);
                };
                if temporary {
                    self.builder.push_temporary_cleanup(kind, emit);
                } else {
                    self.builder.push_cleanup(kind, emit);
                }
                true
            }
            _ => false,
        }
    }

    // ---- expressions --------------------------------------------------------------------------

    /// The address of an lvalue.
    fn lvalue(&mut self, e: &TExpr) -> CxxResult<Value> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || {
            self.lvalue_inner(e)
        })
    }

    fn lvalue_inner(&mut self, e: &TExpr) -> CxxResult<Value> {
        self.builder.set_loc(e.loc);
        match &e.kind {
            TypedExprKind::Local(l) => self.local_addr(*l, e.loc),
            TypedExprKind::Global(g) => {
                let gv = self.sema.prog.global(*g);
                let (symbol, ty) = (gv.symbol.clone(), gv.ty);
                let sym = self.sym(&symbol);
                let ct = self.cty(ty);
                Ok(self.builder.get_global(sym, ct))
            }
            TypedExprKind::Str(bytes) => {
                let name = self.sema.prog.string_symbol(bytes);
                let sym = self.sym(&name);
                let ct = self.cty(e.ty);
                Ok(self.builder.get_global(sym, ct))
            }
            TypedExprKind::Func(f) => {
                let (sym, sig, _) = self.callee_symbol(*f, Variant::Complete);
                Ok(self.builder.get_global(sym, sig))
            }
            TypedExprKind::Field { base, class, field } => {
                let addr = self.lvalue(base)?;
                let f = &self.sema.prog.class(*class).fields[*field];
                let (index, name, fty) = (f.index, f.name.clone(), f.ty);
                let ct = self.cty(fty);
                Ok(self.builder.get_member(addr, index, &name, ct))
            }
            TypedExprKind::ToBase { expr, path } => {
                let addr = self.lvalue(expr)?;
                Ok(self.base_addr(addr, path, true))
            }
            TypedExprKind::Deref(p) => self.scalar(p),
            TypedExprKind::Assign(..)
            | TypedExprKind::CompoundAssign { .. }
            | TypedExprKind::IncDec { prefix: true, .. } => {
                let (_, addr) = self.assign_like(e)?;
                addr.ok_or_else(|| {
                    ehir_core::Diagnostic::error(e.loc, "internal: assignment without an address")
                })
            }
            TypedExprKind::Cond(c, a, bb) => {
                let result_ty = |this: &mut Self| {
                    let t = this.cty(e.ty);
                    this.builder.ctx.types.ptr(t)
                };
                self.conditional(c, a, bb, result_ty, Self::lvalue_or_throw)
            }
            TypedExprKind::Comma(a, bb) => {
                self.ignored(a)?;
                self.lvalue(bb)
            }
            TypedExprKind::Call { callee, args } => {
                let v = self.call(callee, args, None)?;
                v.ok_or_else(|| {
                    ehir_core::Diagnostic::error(e.loc, "internal: reference call without a result")
                })
            }
            TypedExprKind::BindTemp(x) => {
                let ct = self.cty(x.ty);
                let name = "ref.tmp";
                let align = self.align_of(x.ty);
                let tmp = self.builder.alloca(ct, name, true, align);
                self.init_into(x, tmp)?;
                self.push_destroy(CleanupKind::All, x.ty, tmp, true);
                Ok(tmp)
            }
            _ => err(e.loc, "internal: expression is not an lvalue"),
        }
    }

    /// `c ? a : b` as a `cir.ternary` with a result of type `result_ty` (computed after
    /// the condition); `arm` emits each arm.
    fn conditional(
        &mut self,
        c: &TExpr,
        a: &TExpr,
        b: &TExpr,
        result_ty: impl FnOnce(&mut Self) -> Type,
        arm: fn(&mut Self, &TExpr) -> CxxResult<Vec<Value>>,
    ) -> CxxResult<Value> {
        let cv = self.scalar(c)?;
        let ty = result_ty(self);
        self.builder.begin_conditional();
        let t = self
            .builder
            .create_region_op(OpKind::Ternary, &[cv], &[ty], 2);
        self.builder.enter_region(t, 0, false);
        let va = arm(self, a)?;
        self.builder.exit_region_yielding(&va);
        self.builder.enter_region(t, 1, false);
        let vb = arm(self, b)?;
        self.builder.exit_region_yielding(&vb);
        self.builder.end_conditional();
        Ok(self.builder.result(t, 0))
    }

    fn lvalue_or_throw(&mut self, e: &TExpr) -> CxxResult<Vec<Value>> {
        if matches!(e.kind, TypedExprKind::Throw(_)) {
            self.ignored(e)?;
            return Ok(vec![]);
        }
        Ok(vec![self.lvalue(e)?])
    }

    fn scalar_or_throw(&mut self, e: &TExpr) -> CxxResult<Vec<Value>> {
        if matches!(e.kind, TypedExprKind::Throw(_)) {
            self.ignored(e)?;
            return Ok(vec![]);
        }
        Ok(vec![self.scalar(e)?])
    }

    fn local_addr(&mut self, l: LocalId, loc: Loc) -> CxxResult<Value> {
        match self.storage.get(l.0 as usize).copied().flatten() {
            Some(Storage::Addr(v)) => Ok(v),
            Some(Storage::RefSlot(slot)) => Ok(self.builder.load(slot, 8)),
            Some(Storage::Global(sym, ty)) => Ok(self.builder.get_global(sym, ty)),
            None => err(loc, "internal: local without storage"),
        }
    }

    /// Walks a base path from the address of a derived object.
    fn base_addr(&mut self, mut addr: Value, path: &[(ClassId, usize)], nonnull: bool) -> Value {
        for &(c, i) in path {
            let b = &self.sema.prog.class(c).bases[i];
            let (bc, off) = (b.class, b.offset);
            let bt = self.sema.prog.cir_type_of_class(self.builder.ctx, bc);
            addr = self.builder.base_class_addr(addr, bt, off as u32, nonnull);
        }
        addr
    }

    fn derived_addr(&mut self, mut addr: Value, path: &[(ClassId, usize)], nonnull: bool) -> Value {
        for &(c, i) in path.iter().rev() {
            let off = self.sema.prog.class(c).bases[i].offset;
            let dt = self.sema.prog.cir_type_of_class(self.builder.ctx, c);
            addr = self
                .builder
                .derived_class_addr(addr, dt, off as u32, nonnull);
        }
        addr
    }

    fn zero_value(&mut self, t: Ty) -> Value {
        let ct = self.cty(t);
        let types = &self.sema.prog.types;
        if types.is_bool(t) {
            self.builder.const_bool(false)
        } else if types.is_floating(t) {
            self.builder.const_float(ct, 0.0)
        } else if types.is_integral(t) {
            self.builder.const_int(ct, 0)
        } else if types.is_ptr(t) || matches!(types.kind(t), TyKind::Nullptr) {
            self.builder.const_null(ct)
        } else {
            let a = self.builder.ctx.attrs.intern(AttrData::Zero(ct));
            self.builder
                .build_value(OpKind::Const { value: a }, &[], ct)
        }
    }

    /// `v` as a value of CIR type `ct`: itself if it has that type, else a bitcast.
    fn bitcast_to(&mut self, v: Value, ct: ehir_core::Type) -> Value {
        if self.builder.value_type(v) == ct {
            v
        } else {
            self.builder.cast(CastKind::Bitcast, v, ct)
        }
    }

    /// Converts a CIR value between arithmetic C++ types.
    fn arith_cast(&mut self, v: Value, from: Ty, to: Ty) -> Value {
        let types = &self.sema.prog.types;
        let from = types.find(types.kind(from), false).unwrap_or(from);
        let to_u = types.find(types.kind(to), false).unwrap_or(to);
        if from == to_u {
            return v;
        }
        let kind = match arith_conversion(types, from, to_u) {
            Conv::FloatToBool => CastKind::FloatToBool,
            Conv::IntToBool => CastKind::IntToBool,
            Conv::BoolToFloat => CastKind::BoolToFloat,
            Conv::BoolToInt => CastKind::BoolToInt,
            Conv::IntToInt => CastKind::Integral,
            Conv::IntToFloat => CastKind::IntToFloat,
            Conv::FloatToInt => CastKind::FloatToInt,
            // `FloatToFloat`, the only other arithmetic conversion.
            _ => CastKind::Floating,
        };
        let ct = self.cty(to_u);
        if self.builder.value_type(v) == ct {
            return v;
        }
        self.builder.cast(kind, v, ct)
    }

    /// The value of a scalar prvalue.
    fn scalar(&mut self, e: &TExpr) -> CxxResult<Value> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || {
            self.scalar_inner(e)
        })
    }

    fn scalar_inner(&mut self, e: &TExpr) -> CxxResult<Value> {
        self.builder.set_loc(e.loc);
        let loc = e.loc;
        match &e.kind {
            TypedExprKind::Int(v) => {
                if self.sema.prog.types.is_bool(e.ty) {
                    return Ok(self.builder.const_bool(*v != 0));
                }
                if self.sema.prog.types.is_floating(e.ty) {
                    let ct = self.cty(e.ty);
                    return Ok(self.builder.const_float(ct, *v as f64));
                }
                let ct = self.cty(e.ty);
                Ok(self.builder.const_int(ct, *v))
            }
            TypedExprKind::Float(v) => {
                let ct = self.cty(e.ty);
                Ok(self.builder.const_float(ct, *v))
            }
            TypedExprKind::Bool(v) => Ok(self.builder.const_bool(*v)),
            TypedExprKind::NullPtr => {
                let ct = self.cty(e.ty);
                Ok(self.builder.const_null(ct))
            }
            TypedExprKind::This => self
                .this_val
                .ok_or_else(|| ehir_core::Diagnostic::error(loc, "internal: no 'this'")),
            TypedExprKind::AddrOf(x) => self.lvalue(x),
            TypedExprKind::Cast(conv, x) => self.cast(conv, x, e.ty, loc),
            TypedExprKind::Arith(op, a, b) => {
                let va = self.scalar(a)?;
                let vb = self.scalar(b)?;
                Ok(self.builder.binop(*op, va, vb))
            }
            TypedExprKind::PtrOffset {
                ptr,
                offset,
                negate,
            } => {
                let p = self.scalar(ptr)?;
                let n = self.scalar(offset)?;
                let n = self.index_value(n, offset.ty, *negate);
                Ok(self.builder.ptr_stride(p, n))
            }
            TypedExprKind::PtrDiff {
                lhs,
                rhs,
                elem_size,
            } => {
                let a = self.scalar(lhs)?;
                let b = self.scalar(rhs)?;
                let s64 = self.builder.ctx.types.common().s64;
                let ia = self.builder.cast(CastKind::PtrToInt, a, s64);
                let ib = self.builder.cast(CastKind::PtrToInt, b, s64);
                let d = self.builder.binop(BinaryOp::Sub, ia, ib);
                if *elem_size == 1 {
                    return Ok(d);
                }
                let size = self.builder.const_int(s64, *elem_size as i128);
                Ok(self.builder.binop(BinaryOp::Div, d, size))
            }
            TypedExprKind::Cmp(pred, a, b) => {
                let va = self.scalar(a)?;
                let vb = self.scalar(b)?;
                Ok(self.builder.cmp(*pred, va, vb))
            }
            TypedExprKind::Unary(op, a) => {
                let v = self.scalar(a)?;
                Ok(self.builder.unary(*op, v))
            }
            TypedExprKind::LogicalNot(a) => {
                let v = self.scalar(a)?;
                Ok(self.builder.unary(UnaryOp::Not, v))
            }
            TypedExprKind::LogAnd(a, bb) | TypedExprKind::LogOr(a, bb) => {
                let is_and = matches!(e.kind, TypedExprKind::LogAnd(..));
                let va = self.scalar(a)?;
                let bt = self.builder.ctx.types.common().bool;
                self.builder.begin_conditional();
                let t = self
                    .builder
                    .create_region_op(OpKind::Ternary, &[va], &[bt], 2);
                self.builder.enter_region(t, 0, false);
                let v0 = if is_and {
                    self.scalar(bb)?
                } else {
                    self.builder.const_bool(true)
                };
                self.builder.exit_region_yielding(&[v0]);
                self.builder.enter_region(t, 1, false);
                let v1 = if is_and {
                    self.builder.const_bool(false)
                } else {
                    self.scalar(bb)?
                };
                self.builder.exit_region_yielding(&[v1]);
                self.builder.end_conditional();
                Ok(self.builder.result(t, 0))
            }
            TypedExprKind::Assign(..)
            | TypedExprKind::CompoundAssign { .. }
            | TypedExprKind::IncDec { .. } => {
                let (v, _) = self.assign_like(e)?;
                v.ok_or_else(|| {
                    ehir_core::Diagnostic::error(loc, "internal: assignment without a value")
                })
            }
            TypedExprKind::Cond(c, a, bb) => {
                self.conditional(c, a, bb, |this| this.cty(e.ty), Self::scalar_or_throw)
            }
            TypedExprKind::Comma(a, bb) => {
                self.ignored(a)?;
                self.scalar(bb)
            }
            TypedExprKind::Call { callee, args } => {
                let v = self.call(callee, args, None)?;
                match v {
                    Some(v) if e.lvalue => Ok(self.builder.load(v, self.align_of(e.ty))),
                    Some(v) => Ok(v),
                    None => err(loc, "internal: void call used as a value"),
                }
            }
            TypedExprKind::ZeroInit => Ok(self.zero_value(e.ty)),
            TypedExprKind::New { elem, count, init } => {
                self.new_expr(*elem, count.as_deref(), init.as_deref())
            }
            TypedExprKind::Local(_)
            | TypedExprKind::Global(_)
            | TypedExprKind::Field { .. }
            | TypedExprKind::Deref(_)
            | TypedExprKind::ToBase { .. }
            | TypedExprKind::BindTemp(_)
            | TypedExprKind::Str(_)
            | TypedExprKind::Func(_) => {
                // An lvalue used as a value: load it.
                let addr = self.lvalue(e)?;
                Ok(self.builder.load(addr, self.align_of(e.ty)))
            }
            _ => err(loc, "internal: expression is not a scalar"),
        }
    }

    /// A pointer offset as a signed 64-bit integer (negated for `p - n`).
    fn index_value(&mut self, n: Value, ty: Ty, negate: bool) -> Value {
        let s64t = self.sema.prog.types.builtin(Builtin::Long);
        let n = self.arith_cast(n, ty, s64t);
        if negate {
            self.builder.unary(UnaryOp::Minus, n)
        } else {
            n
        }
    }

    fn cast(&mut self, conv: &Conv, x: &TExpr, to: Ty, loc: Loc) -> CxxResult<Value> {
        let ct = self.cty(to);
        Ok(match conv {
            Conv::LToR => {
                let addr = self.lvalue(x)?;
                let align = self.align_of(x.ty);
                self.builder.load(addr, align)
            }
            Conv::IntToInt
            | Conv::IntToFloat
            | Conv::FloatToInt
            | Conv::FloatToFloat
            | Conv::IntToBool
            | Conv::FloatToBool
            | Conv::BoolToInt
            | Conv::BoolToFloat => {
                let v = self.scalar(x)?;
                self.arith_cast(v, x.ty, to)
            }
            Conv::PtrToBool => {
                let v = self.scalar(x)?;
                let bt = self.builder.ctx.types.common().bool;
                self.builder.cast(CastKind::PtrToBool, v, bt)
            }
            Conv::ArrayDecay => {
                let addr = self.lvalue(x)?;
                self.builder.cast(CastKind::ArrayToPtrDecay, addr, ct)
            }
            Conv::FuncDecay => self.lvalue(x)?,
            Conv::NullToPtr => self.builder.const_null(ct),
            Conv::PtrBitcast => {
                let v = self.scalar(x)?;
                self.bitcast_to(v, ct)
            }
            Conv::DerivedToBase(path) => {
                let v = self.scalar(x)?;
                let v = self.base_addr(v, path, false);
                self.bitcast_to(v, ct)
            }
            Conv::BaseToDerived(path) => {
                let v = self.scalar(x)?;
                let v = self.derived_addr(v, path, false);
                self.bitcast_to(v, ct)
            }
            Conv::PtrToInt => {
                let v = self.scalar(x)?;
                self.builder.cast(CastKind::PtrToInt, v, ct)
            }
            Conv::IntToPtr => {
                let v = self.scalar(x)?;
                let s64t = self.sema.prog.types.builtin(Builtin::Long);
                let v = self.arith_cast(v, x.ty, s64t);
                self.builder.cast(CastKind::IntToPtr, v, ct)
            }
            Conv::ToVoid => return err(loc, "internal: void value used"),
        })
    }

    /// Assignment-like expressions: returns (value, address of the left operand).
    fn assign_like(&mut self, e: &TExpr) -> CxxResult<(Option<Value>, Option<Value>)> {
        match &e.kind {
            TypedExprKind::Assign(l, r) => {
                if self.sema.prog.types.is_class(l.ty) {
                    let src = self.lvalue(r)?;
                    let dst = self.lvalue(l)?;
                    let v = self.builder.load(src, 0);
                    self.builder.store(v, dst, 0);
                    return Ok((None, Some(dst)));
                }
                let v = self.scalar(r)?;
                let addr = self.lvalue(l)?;
                let align = self.align_of(l.ty);
                self.builder.store(v, addr, align);
                Ok((Some(v), Some(addr)))
            }
            TypedExprKind::CompoundAssign {
                op,
                lhs,
                rhs,
                comp,
                ptr,
            } => {
                let v = self.scalar(rhs)?;
                let addr = self.lvalue(lhs)?;
                let align = self.align_of(lhs.ty);
                let old = self.builder.load(addr, align);
                let new = if *ptr {
                    let n = self.index_value(v, rhs.ty, *op == BinaryOp::Sub);
                    self.builder.ptr_stride(old, n)
                } else {
                    let oc = self.arith_cast(old, lhs.ty, *comp);
                    let r = self.builder.binop(*op, oc, v);
                    self.arith_cast(r, *comp, lhs.ty)
                };
                self.builder.store(new, addr, align);
                Ok((Some(new), Some(addr)))
            }
            TypedExprKind::IncDec { inc, prefix, expr } => {
                let addr = self.lvalue(expr)?;
                let align = self.align_of(expr.ty);
                let old = self.builder.load(addr, align);
                let ty = expr.ty;
                let new = if self.sema.prog.types.is_ptr(ty) {
                    let s64 = self.builder.ctx.types.common().s64;
                    let one = self.builder.const_int(s64, if *inc { 1 } else { -1 });
                    self.builder.ptr_stride(old, one)
                } else if self.sema.prog.types.is_floating(ty) {
                    let ct = self.cty(ty);
                    let one = self.builder.const_float(ct, 1.0);
                    self.builder
                        .binop(if *inc { BinaryOp::Add } else { BinaryOp::Sub }, old, one)
                } else {
                    self.builder
                        .unary(if *inc { UnaryOp::Inc } else { UnaryOp::Dec }, old)
                };
                self.builder.store(new, addr, align);
                Ok((Some(if *prefix { new } else { old }), Some(addr)))
            }
            _ => err(e.loc, "internal: not an assignment"),
        }
    }

    /// Initializes the object at `dest` from a prvalue (class or scalar).
    fn init_into(&mut self, e: &TExpr, dest: Value) -> CxxResult<()> {
        if self.sema.prog.types.is_class(e.ty) {
            return self.class_into(e, dest);
        }
        let v = self.scalar(e)?;
        let align = self.align_of(e.ty);
        self.builder.store(v, dest, align);
        Ok(())
    }

    /// Constructs a class prvalue in place at `dest` (no copies: C++17 prvalue semantics).
    fn class_into(&mut self, e: &TExpr, dest: Value) -> CxxResult<()> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || {
            self.class_into_inner(e, dest)
        })
    }

    fn class_into_inner(&mut self, e: &TExpr, dest: Value) -> CxxResult<()> {
        self.builder.set_loc(e.loc);
        match &e.kind {
            TypedExprKind::Construct { ctor, args } => {
                self.construct(*ctor, dest, args, Variant::Complete)
            }
            TypedExprKind::TrivialCopy(src) => {
                let s = self.lvalue(src)?;
                let v = self.builder.load(s, 0);
                self.builder.store(v, dest, 0);
                Ok(())
            }
            TypedExprKind::ZeroInit => {
                let z = self.zero_value(e.ty);
                self.builder.store(z, dest, 0);
                Ok(())
            }
            TypedExprKind::DefaultInit => Ok(()),
            TypedExprKind::ZeroThen(inner) => {
                let z = self.zero_value(e.ty);
                self.builder.store(z, dest, 0);
                self.class_into(inner, dest)
            }
            TypedExprKind::Call { callee, args } => {
                self.call(callee, args, Some(dest))?;
                Ok(())
            }
            TypedExprKind::Cond(c, a, bb) => {
                let cv = self.scalar(c)?;
                self.builder.begin_conditional();
                let op = self.builder.begin_if(cv, true);
                let _ = op;
                self.class_into_or_throw(a, dest)?;
                self.builder.begin_else(op);
                self.class_into_or_throw(bb, dest)?;
                self.builder.end_if();
                self.builder.end_conditional();
                Ok(())
            }
            TypedExprKind::Comma(a, bb) => {
                self.ignored(a)?;
                self.class_into(bb, dest)
            }
            _ if e.lvalue => {
                // A class lvalue where a prvalue is expected cannot happen after sema.
                err(e.loc, "internal: class lvalue used as a prvalue")
            }
            _ => err(e.loc, "internal: not a class prvalue"),
        }
    }

    fn class_into_or_throw(&mut self, e: &TExpr, dest: Value) -> CxxResult<()> {
        if matches!(e.kind, TypedExprKind::Throw(_)) {
            return self.ignored(e);
        }
        self.class_into(e, dest)
    }

    /// Calls a constructor on `dest`.
    fn construct(
        &mut self,
        ctor: FuncId,
        dest: Value,
        args: &[TExpr],
        variant: Variant,
    ) -> CxxResult<()> {
        let params = self.sema.prog.func(ctor).params.clone();
        let vals = self.args(&params, args)?;
        let (sym, sig, nothrow) = self.callee_symbol(ctor, variant);
        let mut ops = vec![dest];
        ops.extend(vals);
        self.builder.call(sym, sig, &ops, flags(nothrow));
        Ok(())
    }

    /// Evaluates call arguments right to left (as g++ does) and returns them in order.
    fn args(&mut self, params: &[Ty], args: &[TExpr]) -> CxxResult<Vec<Value>> {
        let mut vals = vec![None; args.len()];
        for i in (0..args.len()).rev() {
            let a = &args[i];
            let v = match params.get(i) {
                Some(&p) if self.sema.prog.types.referee(p).is_some() => self.lvalue(a)?,
                Some(&p) if self.sema.prog.types.is_class(p) => {
                    let ct = self.cty(p);
                    let align = self.align_of(p);
                    let tmp = self.builder.alloca(ct, "agg.tmp", true, align);
                    self.class_into(a, tmp)?;
                    self.push_destroy(CleanupKind::All, p, tmp, true);
                    tmp
                }
                _ => self.scalar(a)?,
            };
            vals[i] = Some(v);
        }
        Ok(vals.into_iter().flatten().collect())
    }

    /// A call; `dest` receives a class result. Returns the result value (a pointer for
    /// reference results).
    fn call(
        &mut self,
        callee: &Callee,
        args: &[TExpr],
        dest: Option<Value>,
    ) -> CxxResult<Option<Value>> {
        match callee {
            Callee::Direct(f) | Callee::Method { func: f, .. } => {
                let f = *f;
                let this = match callee {
                    Callee::Method { object, .. } => Some(self.lvalue(object)?),
                    _ => None,
                };
                let params = self.sema.prog.func(f).params.clone();
                let ret = self.sema.prog.func(f).ret;
                let vals = self.args(&params, args)?;
                let (sym, sig, nothrow) = self.callee_symbol(f, Variant::Complete);
                let mut ops = Vec::new();
                if self.sema.prog.types.is_class(ret) {
                    let d = match dest {
                        Some(d) => d,
                        None => {
                            let ct = self.cty(ret);
                            let tmp = self.builder.alloca(ct, "agg.tmp", true, self.align_of(ret));
                            self.push_destroy(CleanupKind::All, ret, tmp, true);
                            tmp
                        }
                    };
                    ops.push(d);
                }
                ops.extend(this);
                ops.extend(vals);
                Ok(self.builder.call(sym, sig, &ops, flags(nothrow)))
            }
            Callee::Indirect(p) => {
                let fp = self.scalar(p)?;
                let fty = self
                    .sema
                    .prog
                    .types
                    .pointee(p.ty)
                    .expect("pointer to function");
                let TyKind::Func { ret, params, .. } = self.sema.prog.types.kind(fty).clone()
                else {
                    return err(p.loc, "internal: indirect call through a non-function");
                };
                let vals = self.args(&params, args)?;
                let sig = self.cty(fty);
                let mut ops = Vec::new();
                if self.sema.prog.types.is_class(ret) {
                    let Some(d) = dest else {
                        return unsupported(p.loc, "ignoring the class result of an indirect call");
                    };
                    ops.push(d);
                }
                ops.extend(vals);
                Ok(self.builder.call_indirect(fp, sig, &ops, flags(false)))
            }
        }
    }

    /// Evaluates an expression for its side effects.
    fn ignored(&mut self, e: &TExpr) -> CxxResult<()> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || {
            self.ignored_inner(e)
        })
    }

    fn ignored_inner(&mut self, e: &TExpr) -> CxxResult<()> {
        self.builder.set_loc(e.loc);
        match &e.kind {
            TypedExprKind::Cast(Conv::ToVoid, x) => self.ignored(x),
            TypedExprKind::Throw(x) => self.throw(x.as_deref()),
            TypedExprKind::Delete { array, expr } => self.delete(*array, expr),
            TypedExprKind::Comma(a, bb) => {
                self.ignored(a)?;
                self.ignored(bb)
            }
            TypedExprKind::Cond(c, a, bb)
                if self.sema.prog.types.is_void(e.ty)
                    || (!e.lvalue && self.sema.prog.types.is_class(e.ty)) =>
            {
                if self.sema.prog.types.is_class(e.ty) {
                    let ct = self.cty(e.ty);
                    let tmp = self
                        .builder
                        .alloca(ct, "agg.tmp", true, self.align_of(e.ty));
                    self.class_into(e, tmp)?;
                    self.push_destroy(CleanupKind::All, e.ty, tmp, true);
                    return Ok(());
                }
                let cv = self.scalar(c)?;
                self.builder.begin_conditional();
                let op = self.builder.begin_if(cv, true);
                self.ignored(a)?;
                self.builder.begin_else(op);
                self.ignored(bb)?;
                self.builder.end_if();
                self.builder.end_conditional();
                Ok(())
            }
            TypedExprKind::Call { callee, args } if !e.lvalue => {
                if self.sema.prog.types.is_class(e.ty) {
                    let ct = self.cty(e.ty);
                    let tmp = self
                        .builder
                        .alloca(ct, "agg.tmp", true, self.align_of(e.ty));
                    self.call(callee, args, Some(tmp))?;
                    self.push_destroy(CleanupKind::All, e.ty, tmp, true);
                    return Ok(());
                }
                self.call(callee, args, None)?;
                Ok(())
            }
            TypedExprKind::Construct { .. }
            | TypedExprKind::TrivialCopy(_)
            | TypedExprKind::ZeroInit
            | TypedExprKind::DefaultInit
                if self.sema.prog.types.is_class(e.ty) =>
            {
                let ct = self.cty(e.ty);
                let tmp = self
                    .builder
                    .alloca(ct, "agg.tmp", true, self.align_of(e.ty));
                self.class_into(e, tmp)?;
                self.push_destroy(CleanupKind::All, e.ty, tmp, true);
                Ok(())
            }
            TypedExprKind::Assign(..)
            | TypedExprKind::CompoundAssign { .. }
            | TypedExprKind::IncDec { .. } => {
                self.assign_like(e)?;
                Ok(())
            }
            _ if e.lvalue => {
                self.lvalue(e)?;
                Ok(())
            }
            _ if self.sema.prog.types.is_void(e.ty) => {
                err(e.loc, "internal: unexpected void expression")
            }
            _ => {
                self.scalar(e)?;
                Ok(())
            }
        }
    }

    // ---- new / delete / throw ------------------------------------------------------------------

    fn new_expr(
        &mut self,
        elem: Ty,
        count: Option<&TExpr>,
        init: Option<&TExpr>,
    ) -> CxxResult<Value> {
        let size = self.sema.prog.size_of(elem).unwrap_or(1);
        let ect = self.cty(elem);
        let ept = self.builder.ctx.types.ptr(ect);
        let common = *self.builder.ctx.types.common();
        let Some(count) = count else {
            let (new_sym, new_sig, _) = self.runtime(Runtime::New);
            let sz = self.builder.const_int(common.u64, size as i128);
            let raw = self
                .builder
                .call(new_sym, new_sig, &[sz], flags(false))
                .expect("operator new returns");
            let p = self.builder.cast(CastKind::Bitcast, raw, ept);
            if let Some(init) = init
                && !matches!(init.kind, TypedExprKind::DefaultInit)
            {
                // operator delete runs if the initialization throws.
                let (del_sym, del_sig, _) = self.runtime(Runtime::Delete);
                let h = self.builder.push_cleanup(CleanupKind::Eh, move |b| {
                    b.call(del_sym, del_sig, &[raw], flags(true));
                });
                self.init_into(init, p)?;
                self.builder.deactivate_cleanup(h);
            }
            return Ok(p);
        };
        let n = self.scalar(count)?;
        let cookie = self
            .sema
            .prog
            .types
            .class_of(elem)
            .is_some_and(|c| !self.sema.prog.class(c).trivial_dtor);
        let esize = self.builder.const_int(common.u64, size as i128);
        let mut total = self.builder.binop(BinaryOp::Mul, n, esize);
        if cookie {
            let eight = self.builder.const_int(common.u64, 8);
            total = self.builder.binop(BinaryOp::Add, total, eight);
        }
        let (new_sym, new_sig, _) = self.runtime(Runtime::NewArray);
        let raw = self
            .builder
            .call(new_sym, new_sig, &[total], flags(false))
            .expect("operator new[] returns");
        let obj = if cookie {
            let u64p = self.builder.ctx.types.ptr(common.u64);
            let cp = self.builder.cast(CastKind::Bitcast, raw, u64p);
            self.builder.store(n, cp, 8);
            let one = self.builder.const_int(common.s64, 1);
            let after = self.builder.ptr_stride(cp, one);
            self.builder.cast(CastKind::Bitcast, after, ept)
        } else {
            self.builder.cast(CastKind::Bitcast, raw, ept)
        };
        let needs_init = init.is_some_and(|i| !matches!(i.kind, TypedExprKind::DefaultInit));
        if needs_init {
            let init = init.expect("checked");
            let (del_sym, del_sig, _) = self.runtime(Runtime::DeleteArray);
            let h = self.builder.push_cleanup(CleanupKind::Eh, move |b| {
                b.call(del_sym, del_sig, &[raw], flags(true));
            });
            self.array_loop_init(obj, n, elem, init)?;
            self.builder.deactivate_cleanup(h);
        }
        Ok(obj)
    }

    /// Initializes `n` elements at `begin` from `init`, destroying the constructed ones
    /// (in reverse) if an initialization throws.
    fn array_loop_init(&mut self, begin: Value, n: Value, elem: Ty, init: &TExpr) -> CxxResult<()> {
        let ept = self.builder.value_type(begin);
        let end = self.builder.ptr_stride(begin, n);
        let cur = self.builder.alloca(ept, "arrayinit.cur", false, 8);
        self.builder.store(begin, cur, 8);
        let dtor = self.dtor_of(elem, Variant::Complete);
        if let Some((dsym, dsig)) = dtor {
            self.builder.push_cleanup(CleanupKind::Eh, move |b| {
                emit_partial_destroy(b, cur, begin, dsym, dsig);
            });
        }
        let w = self.builder.create_region_op(OpKind::While, &[], &[], 2);
        self.builder.enter_region(w, 0, false);
        let c = self.builder.load(cur, 8);
        let ne = self.builder.cmp(CmpPredicate::Ne, c, end);
        self.builder.emit_condition(ne);
        self.builder.exit_region();
        self.builder.enter_region(w, 1, false);
        let c = self.builder.load(cur, 8);
        self.init_into(init, c)?;
        let s64 = self.builder.ctx.types.common().s64;
        let one = self.builder.const_int(s64, 1);
        let next = self.builder.ptr_stride(c, one);
        self.builder.store(next, cur, 8);
        self.builder.exit_region();
        if dtor.is_some() {
            self.builder.pop_cleanup();
        }
        Ok(())
    }

    fn delete(&mut self, array: bool, p: &TExpr) -> CxxResult<()> {
        let v = self.scalar(p)?;
        let pointee = self.sema.prog.types.pointee(p.ty).expect("pointer");
        let pt = self.builder.value_type(v);
        let null = self.builder.const_null(pt);
        let nn = self.builder.cmp(CmpPredicate::Ne, v, null);
        let common = *self.builder.ctx.types.common();
        self.builder.begin_if(nn, false);
        let dtor = self.dtor_of(pointee, Variant::Complete);
        if !array {
            if let Some((sym, sig)) = dtor {
                self.builder.call(sym, sig, &[v], flags(true));
            }
            let raw = self.builder.cast(CastKind::Bitcast, v, common.void_ptr);
            let (del, dsig, _) = self.runtime(Runtime::Delete);
            self.builder.call(del, dsig, &[raw], flags(true));
        } else if let Some((dsym, dsig)) = dtor {
            let u64p = self.builder.ctx.types.ptr(common.u64);
            let as_u64 = self.builder.cast(CastKind::Bitcast, v, u64p);
            let m1 = self.builder.const_int(common.s64, -1);
            let cookie = self.builder.ptr_stride(as_u64, m1);
            let n = self.builder.load(cookie, 8);
            let end = self.builder.ptr_stride(v, n);
            let cur = self.builder.alloca(pt, "delete.cur", false, 8);
            self.builder.store(end, cur, 8);
            emit_partial_destroy(&mut self.builder, cur, v, dsym, dsig);
            let raw = self
                .builder
                .cast(CastKind::Bitcast, cookie, common.void_ptr);
            let (del, sig, _) = self.runtime(Runtime::DeleteArray);
            self.builder.call(del, sig, &[raw], flags(true));
        } else {
            let raw = self.builder.cast(CastKind::Bitcast, v, common.void_ptr);
            let (del, sig, _) = self.runtime(Runtime::DeleteArray);
            self.builder.call(del, sig, &[raw], flags(true));
        }
        self.builder.end_if();
        Ok(())
    }

    fn throw(&mut self, x: Option<&TExpr>) -> CxxResult<()> {
        let Some(x) = x else {
            self.builder.emit_rethrow();
            return Ok(());
        };
        let t = x.ty;
        let size = self.sema.prog.size_of(t).unwrap_or(8);
        let ct = self.cty(t);
        let p = self.builder.alloc_exception(ct, size);
        // If initializing the object throws, that exception propagates and the storage
        // is released (it is never thrown); an initialization that cannot throw needs no
        // cleanup.
        let guard = self
            .builder
            .push_cleanup(CleanupKind::Eh, move |b| b.free_exception(p));
        self.init_into(x, p)?;
        self.builder.pop_cleanup();
        self.builder.unwrap_if_nothrow(guard.0);
        let ti = self.sema.prog.typeinfo_symbol(t);
        let ti = self.sym(&ti);
        let dtor = self.dtor_of(t, Variant::Complete).map(|(s, _)| s);
        self.builder.emit_throw(p, ti, dtor);
        Ok(())
    }

    // ---- statements ----------------------------------------------------------------------------------

    fn full_expr_ignored(&mut self, e: &ast::Expr) -> CxxResult<()> {
        let te = self.sema.expr(e)?;
        let mark = self.builder.begin_full_expression();
        self.ignored(&te)?;
        self.builder.end_full_expression(mark);
        Ok(())
    }

    /// A scalar full expression whose value is used after its temporaries die.
    fn full_expr_scalar(&mut self, te: &TExpr) -> CxxResult<Value> {
        let mark = self.builder.begin_full_expression();
        let v = self.scalar(te)?;
        if !self.builder.full_expression_has_cleanups(mark) {
            return Ok(v);
        }
        let ct = self.builder.value_type(v);
        let slot = self.builder.alloca(ct, "tmp.value", false, 0);
        self.builder.store(v, slot, 0);
        self.builder.end_full_expression(mark);
        Ok(self.builder.load(slot, 0))
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> CxxResult<()> {
        for s in stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// A statement in its own name scope, emitted in the current region.
    fn sub_stmt(&mut self, s: &Stmt) -> CxxResult<()> {
        self.sema.push_scope();
        let r = match s {
            Stmt::Block(stmts, _) => self.stmts(stmts),
            other => self.stmt(other),
        };
        self.sema.pop_scope();
        r
    }

    fn stmt(&mut self, s: &Stmt) -> CxxResult<()> {
        stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || self.stmt_inner(s))
    }

    fn stmt_inner(&mut self, s: &Stmt) -> CxxResult<()> {
        self.builder.set_loc(s.loc());
        match s {
            Stmt::Empty => Ok(()),
            Stmt::Expr(e) => self.full_expr_ignored(e),
            Stmt::Decl(decls) => {
                for d in decls {
                    self.local_decl(d)?;
                }
                Ok(())
            }
            Stmt::Block(stmts, _) => {
                self.builder.enter_scope();
                self.sema.push_scope();
                let r = self.stmts(stmts);
                self.sema.pop_scope();
                r?;
                self.builder.exit_scope();
                Ok(())
            }
            Stmt::If {
                cond, then, els, ..
            } => {
                self.builder.enter_scope();
                let c = self.sema.condition(cond)?;
                let cv = self.full_expr_scalar(&c)?;
                let op = self.builder.begin_if(cv, els.is_some());
                self.sub_stmt(then)?;
                if let Some(e) = els {
                    self.builder.begin_else(op);
                    self.sub_stmt(e)?;
                }
                self.builder.end_if();
                self.builder.exit_scope();
                Ok(())
            }
            Stmt::While { cond, body, .. } => {
                self.builder.enter_scope();
                let w = self.builder.create_region_op(OpKind::While, &[], &[], 2);
                self.builder.enter_region(w, 0, false);
                let c = self.sema.condition(cond)?;
                let cv = self.full_expr_scalar(&c)?;
                self.builder.emit_condition(cv);
                self.builder.exit_region();
                self.builder.enter_region(w, 1, false);
                self.loop_body(body)?;
                self.builder.exit_region();
                self.builder.exit_scope();
                Ok(())
            }
            Stmt::DoWhile { body, cond, .. } => {
                self.builder.enter_scope();
                let w = self.builder.create_region_op(OpKind::DoWhile, &[], &[], 2);
                self.builder.enter_region(w, 0, false);
                self.loop_body(body)?;
                self.builder.exit_region();
                self.builder.enter_region(w, 1, false);
                let c = self.sema.condition(cond)?;
                let cv = self.full_expr_scalar(&c)?;
                self.builder.emit_condition(cv);
                self.builder.exit_region();
                self.builder.exit_scope();
                Ok(())
            }
            Stmt::For {
                init,
                cond,
                step,
                body,
                ..
            } => {
                self.builder.enter_scope();
                self.sema.push_scope();
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                let f = self.builder.create_region_op(OpKind::For, &[], &[], 3);
                self.builder.enter_region(f, 0, false);
                let cv = match cond {
                    Some(c) => {
                        let c = self.sema.condition(c)?;
                        self.full_expr_scalar(&c)?
                    }
                    None => self.builder.const_bool(true),
                };
                self.builder.emit_condition(cv);
                self.builder.exit_region();
                self.builder.enter_region(f, 1, false);
                self.loop_body(body)?;
                self.builder.exit_region();
                self.builder.enter_region(f, 2, false);
                if let Some(st) = step {
                    self.full_expr_ignored(st)?;
                }
                self.builder.exit_region();
                self.sema.pop_scope();
                self.builder.exit_scope();
                Ok(())
            }
            Stmt::Switch { cond, body, loc } => self.switch(cond, body, *loc),
            Stmt::Case(_, loc) | Stmt::Default(loc) => {
                unsupported(*loc, "case labels outside the top level of a switch body")
            }
            Stmt::Break(_) => {
                self.builder.emit_break();
                Ok(())
            }
            Stmt::Continue(_) => {
                self.builder.emit_continue();
                Ok(())
            }
            Stmt::Return(e, loc) => self.return_stmt(e.as_ref(), *loc),
            Stmt::Goto(label, loc) => {
                let path = self.builder.frame_path();
                if let Some(lpath) = self.labels.get(label) {
                    if !path.starts_with(lpath) {
                        return unsupported(
                            *loc,
                            format!("goto into a nested scope (label '{label}')"),
                        );
                    }
                } else {
                    self.gotos.push((label.clone(), path, *loc));
                }
                self.builder.emit_goto(label);
                Ok(())
            }
            Stmt::Label(label, loc) => {
                if self.labels.contains_key(label) {
                    return err(*loc, format!("redefinition of label '{label}'"));
                }
                self.labels.insert(label.clone(), self.builder.frame_path());
                self.builder.emit_label(label);
                Ok(())
            }
            Stmt::Try { body, handlers, .. } => {
                self.builder.enter_scope();
                self.builder.enter_try();
                self.sema.push_scope();
                let r = self.stmts(body);
                self.sema.pop_scope();
                r?;
                self.handlers(handlers, false)?;
                self.builder.exit_try();
                self.builder.exit_scope();
                Ok(())
            }
        }
    }

    fn loop_body(&mut self, body: &Stmt) -> CxxResult<()> {
        match body {
            Stmt::Block(..) => self.stmt(body),
            other => self.sub_stmt(other),
        }
    }

    /// The catch handlers of the innermost try. `rethrow_at_end`: a constructor's or
    /// destructor's function-try-block rethrows when a handler falls off its end.
    fn handlers(&mut self, handlers: &[ast::Handler], rethrow_at_end: bool) -> CxxResult<()> {
        // A handler for a type an earlier handler of the same try catches never runs
        // (g++ warns and drops it); `cir.try` may catch each type once.
        let mut caught = std::collections::BTreeSet::new();
        if let Some(h) = handlers
            .split_last()
            .and_then(|(_, before)| before.iter().find(|h| h.param.is_none()))
        {
            return err(
                h.loc,
                "'...' handler must be the last handler for its try block",
            );
        }
        for h in handlers {
            self.builder.set_loc(h.loc);
            self.sema.push_scope();
            match &h.param {
                None => {
                    let vp = self.builder.ctx.types.common().void_ptr;
                    self.builder.emit_catch(CatchKind::All, vp);
                }
                Some((texpr, name, ploc)) => {
                    let t = self.sema.prog.resolve_type(texpr, *ploc)?;
                    let t = match self.sema.prog.types.kind(t).clone() {
                        TyKind::Array(e, _) => self.sema.prog.types.ptr(e),
                        TyKind::Func { .. } => self.sema.prog.types.ptr(t),
                        _ => t,
                    };
                    let (obj_ty, by_ref) = match self.sema.prog.types.referee(t) {
                        Some(r) => (r, true),
                        None => (t, false),
                    };
                    let catch_ty = self.sema.prog.types.unqual(obj_ty);
                    if let Some(c) = self.sema.prog.types.class_of(catch_ty) {
                        let class = self.sema.prog.class(c);
                        if !(class.complete || class.external && by_ref) {
                            return err(
                                *ploc,
                                format!("cannot catch incomplete type '{}' by value", class.name),
                            );
                        }
                    }
                    if self.sema.prog.types.is_void(catch_ty) {
                        return err(*ploc, "cannot catch 'void'");
                    }
                    self.sema.prog.need_typeinfo(catch_ty);
                    let ti = self.sema.prog.typeinfo_symbol(catch_ty);
                    let ti = self.sym(&ti);
                    if !caught.insert(ti) {
                        self.sema.pop_scope();
                        continue;
                    }
                    let ct = self.cty(catch_ty);
                    // The handler receives libstdc++'s adjusted pointer: the address of
                    // the exception object, or for a pointer type the pointer itself.
                    let is_ptr_catch = self.sema.prog.types.is_ptr(catch_ty) && !by_ref;
                    let pt = if is_ptr_catch {
                        ct
                    } else {
                        self.builder.ctx.types.ptr(ct)
                    };
                    let p = self.builder.emit_catch(CatchKind::Type(ti), pt);
                    if let Some(name) = name {
                        if is_ptr_catch {
                            let id = self.sema.declare_local(name, obj_ty, *ploc)?;
                            let addr = self.builder.alloca(ct, name, true, 8);
                            self.builder.store(p, addr, 8);
                            self.set_storage(id, Storage::Addr(addr));
                        } else if by_ref {
                            let id = self.sema.declare_local(name, t, *ploc)?;
                            let slot = self.builder.alloca(pt, name, true, 8);
                            self.builder.store(p, slot, 8);
                            self.set_storage(id, Storage::RefSlot(slot));
                        } else if let Some(c) = self.sema.prog.types.class_of(catch_ty) {
                            // Copy-construct the handler's variable from the exception object.
                            let id = self.sema.declare_local(name, obj_ty, *ploc)?;
                            let align = self.align_of(catch_ty);
                            let addr = self.builder.alloca(ct, name, true, align);
                            self.set_storage(id, Storage::Addr(addr));
                            let src_local =
                                self.sema.declare_local(" exception", catch_ty, *ploc)?;
                            self.set_storage(src_local, Storage::Addr(p));
                            let src = TExpr {
                                kind: TypedExprKind::Local(src_local),
                                ty: catch_ty,
                                lvalue: true,
                                loc: *ploc,
                            };
                            let init =
                                self.sema
                                    .init_from_args(obj_ty, vec![src], true, false, *ploc)?;
                            let mark = self.builder.begin_full_expression();
                            self.class_into(&init, addr)?;
                            self.builder.end_full_expression(mark);
                            let _ = c;
                            self.push_destroy(CleanupKind::All, catch_ty, addr, false);
                        } else {
                            let id = self.sema.declare_local(name, obj_ty, *ploc)?;
                            let align = self.align_of(catch_ty);
                            let addr = self.builder.alloca(ct, name, true, align);
                            let v = self.builder.load(p, align);
                            self.builder.store(v, addr, align);
                            self.set_storage(id, Storage::Addr(addr));
                        }
                    }
                }
            }
            let r = self.stmts(&h.body);
            self.sema.pop_scope();
            r?;
            if rethrow_at_end && !self.builder.is_terminated() {
                self.builder.force_cleanups();
                self.builder.emit_rethrow();
            }
        }
        Ok(())
    }

    fn set_storage(&mut self, id: LocalId, st: Storage) {
        let i = id.0 as usize;
        if self.storage.len() <= i {
            self.storage.resize(i + 1, None);
        }
        self.storage[i] = Some(st);
    }

    fn switch(&mut self, cond: &ast::Expr, body: &Stmt, loc: Loc) -> CxxResult<()> {
        let Stmt::Block(stmts, _) = body else {
            return unsupported(loc, "switch without a compound statement body");
        };
        for s in stmts {
            if contains_case(s) && !matches!(s, Stmt::Case(..) | Stmt::Default(_)) {
                return unsupported(
                    s.loc(),
                    "case labels nested inside statements of a switch body",
                );
            }
        }
        if let Some(first) = stmts.first()
            && !matches!(first, Stmt::Case(..) | Stmt::Default(_))
        {
            return unsupported(first.loc(), "statements before the first case label");
        }
        self.builder.enter_scope();
        self.sema.push_scope();
        let c = self.sema.rexpr(cond)?;
        if !self.sema.prog.types.is_integral(c.ty) {
            return err(
                cond.loc,
                format!(
                    "statement requires expression of integer type ('{}' invalid)",
                    self.sema.prog.type_name(c.ty)
                ),
            );
        }
        let int = self.sema.prog.types.builtin(Builtin::Int);
        let cty_ = if self.sema.prog.types.int_rank(c.ty) < 3 {
            int
        } else {
            self.sema.prog.types.unqual(c.ty)
        };
        let c = self.sema.convert(c, cty_, cond.loc)?;
        let v = self.full_expr_scalar(&c)?;
        let ct = self.cty(cty_);
        let sw = self.builder.create_region_op(OpKind::Switch, &[v], &[], 1);
        self.builder.enter_region(sw, 0, false);
        let mut seen: Vec<i128> = Vec::new();
        let mut has_default = false;
        let mut in_case = false;
        for s in stmts {
            match s {
                Stmt::Case(e, cloc) => {
                    let te = self.sema.expr(e)?;
                    let te = self.sema.convert(te, cty_, *cloc)?;
                    let Some(val) = crate::sema::const_value(&te) else {
                        return err(*cloc, "case value is not a constant expression");
                    };
                    if seen.contains(&val) {
                        return err(*cloc, format!("duplicate case value '{val}'"));
                    }
                    seen.push(val);
                    if in_case {
                        self.builder.exit_region();
                    }
                    let a = self
                        .builder
                        .ctx
                        .attrs
                        .intern(AttrData::Int { value: val, ty: ct });
                    self.builder.enter_case(ehir_core::CaseKind::Equal, vec![a]);
                    in_case = true;
                }
                Stmt::Default(dloc) => {
                    if has_default {
                        return err(*dloc, "multiple default labels in one switch");
                    }
                    has_default = true;
                    if in_case {
                        self.builder.exit_region();
                    }
                    self.builder
                        .enter_case(ehir_core::CaseKind::Default, vec![]);
                    in_case = true;
                }
                other => self.stmt(other)?,
            }
        }
        if in_case {
            self.builder.exit_region();
        }
        self.builder.exit_region();
        self.sema.pop_scope();
        self.builder.exit_scope();
        Ok(())
    }

    fn return_stmt(&mut self, e: Option<&ast::Expr>, loc: Loc) -> CxxResult<()> {
        let ret = self.ret_ty;
        let types = &self.sema.prog.types;
        let Some(e) = e else {
            if !types.is_void(ret) {
                return err(loc, "non-void function should return a value");
            }
            self.builder.emit_return(None);
            return Ok(());
        };
        if types.is_void(ret) {
            let te = self.sema.expr(e)?;
            if !self.sema.prog.types.is_void(te.ty) {
                return err(loc, "void function should not return a value");
            }
            let mark = self.builder.begin_full_expression();
            self.ignored(&te)?;
            self.builder.end_full_expression(mark);
            self.builder.emit_return(None);
            return Ok(());
        }
        if types.is_class(ret) {
            let sret = self.sret.expect("class return has sret");
            if let (Some(n), ast::ExprKind::Name(x)) = (&self.nrvo, &e.kind)
                && n == x
            {
                self.builder.emit_return(None);
                return Ok(());
            }
            let te = self.sema.expr(e)?;
            let te = self.sema.convert(te, ret, loc)?;
            let mark = self.builder.begin_full_expression();
            self.class_into(&te, sret)?;
            self.builder.end_full_expression(mark);
            self.builder.emit_return(None);
            return Ok(());
        }
        let te = self.sema.expr(e)?;
        let te = self.sema.convert(te, ret, loc)?;
        let retval = self.retval.expect("non-void function has a return slot");
        let mark = self.builder.begin_full_expression();
        let v = if self.sema.prog.types.referee(ret).is_some() {
            self.lvalue(&te)?
        } else {
            self.scalar(&te)?
        };
        self.builder.store(v, retval, 0);
        self.builder.end_full_expression(mark);
        let r = self.builder.load(retval, 0);
        self.builder.emit_return(Some(r));
        Ok(())
    }

    // ---- declarations ----------------------------------------------------------------------------

    fn local_decl(&mut self, d: &VarDecl) -> CxxResult<()> {
        let ast::DeclName::Ident(name) = &d.name else {
            return err(d.loc, "invalid local variable name");
        };
        if d.is_extern {
            return unsupported(d.loc, "local extern declarations");
        }
        let t = self.local_type(d)?;
        if self.sema.prog.types.is_void(t) || self.sema.prog.types.is_func(t) {
            return err(d.loc, format!("variable '{name}' has invalid type"));
        }
        if let Some(c) = self.sema.prog.types.class_of(t)
            && !self.sema.prog.class(c).complete
        {
            return err(
                d.loc,
                format!(
                    "variable '{name}' has incomplete type '{}'",
                    self.sema.prog.class(c).name
                ),
            );
        }
        if d.is_static {
            return self.static_local(d, name, t);
        }
        let loc = d.loc;
        if let Some(referee) = self.sema.prog.types.referee(t) {
            let init = match &d.init {
                Init::Copy(e) => e,
                Init::Direct(v) if v.len() == 1 => &v[0],
                _ => {
                    return err(
                        loc,
                        format!(
                            "declaration of reference variable '{name}' requires an initializer"
                        ),
                    );
                }
            };
            let te = self.sema.expr(init)?;
            let bound = self.sema.convert(te, t, loc)?;
            let rct = self.cty(referee);
            let rpt = self.builder.ctx.types.ptr(rct);
            let id = self.sema.declare_local(name, t, loc)?;
            let slot = self.builder.alloca(rpt, name, true, 8);
            self.set_storage(id, Storage::RefSlot(slot));
            if let TypedExprKind::BindTemp(x) = &bound.kind {
                // Lifetime extension: the temporary lives as long as the reference.
                let xt = x.ty;
                let xct = self.cty(xt);
                let tmp = self.builder.alloca(xct, "ref.tmp", true, self.align_of(xt));
                let mark = self.builder.begin_full_expression();
                self.init_into(x, tmp)?;
                self.builder.store(tmp, slot, 8);
                self.builder.end_full_expression(mark);
                self.push_destroy(CleanupKind::All, xt, tmp, false);
                return Ok(());
            }
            let mark = self.builder.begin_full_expression();
            let addr = self.lvalue(&bound)?;
            self.builder.store(addr, slot, 8);
            self.builder.end_full_expression(mark);
            return Ok(());
        }
        let ct = self.cty(t);
        let align = self.align_of(t);
        if let Some(c) = self.sema.prog.types.class_of(t) {
            let nrvo = self.nrvo.as_deref() == Some(name.as_str())
                && self.sema.prog.types.unqual(t) == self.sema.prog.types.unqual(self.ret_ty);
            let addr = if nrvo {
                self.sret.expect("sret")
            } else {
                self.builder.alloca(ct, name, true, align)
            };
            let id = self.sema.declare_local(name, t, loc)?;
            self.set_storage(id, Storage::Addr(addr));
            let init = match &d.init {
                Init::None => self.sema.init_from_args(t, vec![], true, false, loc)?,
                Init::Copy(e) => {
                    let te = self.sema.expr(e)?;
                    self.sema.convert(te, t, loc)?
                }
                Init::Direct(args) => {
                    let targs = args
                        .iter()
                        .map(|a| self.sema.expr(a))
                        .collect::<CxxResult<Vec<_>>>()?;
                    self.sema.init_from_args(t, targs, true, false, loc)?
                }
                Init::List(items, lloc) => self.class_list_init(c, t, items, *lloc)?,
            };
            let mark = self.builder.begin_full_expression();
            self.class_into(&init, addr)?;
            self.builder.end_full_expression(mark);
            let kind = if nrvo {
                CleanupKind::Eh
            } else {
                CleanupKind::All
            };
            self.push_destroy(kind, t, addr, false);
            return Ok(());
        }
        if let TyKind::Array(elem, n) = self.sema.prog.types.kind(t).clone() {
            let addr = self.builder.alloca(ct, name, true, align);
            let id = self.sema.declare_local(name, t, loc)?;
            self.set_storage(id, Storage::Addr(addr));
            return self.array_init(addr, t, elem, n, &d.init, loc);
        }
        // Scalars.
        let addr = self.builder.alloca(ct, name, true, align);
        let init = match &d.init {
            Init::None => None,
            Init::Copy(e) => Some(e.clone()),
            Init::Direct(v) if v.len() == 1 => Some(v[0].clone()),
            Init::Direct(_) => return err(loc, "excess elements in scalar initializer"),
            Init::List(v, _) if v.len() == 1 => Some(v[0].clone()),
            Init::List(v, lloc) if v.is_empty() => {
                let id = self.sema.declare_local(name, t, loc)?;
                self.set_storage(id, Storage::Addr(addr));
                let z = self.zero_value(t);
                self.builder.set_loc(*lloc);
                self.builder.store(z, addr, align);
                return Ok(());
            }
            Init::List(..) => return err(loc, "excess elements in scalar initializer"),
        };
        let const_value = match &init {
            Some(e) if self.sema.prog.types.is_const(t) && self.sema.prog.types.is_integral(t) => {
                let te = self.sema.expr(e)?;
                let te = self.sema.convert(te, t, loc)?;
                crate::sema::const_value(&te)
            }
            _ => None,
        };
        if let Some(e) = init {
            let te = self.sema.expr(&e)?;
            let te = self.sema.convert(te, t, loc)?;
            let mark = self.builder.begin_full_expression();
            let v = self.scalar(&te)?;
            self.builder.store(v, addr, align);
            self.builder.end_full_expression(mark);
        }
        let id = self.sema.declare_local(name, t, loc)?;
        self.set_storage(id, Storage::Addr(addr));
        self.sema.locals[id.0 as usize].const_value = const_value;
        Ok(())
    }

    /// The type of a local, sizing `T x[] = {...}` from its initializer.
    fn local_type(&mut self, d: &VarDecl) -> CxxResult<Ty> {
        if let ast::TypeExpr::Array(inner, None) = &d.ty {
            let n = match &d.init {
                Init::List(items, _) => items.len() as u64,
                Init::Copy(ast::Expr {
                    kind: ast::ExprKind::Str(s),
                    ..
                }) => s.len() as u64 + 1,
                _ => return err(d.loc, "array size missing and no initializer to deduce it"),
            };
            if n == 0 {
                return err(d.loc, "zero-size array");
            }
            let et = self.sema.prog.resolve_type(inner, d.loc)?;
            return Ok(self.sema.prog.types.intern(TyKind::Array(et, n), false));
        }
        self.sema.prog.resolve_type(&d.ty, d.loc)
    }

    /// `T x = {a, b}` / `T x{a, b}`: aggregate initialization of a simple aggregate, or
    /// a constructor call with the listed arguments.
    fn class_list_init(
        &mut self,
        c: ClassId,
        t: Ty,
        items: &[ast::Expr],
        loc: Loc,
    ) -> CxxResult<TExpr> {
        let has_user_ctor = self.sema.prog.class(c).methods.iter().any(|&m| {
            self.sema.prog.func(m).kind == FuncKind::Ctor
                && self.sema.prog.func(m).implicit.is_none()
        });
        let targs = items
            .iter()
            .map(|a| self.sema.expr(a))
            .collect::<CxxResult<Vec<_>>>()?;
        if has_user_ctor
            || targs.len() == 1 && self.sema.prog.types.class_of(targs[0].ty) == Some(c)
        {
            let value_init = targs.is_empty();
            return self.sema.init_from_args(t, targs, true, value_init, loc);
        }
        unsupported(loc, "aggregate initialization of classes")
    }

    fn array_init(
        &mut self,
        addr: Value,
        t: Ty,
        elem: Ty,
        n: u64,
        init: &Init,
        loc: Loc,
    ) -> CxxResult<()> {
        let align = self.align_of(elem);
        if self.sema.prog.types.is_class(elem) {
            match init {
                Init::None => {
                    let def = self.sema.init_from_args(elem, vec![], true, false, loc)?;
                    let TypedExprKind::Construct { ctor, .. } = def.kind else {
                        return Ok(());
                    };
                    self.array_ctor(addr, elem, ctor)?;
                }
                Init::List(items, _) => {
                    if items.len() as u64 > n {
                        return err(loc, "excess elements in array initializer");
                    }
                    let ect = self.cty(elem);
                    let ept = self.builder.ctx.types.ptr(ect);
                    let first = self.builder.cast(CastKind::ArrayToPtrDecay, addr, ept);
                    let s64 = self.builder.ctx.types.common().s64;
                    let depth = self.builder.cleanup_depth();
                    let mark = self.builder.begin_full_expression();
                    for i in 0..n as usize {
                        let te = match items.get(i) {
                            Some(e) => {
                                let x = self.sema.expr(e)?;
                                self.sema.convert(x, elem, e.loc)?
                            }
                            None => self.sema.init_from_args(elem, vec![], true, true, loc)?,
                        };
                        let idx = self.builder.const_int(s64, i as i128);
                        let p = self.builder.ptr_stride(first, idx);
                        self.class_into(&te, p)?;
                        // The element is destroyed if a later one throws.
                        self.push_destroy(CleanupKind::Eh, elem, p, false);
                    }
                    let _ = mark;
                    self.builder.pop_cleanups_to(depth);
                }
                _ => {
                    return err(
                        loc,
                        "array must be initialized with a brace-enclosed initializer",
                    );
                }
            }
            self.push_destroy(CleanupKind::All, t, addr, false);
            return Ok(());
        }
        match init {
            Init::None => Ok(()),
            Init::List(items, _) => {
                if items.len() as u64 > n {
                    return err(loc, "excess elements in array initializer");
                }
                let z = self.zero_value(t);
                self.builder.store(z, addr, align);
                let ect = self.cty(elem);
                let ept = self.builder.ctx.types.ptr(ect);
                let first = self.builder.cast(CastKind::ArrayToPtrDecay, addr, ept);
                let s64 = self.builder.ctx.types.common().s64;
                for (i, e) in items.iter().enumerate() {
                    let x = self.sema.expr(e)?;
                    let te = self.sema.convert(x, elem, e.loc)?;
                    let mark = self.builder.begin_full_expression();
                    let v = self.scalar(&te)?;
                    let idx = self.builder.const_int(s64, i as i128);
                    let p = self.builder.ptr_stride(first, idx);
                    self.builder.store(v, p, align);
                    self.builder.end_full_expression(mark);
                }
                Ok(())
            }
            Init::Copy(ast::Expr {
                kind: ast::ExprKind::Str(s),
                ..
            }) if self.is_char(elem) => {
                if s.len() as u64 + 1 > n {
                    return err(loc, "initializer-string for char array is too long");
                }
                let mut bytes = s.clone();
                bytes.resize(n as usize, 0);
                let ct = self.cty(t);
                let a = self.builder.ctx.attrs.intern(AttrData::ConstArray {
                    elements: ehir_core::ConstArrayElements::Bytes(bytes),
                    ty: ct,
                });
                let v = self
                    .builder
                    .build_value(OpKind::Const { value: a }, &[], ct);
                self.builder.store(v, addr, align);
                Ok(())
            }
            _ => err(
                loc,
                "array must be initialized with a brace-enclosed initializer",
            ),
        }
    }

    fn is_char(&self, t: Ty) -> bool {
        matches!(
            self.sema.prog.types.kind(t),
            TyKind::Builtin(Builtin::Char | Builtin::SChar | Builtin::UChar)
        )
    }

    /// `cir.array.ctor` calling the default constructor on each element, with a cleanup
    /// region that destroys one element (lowering-prepare turns it into the partial
    /// destruction loop).
    fn array_ctor(&mut self, addr: Value, elem: Ty, ctor: FuncId) -> CxxResult<()> {
        let (csym, csig, cnothrow) = self.callee_symbol(ctor, Variant::Complete);
        let dtor = self.dtor_of(elem, Variant::Complete);
        let ect = self.cty(elem);
        let ept = self.builder.ctx.types.ptr(ect);
        let op = self.builder.create_region_op(
            OpKind::ArrayCtor,
            &[addr],
            &[],
            if dtor.is_some() { 2 } else { 1 },
        );
        let entry = self.builder.enter_region(op, 0, false);
        let e = self.builder.add_block_param(entry, ept);
        self.builder.call(csym, csig, &[e], flags(cnothrow));
        self.builder.exit_region();
        if let Some((dsym, dsig)) = dtor {
            let entry = self.builder.enter_region(op, 1, false);
            let e = self.builder.add_block_param(entry, ept);
            self.builder.call(dsym, dsig, &[e], flags(true));
            self.builder.exit_region();
        }
        Ok(())
    }

    fn static_local(&mut self, d: &VarDecl, name: &str, t: Ty) -> CxxResult<()> {
        let trivial_class = self.sema.prog.types.class_of(t).is_some_and(|c| {
            let c = self.sema.prog.class(c);
            c.trivial_default_ctor && c.trivial_dtor
        });
        if (self.sema.prog.types.is_class(t) || self.sema.prog.types.referee(t).is_some())
            && (!trivial_class || !matches!(d.init, Init::None))
        {
            return unsupported(
                d.loc,
                "static local variables that need dynamic initialization or destruction",
            );
        }
        let fname = self.sema.prog.func(self.fid).mangled.clone();
        let count = self.static_counts.entry(name.to_string()).or_insert(0);
        let symbol = crate::mangle::local_static_name(&fname, name, *count);
        *count += 1;
        let init = crate::global_init(self.sema.prog, t, Some(&d.init), d.loc)?;
        let const_value = match &init {
            GlobalInit::Int(v) if self.sema.prog.types.is_const(t) => Some(*v),
            _ => None,
        };
        self.extras.static_locals.push(GlobalVar {
            name: name.to_string(),
            symbol: symbol.clone(),
            ty: t,
            init,
            internal: true,
            loc: d.loc,
            const_value,
            class: None,
            defined: true,
            seq: 0,
            ast_init: None,
        });
        let id = self.sema.declare_local(name, t, d.loc)?;
        self.sema.locals[id.0 as usize].const_value = const_value;
        let sym = self.sym(&symbol);
        let ct = self.cty(t);
        self.set_storage(id, Storage::Global(sym, ct));
        Ok(())
    }
}

fn contains_case(s: &Stmt) -> bool {
    match s {
        Stmt::Case(..) | Stmt::Default(_) => true,
        Stmt::Block(v, _) => v.iter().any(contains_case),
        Stmt::If { then, els, .. } => {
            contains_case(then) || els.as_deref().is_some_and(contains_case)
        }
        Stmt::While { body, .. } | Stmt::DoWhile { body, .. } | Stmt::For { body, .. } => {
            contains_case(body)
        }
        Stmt::Try { body, handlers, .. } => {
            body.iter().any(contains_case)
                || handlers.iter().any(|h| h.body.iter().any(contains_case))
        }
        _ => false,
    }
}

/// `cir.array.dtor`: destroys every element of the array at `addr` (in reverse order).
fn emit_array_dtor(
    b: &mut FunctionBuilder<'_>,
    addr: Value,
    elem_ptr: Type,
    dsym: Symbol,
    dsig: Type,
) {
    let op = b.create_region_op(OpKind::ArrayDtor, &[addr], &[], 1);
    let entry = b.enter_region(op, 0, false);
    let e = b.add_block_param(entry, elem_ptr);
    b.call(dsym, dsig, &[e], flags(true));
    b.exit_region();
}

/// Destroys the elements in `[begin, *cur)` from the last to the first.
fn emit_partial_destroy(
    b: &mut FunctionBuilder<'_>,
    cur: Value,
    begin: Value,
    dsym: Symbol,
    dsig: Type,
) {
    let w = b.create_region_op(OpKind::While, &[], &[], 2);
    b.enter_region(w, 0, false);
    let c = b.load(cur, 8);
    let ne = b.cmp(CmpPredicate::Ne, c, begin);
    b.emit_condition(ne);
    b.exit_region();
    b.enter_region(w, 1, false);
    let c = b.load(cur, 8);
    let s64 = b.ctx.types.common().s64;
    let m1 = b.const_int(s64, -1);
    let prev = b.ptr_stride(c, m1);
    b.call(dsym, dsig, &[prev], flags(true));
    b.store(prev, cur, 8);
    b.exit_region();
}

/// Finds the variable every `return` of a function returns, when it is a local of the
/// function's class return type declared in the body (g++ applies the named return value
/// optimization to it).
fn nrvo_candidate(stmts: &[Stmt]) -> Option<String> {
    let mut returns: Vec<Option<String>> = Vec::new();
    let mut decls: Vec<String> = Vec::new();
    fn walk(s: &Stmt, returns: &mut Vec<Option<String>>, decls: &mut Vec<String>) {
        match s {
            Stmt::Return(
                Some(ast::Expr {
                    kind: ast::ExprKind::Name(n),
                    ..
                }),
                _,
            ) => returns.push(Some(n.clone())),
            Stmt::Return(_, _) => returns.push(None),
            Stmt::Decl(ds) => {
                for d in ds {
                    if let ast::DeclName::Ident(n) = &d.name
                        && !d.is_static
                        && !matches!(
                            d.ty,
                            ast::TypeExpr::Ref(_)
                                | ast::TypeExpr::Const(_)
                                | ast::TypeExpr::Array(..)
                        )
                    {
                        decls.push(n.clone());
                    }
                }
            }
            Stmt::Block(v, _) => v.iter().for_each(|s| walk(s, returns, decls)),
            Stmt::If { then, els, .. } => {
                walk(then, returns, decls);
                if let Some(e) = els {
                    walk(e, returns, decls);
                }
            }
            Stmt::While { body, .. } | Stmt::DoWhile { body, .. } | Stmt::Switch { body, .. } => {
                walk(body, returns, decls)
            }
            Stmt::For { init, body, .. } => {
                if let Some(i) = init {
                    walk(i, returns, decls);
                }
                walk(body, returns, decls);
            }
            Stmt::Try { body, handlers, .. } => {
                body.iter().for_each(|s| walk(s, returns, decls));
                for h in handlers {
                    h.body.iter().for_each(|s| walk(s, returns, decls));
                }
            }
            _ => {}
        }
    }
    for s in stmts {
        walk(s, &mut returns, &mut decls);
    }
    let first = returns.first()?.clone()?;
    if returns.iter().all(|r| r.as_deref() == Some(first.as_str()))
        && decls.iter().filter(|d| **d == first).count() == 1
    {
        Some(first)
    } else {
        None
    }
}

/// Compiles one function definition (or an implicitly defined special member).
pub fn gen_function(
    prog: &mut Program,
    ctx: &mut ModuleCtx,
    fid: FuncId,
    extras: &mut Extras,
) -> CxxResult<Vec<Function>> {
    let func = prog.func(fid);
    let class = func.class;
    let kind = func.kind;
    let implicit = func.implicit;
    let body = func.body.clone();
    let ret = func.ret;
    let params = func.params.clone();
    let param_names = func.param_names.clone();
    let param_locs = func.param_locs.clone();
    let is_const = func.is_const;
    let spec = func.spec.clone();
    let loc = func.loc;
    let visible = func.visible;
    let is_ctor_dtor = matches!(kind, FuncKind::Ctor | FuncKind::Dtor);
    let name = if is_ctor_dtor {
        prog.base_variant_name(fid)
    } else {
        func.mangled.clone()
    };
    let linkage = if func.internal {
        Linkage::Internal
    } else if func.inline || implicit.is_some() {
        Linkage::LinkOnceOdr
    } else {
        Linkage::External
    };
    let nothrow = prog.is_nothrow(fid);
    let is_main = func.ident == "main" && class.is_none();
    let sig = prog.cir_sig(ctx, fid);
    let (param_types, _, _) = ctx
        .types
        .func_info(sig)
        .map(|(p, r, v)| (p.to_vec(), r, v))
        .unwrap_or_default();
    let is_static_method = matches!(kind, FuncKind::Method { is_static: true });
    let nrvo = if prog.types.is_class(ret) {
        body.as_ref().and_then(|b| nrvo_candidate(&b.stmts))
    } else {
        None
    };
    let mut b = FunctionBuilder::new(ctx, &name, sig, &param_types);
    b.func_mut().linkage = linkage;
    b.func_mut().nothrow = nothrow;
    b.func_mut().loc = loc;
    b.set_loc(loc);
    let sema = Sema::new(prog, class, is_const, is_static_method, visible);
    let mut g = FnGen {
        sema,
        builder: b,
        fid,
        storage: Vec::new(),
        this_val: None,
        sret: None,
        retval: None,
        ret_ty: ret,
        nrvo,
        labels: HashMap::new(),
        gotos: Vec::new(),
        extras,
        static_counts: HashMap::new(),
    };
    let entry_params = g.builder.params();
    let mut pi = 0;
    if g.sema.prog.types.is_class(ret) {
        g.sret = Some(entry_params[0]);
        pi += 1;
    }
    let has_this = matches!(
        kind,
        FuncKind::Ctor | FuncKind::Dtor | FuncKind::Method { is_static: false }
    );
    if has_this {
        let p = entry_params[pi];
        pi += 1;
        let pt = g.builder.value_type(p);
        let slot = g.builder.alloca(pt, "this", true, 8);
        g.builder.store(p, slot, 0);
        g.this_val = Some(g.builder.load(slot, 0));
    }
    if !g.sema.prog.types.is_void(ret) && !g.sema.prog.types.is_class(ret) {
        let ct = g.cty(ret);
        g.retval = Some(g.builder.alloca(ct, "__retval", false, 0));
    }
    for (i, &pt) in params.iter().enumerate() {
        let v = entry_params[pi + i];
        let Some(pname) = param_names.get(i).cloned().flatten() else {
            continue;
        };
        let ploc = param_locs.get(i).copied().unwrap_or(loc);
        let id = g.sema.declare_local(&pname, pt, ploc)?;
        if g.sema.prog.types.is_class(pt) {
            g.set_storage(id, Storage::Addr(v));
        } else if g.sema.prog.types.referee(pt).is_some() {
            let vt = g.builder.value_type(v);
            let slot = g.builder.alloca(vt, &pname, true, 8);
            g.builder.store(v, slot, 8);
            g.set_storage(id, Storage::RefSlot(slot));
        } else {
            let vt = g.builder.value_type(v);
            let align = g.align_of(pt);
            let slot = g.builder.alloca(vt, &pname, true, align);
            g.builder.store(v, slot, align);
            g.set_storage(id, Storage::Addr(slot));
        }
    }
    // Exception specification boundary.
    let spec_try = match (&spec, kind) {
        (_, FuncKind::Dtor) | (Spec::Noexcept, _) | (Spec::Throw(_), _) => {
            Some(g.builder.enter_try())
        }
        (Spec::None, _) => None,
    };
    let handlers = body.as_ref().and_then(|b| b.handlers.clone());
    if handlers.is_some() {
        g.builder.enter_try();
    }
    g.sema.push_scope();
    let r = gen_body(&mut g, class, kind, implicit, body.as_deref(), loc);
    g.sema.pop_scope();
    r?;
    g.builder.force_cleanups();
    if let Some(h) = &handlers {
        g.handlers(h, is_ctor_dtor)?;
        g.builder.exit_try();
    }
    if let Some(op) = spec_try {
        match &spec {
            Spec::Throw(types) if !matches!(kind, FuncKind::Dtor) => {
                let mut syms = Vec::new();
                for &t in types {
                    g.sema.prog.need_typeinfo(t);
                    let n = g.sema.prog.typeinfo_symbol(t);
                    syms.push(g.builder.ctx.sym(&n));
                }
                g.builder.emit_filter(&syms);
            }
            _ => g.builder.emit_terminate(),
        }
        g.builder.exit_try();
        // A destructor body that cannot throw needs no terminate boundary.
        if matches!(kind, FuncKind::Dtor) {
            g.builder.unwrap_if_nothrow(op);
        }
    }
    // Falling off the end.
    if !g.builder.is_terminated() {
        if is_main {
            let rv = g.retval.expect("main returns int");
            let ct = g.builder.value_type(rv);
            let ct = g.builder.ctx.types.pointee(ct).expect("pointer");
            let z = g.builder.const_int(ct, 0);
            g.builder.store(z, rv, 0);
            let r = g.builder.load(rv, 0);
            g.builder.emit_return(Some(r));
        } else if !(g.sema.prog.types.is_void(ret)
            || g.sema.prog.types.is_class(ret) && is_ctor_dtor)
        {
            g.builder.emit_unreachable();
        }
    }
    // Every goto must target a label in an enclosing scope.
    for (label, path, gloc) in std::mem::take(&mut g.gotos) {
        match g.labels.get(&label) {
            None => return err(gloc, format!("use of undeclared label '{label}'")),
            Some(lpath) if !path.starts_with(lpath) => {
                return unsupported(gloc, format!("goto into a nested scope (label '{label}')"));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let f = g
        .builder
        .finish()
        .map_err(|e| ehir_core::Diagnostic::error(loc, format!("internal error: {e}")))?;
    out.push(f);
    Ok(out)
}

/// The body proper: member initialization for constructors, member destruction for
/// destructors, the statements, and implicit special members.
fn gen_body(
    g: &mut FnGen<'_, '_>,
    class: Option<ClassId>,
    kind: FuncKind,
    implicit: Option<Implicit>,
    body: Option<&ast::FunctionBody>,
    loc: Loc,
) -> CxxResult<()> {
    match (kind, class) {
        (FuncKind::Ctor, Some(c)) => {
            let inits = body.map(|b| b.inits.clone()).unwrap_or_default();
            gen_ctor_prologue(g, c, &inits, implicit, loc)?;
            if let Some(b) = body {
                g.stmts(&b.stmts)?;
            }
            Ok(())
        }
        (FuncKind::Dtor, Some(c)) => {
            gen_dtor_cleanups(g, c)?;
            if let Some(b) = body {
                g.stmts(&b.stmts)?;
            }
            Ok(())
        }
        (FuncKind::Method { .. }, Some(c)) if implicit == Some(Implicit::CopyAssign) => {
            gen_copy_assign(g, c, loc)
        }
        _ => match body {
            Some(b) => g.stmts(&b.stmts),
            None => Ok(()),
        },
    }
}

/// The source object of an implicit copy constructor or assignment (its parameter).
fn copy_source(g: &mut FnGen<'_, '_>, c: ClassId, loc: Loc) -> CxxResult<TExpr> {
    let p = *g.builder.params().last().expect("copy has a parameter");
    let ct = g.sema.prog.types.class(c);
    let cct = g.sema.prog.types.with_const(ct, true);
    let id = g.sema.declare_local(" source", cct, loc)?;
    g.set_storage(id, Storage::Addr(p));
    Ok(TExpr {
        kind: TypedExprKind::Local(id),
        ty: cct,
        lvalue: true,
        loc,
    })
}

fn this_object(g: &mut FnGen<'_, '_>, c: ClassId, loc: Loc) -> TExpr {
    let ct = g.sema.prog.types.class(c);
    let pt = g.sema.prog.types.ptr(ct);
    let this = TExpr {
        kind: TypedExprKind::This,
        ty: pt,
        lvalue: false,
        loc,
    };
    TExpr {
        kind: TypedExprKind::Deref(Box::new(this)),
        ty: ct,
        lvalue: true,
        loc,
    }
}

/// Constructs bases and members (each followed by an EH-only cleanup that destroys it
/// if a later initialization or the body throws).
fn gen_ctor_prologue(
    g: &mut FnGen<'_, '_>,
    c: ClassId,
    inits: &[ast::MemInit],
    implicit: Option<Implicit>,
    loc: Loc,
) -> CxxResult<()> {
    let this = g.this_val.expect("constructors have this");
    let source = if implicit == Some(Implicit::CopyCtor) {
        Some(copy_source(g, c, loc)?)
    } else {
        None
    };
    // Every initializer must name a base or a member, once.
    for (i, mi) in inits.iter().enumerate() {
        let is_base = g
            .sema
            .prog
            .class(c)
            .bases
            .iter()
            .any(|b| g.sema.prog.class(b.class).name == mi.name);
        let is_field = g
            .sema
            .prog
            .class(c)
            .fields
            .iter()
            .any(|f| f.name == mi.name);
        if !is_base && !is_field {
            return err(
                mi.loc,
                format!(
                    "member initializer '{}' does not name a non-static data member or base class",
                    mi.name
                ),
            );
        }
        if inits[..i].iter().any(|o| o.name == mi.name) {
            return err(
                mi.loc,
                format!("multiple initializations given for '{}'", mi.name),
            );
        }
    }
    let bases = g.sema.prog.class(c).bases.clone();
    for (i, base) in bases.iter().enumerate() {
        let bname = g.sema.prog.class(base.class).name.clone();
        let bt = g.sema.prog.types.class(base.class);
        let mi = inits.iter().find(|m| m.name == bname);
        let init = if let Some(src) = &source {
            let sb = TExpr {
                kind: TypedExprKind::ToBase {
                    expr: Box::new(src.clone()),
                    path: vec![(c, i)],
                },
                ty: g.sema.prog.types.with_const(bt, true),
                lvalue: true,
                loc,
            };
            g.sema.init_from_args(bt, vec![sb], true, false, loc)?
        } else {
            match mi {
                Some(m) => {
                    let targs = m
                        .args
                        .iter()
                        .map(|a| g.sema.expr(a))
                        .collect::<CxxResult<Vec<_>>>()?;
                    let vi = targs.is_empty();
                    g.sema.init_from_args(bt, targs, true, vi, m.loc)?
                }
                None => g.sema.init_from_args(bt, vec![], true, false, loc)?,
            }
        };
        g.builder.set_loc(mi.map(|m| m.loc).unwrap_or(loc));
        let mark = g.builder.begin_full_expression();
        let bt_cir = g.sema.prog.cir_type_of_class(g.builder.ctx, base.class);
        let addr = g
            .builder
            .base_class_addr(this, bt_cir, base.offset as u32, true);
        match &init.kind {
            TypedExprKind::Construct { ctor, args } => {
                g.construct(*ctor, addr, args, Variant::Base)?
            }
            _ => g.class_into(&init, addr)?,
        }
        g.builder.end_full_expression(mark);
        if let Some((dsym, dsig)) = g.dtor_of(bt, Variant::Base) {
            let off = base.offset as u32;
            g.builder.push_cleanup(CleanupKind::Eh, move |b| {
                let a = b.base_class_addr(this, bt_cir, off, true);
                b.call(dsym, dsig, &[a], flags(true));
            });
        }
    }
    let fields = g.sema.prog.class(c).fields.clone();
    for (fi, f) in fields.iter().enumerate() {
        let mi = inits.iter().find(|m| m.name == f.name);
        g.builder.set_loc(mi.map(|m| m.loc).unwrap_or(loc));
        let fct = g.cty(f.ty);
        let addr = g.builder.get_member(this, f.index, &f.name, fct);
        let falign = g.align_of(f.ty);
        let ft = f.ty;
        let mark = g.builder.begin_full_expression();
        if let Some(src) = &source {
            let sf = TExpr {
                kind: TypedExprKind::Field {
                    base: Box::new(src.clone()),
                    class: c,
                    field: fi,
                },
                ty: g.sema.prog.types.with_const(ft, true),
                lvalue: true,
                loc,
            };
            if g.sema.prog.types.is_class(ft) {
                let init = g.sema.init_from_args(ft, vec![sf], true, false, loc)?;
                g.class_into(&init, addr)?;
            } else if let TyKind::Array(e, _) = g.sema.prog.types.kind(ft).clone()
                && g.sema
                    .prog
                    .types
                    .class_of(e)
                    .is_some_and(|ec| !g.sema.prog.class(ec).trivial_copy_ctor)
            {
                return unsupported(
                    loc,
                    "implicit copy of arrays of classes with non-trivial copy constructors",
                );
            } else {
                let saddr = g.lvalue(&sf)?;
                let v = g.builder.load(saddr, falign);
                g.builder.store(v, addr, falign);
            }
        } else if g.sema.prog.types.is_class(ft) {
            let init = match (mi, &f.init) {
                (Some(m), _) => {
                    let targs = m
                        .args
                        .iter()
                        .map(|a| g.sema.expr(a))
                        .collect::<CxxResult<Vec<_>>>()?;
                    let vi = targs.is_empty();
                    g.sema.init_from_args(ft, targs, true, vi, m.loc)?
                }
                (None, Some(e)) => {
                    let te = g.sema.expr(e)?;
                    g.sema.convert(te, ft, e.loc)?
                }
                (None, None) => g.sema.init_from_args(ft, vec![], true, false, loc)?,
            };
            g.class_into(&init, addr)?;
        } else if let TyKind::Array(elem, n) = g.sema.prog.types.kind(ft).clone() {
            match mi {
                Some(m) if !m.args.is_empty() => {
                    return unsupported(m.loc, "initializing an array member with arguments");
                }
                Some(m) => {
                    g.array_init(addr, ft, elem, n, &Init::List(vec![], m.loc), m.loc)?;
                    g.builder.pop_cleanups_to(g.builder.cleanup_depth());
                }
                None => {
                    if g.sema.prog.types.is_class(elem) {
                        let def = g.sema.init_from_args(elem, vec![], true, false, loc)?;
                        if let TypedExprKind::Construct { ctor, .. } = def.kind {
                            g.array_ctor(addr, elem, ctor)?;
                        }
                    }
                }
            }
        } else {
            let value = match (mi, &f.init) {
                (Some(m), _) => match m.args.as_slice() {
                    [] => Some(TExpr {
                        kind: TypedExprKind::ZeroInit,
                        ty: g.sema.prog.types.unqual(ft),
                        lvalue: false,
                        loc: m.loc,
                    }),
                    [a] => {
                        let te = g.sema.expr(a)?;
                        Some(g.sema.convert(te, ft, a.loc)?)
                    }
                    _ => return err(m.loc, "excess elements in scalar initializer"),
                },
                (None, Some(e)) => {
                    let te = g.sema.expr(e)?;
                    Some(g.sema.convert(te, ft, e.loc)?)
                }
                (None, None) => None,
            };
            if let Some(v) = value {
                if g.sema.prog.types.referee(ft).is_some() {
                    return unsupported(loc, "reference members");
                }
                let v = g.scalar(&v)?;
                g.builder.store(v, addr, falign);
            }
        }
        g.builder.end_full_expression(mark);
        if g.sema.prog.types.referee(ft).is_none() {
            g.push_destroy(CleanupKind::Eh, ft, addr, false);
        }
    }
    Ok(())
}

/// A destructor destroys its members (reverse order) and then its bases after the body;
/// pushing their cleanups before the body makes `return` and the end of the body run them.
fn gen_dtor_cleanups(g: &mut FnGen<'_, '_>, c: ClassId) -> CxxResult<()> {
    let this = g.this_val.expect("destructors have this");
    let bases = g.sema.prog.class(c).bases.clone();
    for base in &bases {
        let bt = g.sema.prog.types.class(base.class);
        if let Some((dsym, dsig)) = g.dtor_of(bt, Variant::Base) {
            let bt_cir = g.sema.prog.cir_type_of_class(g.builder.ctx, base.class);
            let off = base.offset as u32;
            g.builder.push_cleanup(CleanupKind::All, move |b| {
                let a = b.base_class_addr(this, bt_cir, off, true);
                b.call(dsym, dsig, &[a], flags(true));
            });
        }
    }
    let fields = g.sema.prog.class(c).fields.clone();
    for f in &fields {
        let fct = g.cty(f.ty);
        match g.sema.prog.types.kind(f.ty).clone() {
            TyKind::Class(_) => {
                if let Some((dsym, dsig)) = g.dtor_of(f.ty, Variant::Complete) {
                    let (index, name) = (f.index, f.name.clone());
                    g.builder.push_cleanup(CleanupKind::All, move |b| {
                        let a = b.get_member(this, index, &name, fct);
                        b.call(dsym, dsig, &[a], flags(true));
                    });
                }
            }
            TyKind::Array(e, _) => {
                if let Some((dsym, dsig)) = g.dtor_of(e, Variant::Complete) {
                    let (index, name) = (f.index, f.name.clone());
                    let ect = g.cty(e);
                    let ept = g.builder.ctx.types.ptr(ect);
                    g.builder.push_cleanup(CleanupKind::All, move |b| {
                        let a = b.get_member(this, index, &name, fct);
                        emit_array_dtor(b, a, ept, dsym, dsig);
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The implicit copy assignment: bases, then members, then `return *this`.
fn gen_copy_assign(g: &mut FnGen<'_, '_>, c: ClassId, loc: Loc) -> CxxResult<()> {
    let src = copy_source(g, c, loc)?;
    let me = this_object(g, c, loc);
    let bases = g.sema.prog.class(c).bases.clone();
    for (i, base) in bases.iter().enumerate() {
        let bt = g.sema.prog.types.class(base.class);
        let cbt = g.sema.prog.types.with_const(bt, true);
        let dst = TExpr {
            kind: TypedExprKind::ToBase {
                expr: Box::new(me.clone()),
                path: vec![(c, i)],
            },
            ty: bt,
            lvalue: true,
            loc,
        };
        let s = TExpr {
            kind: TypedExprKind::ToBase {
                expr: Box::new(src.clone()),
                path: vec![(c, i)],
            },
            ty: cbt,
            lvalue: true,
            loc,
        };
        assign_member(g, dst, s, loc)?;
    }
    let fields = g.sema.prog.class(c).fields.clone();
    for (fi, f) in fields.iter().enumerate() {
        let dst = TExpr {
            kind: TypedExprKind::Field {
                base: Box::new(me.clone()),
                class: c,
                field: fi,
            },
            ty: f.ty,
            lvalue: true,
            loc,
        };
        let cft = g.sema.prog.types.with_const(f.ty, true);
        let s = TExpr {
            kind: TypedExprKind::Field {
                base: Box::new(src.clone()),
                class: c,
                field: fi,
            },
            ty: cft,
            lvalue: true,
            loc,
        };
        if let TyKind::Array(e, _) = g.sema.prog.types.kind(f.ty).clone() {
            if g.sema
                .prog
                .types
                .class_of(e)
                .is_some_and(|ec| !g.sema.prog.class(ec).trivial_copy_assign)
            {
                return unsupported(
                    loc,
                    "implicit assignment of arrays of classes with non-trivial assignment",
                );
            }
            let sa = g.lvalue(&s)?;
            let da = g.lvalue(&dst)?;
            let v = g.builder.load(sa, 0);
            g.builder.store(v, da, 0);
            continue;
        }
        assign_member(g, dst, s, loc)?;
    }
    let rv = g.retval.expect("operator= returns a reference");
    let this = g.this_val.expect("this");
    g.builder.store(this, rv, 0);
    let r = g.builder.load(rv, 0);
    g.builder.emit_return(Some(r));
    Ok(())
}

fn assign_member(g: &mut FnGen<'_, '_>, dst: TExpr, src: TExpr, loc: Loc) -> CxxResult<()> {
    let dst_ty = dst.ty;
    if g.sema.prog.types.is_class(dst_ty) {
        let a = g.s_assign(dst, src, loc)?;
        let mark = g.builder.begin_full_expression();
        g.ignored(&a)?;
        g.builder.end_full_expression(mark);
        return Ok(());
    }
    let sa = g.lvalue(&src)?;
    let da = g.lvalue(&dst)?;
    let align = g.align_of(dst_ty);
    let v = g.builder.load(sa, align);
    g.builder.store(v, da, align);
    Ok(())
}

impl FnGen<'_, '_> {
    /// Types `dst = src` for class members of an implicit assignment.
    fn s_assign(&mut self, dst: TExpr, src: TExpr, loc: Loc) -> CxxResult<TExpr> {
        let c = self.sema.prog.types.class_of(dst.ty).expect("class");
        let cands: Vec<FuncId> = self
            .sema
            .prog
            .class(c)
            .methods
            .iter()
            .copied()
            .filter(|&m| self.sema.prog.func(m).ident == "operator=")
            .collect();
        let f = self.sema.resolve_overload(
            &cands,
            std::slice::from_ref(&src),
            Some(false),
            "operator=",
            loc,
        )?;
        self.sema.use_func(f, loc)?;
        let func = self.sema.prog.func(f);
        if func.implicit.is_some() && func.trivial {
            let ty = dst.ty;
            return Ok(TExpr {
                kind: TypedExprKind::Assign(Box::new(dst), Box::new(src)),
                ty,
                lvalue: true,
                loc,
            });
        }
        let args = self.sema.convert_args(f, vec![src], loc)?;
        let ret = self.sema.prog.func(f).ret;
        let ty = self.sema.prog.types.referee(ret).unwrap_or(ret);
        Ok(TExpr {
            kind: TypedExprKind::Call {
                callee: Callee::Method {
                    func: f,
                    object: Box::new(dst),
                },
                args,
            },
            ty,
            lvalue: true,
            loc,
        })
    }
}

/// A thunk `C1(this, args) { C2(this, args) }` (or `D1` → `D2`).
pub fn gen_complete_variant(prog: &mut Program, ctx: &mut ModuleCtx, fid: FuncId) -> Function {
    let sig = prog.cir_sig(ctx, fid);
    let (param_types, _, _) = ctx
        .types
        .func_info(sig)
        .map(|(p, r, v)| (p.to_vec(), r, v))
        .unwrap_or_default();
    let func = prog.func(fid);
    let complete = func.mangled.clone();
    let base = prog.base_variant_name(fid);
    let nothrow = prog.is_nothrow(fid);
    let linkage = if func.internal {
        Linkage::Internal
    } else if func.inline || func.implicit.is_some() {
        Linkage::LinkOnceOdr
    } else {
        Linkage::External
    };
    let loc = func.loc;
    let mut b = FunctionBuilder::new(ctx, &complete, sig, &param_types);
    b.func_mut().linkage = linkage;
    b.func_mut().nothrow = nothrow;
    b.func_mut().loc = loc;
    let params = b.params();
    let base_sym = b.ctx.sym(&base);
    let result = b.call(base_sym, sig, &params, flags(nothrow));
    b.emit_return(result);
    b.finish().expect("a thunk is well formed")
}
