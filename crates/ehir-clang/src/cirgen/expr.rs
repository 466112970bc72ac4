//! Expressions: scalars (prvalues of arithmetic, pointer and bool type), lvalues
//! (addresses), initialization of objects in memory (constructors, temporaries,
//! aggregates), and calls — what Clang's `ScalarExprEmitter`, `EmitLValue` and
//! `AggExprEmitter` do.

use super::class::call_function;
use super::function::{FnGen, Local};
use super::subobjects::BaseStep;
use super::vtable::SlotKind;
use super::{R, error, loc_of, unsupported};
use crate::ast::{Node, RED_ZONE, STACK_SEGMENT};
use crate::types::{Builtin, CType};
use ehir_builder::Value;
use ehir_core::{BinaryOp, CallFlags, CastKind, CleanupKind, CmpPredicate, OpKind, Type, UnaryOp};

/// Skips parentheses.
pub fn strip_parens(mut e: &Node) -> &Node {
    while e.kind == "ParenExpr" {
        match e.children().next() {
            Some(inner) => e = inner,
            None => break,
        }
    }
    e
}

/// The call flags of a callee.
pub fn call_flags(nothrow: bool) -> CallFlags {
    CallFlags {
        nothrow,
        exception: false,
        noreturn: false,
    }
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Where a call whose result is returned through memory (`sret`) puts it: `dest`,
    /// or a new temporary; `None` for a call that returns its result directly.
    pub fn indirect_result_slot(
        &mut self,
        e: &'ast Node,
        signature: &super::function::Signature,
        dest: Option<Value>,
    ) -> R<Option<Value>> {
        if !signature.indirect_result {
            return Ok(None);
        }
        Ok(Some(match dest {
            Some(dest) => dest,
            None => {
                let cir = self.cir(e, &signature.result)?;
                let align = self.align(e, &signature.result)?;
                self.b.alloca(cir, "agg.tmp.result", false, align)
            }
        }))
    }

    /// The C++ type of an expression.
    pub fn ty(&mut self, e: &Node) -> R<CType> {
        self.st.node_type(e)
    }

    /// The CIR type of a C++ type.
    pub fn cir(&mut self, node: &Node, t: &CType) -> R<Type> {
        self.st.cir_type(self.b.ctx, node, t)
    }

    /// The alignment of a type (for loads and stores).
    pub fn align(&mut self, node: &Node, t: &CType) -> R<u16> {
        Ok(self.st.size_align(self.b.ctx, node, t)?.1 as u16)
    }

    /// The first child of a node, or an error.
    pub fn operand(&self, e: &'ast Node, index: usize) -> R<&'ast Node> {
        match e.children().nth(index) {
            Some(child) => Ok(child),
            None => error(e, format!("'{}' without operand {index}", e.kind)),
        }
    }

    /// Builder errors are reported at the expression that caused them.
    pub fn checked(&mut self, e: &Node) -> R<()> {
        self.b.set_loc(loc_of(e));
        self.b.check().map_err(|err| {
            let mut d = err.to_diagnostic();
            if d.loc == ehir_core::Loc::NONE {
                d.loc = loc_of(e);
            }
            d
        })
    }

    /// Evaluates an expression for its side effects.
    pub fn ignored(&mut self, e: &'ast Node) -> R<()> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.ignored_inner(e))
    }

    fn ignored_inner(&mut self, e: &'ast Node) -> R<()> {
        match e.kind.as_str() {
            "CXXThrowExpr" => return self.throw_expr(e),
            "ParenExpr" => return self.ignored(self.operand(e, 0)?),
            "ExprWithCleanups" => {
                let mark = self.b.begin_full_expression();
                self.ignored(self.operand(e, 0)?)?;
                self.b.end_full_expression(mark);
                return Ok(());
            }
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr"
                if e.cast_kind.as_deref() == Some("ToVoid") =>
            {
                return self.ignored(self.operand(e, 0)?);
            }
            "BinaryOperator" if e.opcode.as_deref() == Some(",") => {
                self.ignored(self.operand(e, 0)?)?;
                return self.ignored(self.operand(e, 1)?);
            }
            "CXXDeleteExpr" => return self.delete_expr(e),
            "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" => {
                let ty = self.ty(e)?;
                if self.st.is_class(&ty) && !ty.is_reference() {
                    return self.discarded_class(e, &ty);
                }
                self.call(e, None)?;
                return Ok(());
            }
            "ConditionalOperator" => {
                let ty = self.ty(e)?;
                if ty.is_void() {
                    return self.void_conditional(e);
                }
            }
            _ => {}
        }
        if is_glvalue(e) {
            self.lvalue(e)?;
            return Ok(());
        }
        let ty = self.ty(e)?;
        if self.st.is_class(&ty) {
            return self.discarded_class(e, &ty);
        }
        if ty.is_void() {
            return unsupported(e, format!("'{}' of type void", e.kind));
        }
        self.scalar(e)?;
        Ok(())
    }

    /// A class prvalue whose value is discarded: built in a temporary.
    fn discarded_class(&mut self, e: &'ast Node, ty: &CType) -> R<()> {
        let cir = self.cir(e, ty)?;
        let align = self.align(e, ty)?;
        let temp = self.b.alloca(cir, "agg.tmp.ensured", false, align);
        self.init_into(e, temp, false)
    }

    fn void_conditional(&mut self, e: &'ast Node) -> R<()> {
        let cond = self.scalar(self.operand(e, 0)?)?;
        // The temporaries of each arm exist only on its path.
        self.b.begin_conditional();
        let if_op = self.b.begin_if(cond, true);
        self.ignored(self.operand(e, 1)?)?;
        self.b.begin_else(if_op);
        self.ignored(self.operand(e, 2)?)?;
        self.b.end_if();
        self.b.end_conditional();
        Ok(())
    }

    /// A full expression whose scalar value is used after its temporaries are destroyed.
    fn full_expression_value(&mut self, e: &'ast Node, lvalue: bool) -> R<Value> {
        let inner = self.operand(e, 0)?;
        let mark = self.b.begin_full_expression();
        let value = if lvalue {
            self.lvalue(inner)?
        } else {
            self.scalar(inner)?
        };
        if !self.b.full_expression_has_cleanups(mark) {
            self.b.end_full_expression(mark);
            return Ok(value);
        }
        let ty = self.b.value_type(value);
        let slot = self.b.alloca(ty, "tmp.value", false, 0);
        self.b.store(value, slot, 0);
        self.b.end_full_expression(mark);
        Ok(self.b.load(slot, 0))
    }

    /// The value of a scalar expression.
    pub fn scalar(&mut self, e: &'ast Node) -> R<Value> {
        self.nested(e, |generator| generator.scalar_inner(e))
    }

    /// Builds what `e` needs on a stack grown as needed (expressions nest without
    /// bound), then reports builder errors at `e`.
    pub fn nested<T>(&mut self, e: &Node, build: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            let result = build(self)?;
            self.checked(e)?;
            Ok(result)
        })
    }

    fn scalar_inner(&mut self, e: &'ast Node) -> R<Value> {
        if is_glvalue(e) {
            let ty = self.ty(e)?;
            let address = self.lvalue(e)?;
            let align = self.align(e, &ty)?;
            return Ok(self.b.load(address, align));
        }
        match e.kind.as_str() {
            "IntegerLiteral" | "CharacterLiteral" => {
                let ty = self.ty(e)?;
                let cir = self.cir(e, &ty)?;
                let text = e.value_text().unwrap_or_default();
                let Ok(value) = text.parse::<i128>() else {
                    return error(e, format!("bad integer literal '{text}'"));
                };
                Ok(self.b.const_int(cir, value))
            }
            "CXXBoolLiteralExpr" => {
                let value = e.value_text().as_deref() == Some("true");
                Ok(self.b.const_bool(value))
            }
            "FloatingLiteral" => {
                let ty = self.ty(e)?;
                let cir = self.cir(e, &ty)?;
                let text = e.value_text().unwrap_or_default();
                let Ok(value) = text.parse::<f64>() else {
                    return error(e, format!("bad floating literal '{text}'"));
                };
                Ok(self.b.const_float(cir, value))
            }
            "CXXNullPtrLiteralExpr" | "GNUNullExpr" => {
                let ty = self.ty(e)?;
                let cir = self.cir(e, &ty)?;
                Ok(self.b.const_null(cir))
            }
            "ParenExpr" | "CXXDefaultArgExpr" | "CXXDefaultInitExpr" => {
                self.scalar(self.operand(e, 0)?)
            }
            "SubstNonTypeTemplateParmExpr" => self.scalar(replacement(e)?),
            "ConstantExpr" => {
                let ty = self.ty(e)?;
                match (e.value_text(), ty.unqualified()) {
                    (Some(text), CType::Builtin(b)) if b.int_info(self.st.abi).is_some() => {
                        let cir = self.cir(e, &ty)?;
                        let value = match text.as_str() {
                            "true" => 1,
                            "false" => 0,
                            other => other.parse::<i128>().unwrap_or_default(),
                        };
                        if *b == Builtin::Bool {
                            return Ok(self.b.const_bool(value != 0));
                        }
                        Ok(self.b.const_int(cir, value))
                    }
                    _ => self.scalar(self.operand(e, 0)?),
                }
            }
            "ExprWithCleanups" => self.full_expression_value(e, false),
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr"
            | "CXXReinterpretCastExpr"
            | "CXXConstCastExpr" => self.cast(e),
            "CXXDynamicCastExpr" => self.dynamic_cast(e, false),
            "UnaryOperator" => self.unary(e),
            "BinaryOperator" => self.binary(e),
            "ConditionalOperator" => self.conditional_value(e, false),
            "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" => match self.call(e, None)? {
                Some(value) => Ok(value),
                None => error(e, "a call without a value used as a value"),
            },
            "UnaryExprOrTypeTraitExpr" => self.size_of(e),
            "CXXThisExpr" => self.this_value(e),
            "CXXNewExpr" => self.new_expr(e),
            "DeclRefExpr" => {
                let Some(decl) = &e.referenced_decl else {
                    return error(e, "a reference to nothing");
                };
                if let Some(&value) = self.st.index.enumerators.get(decl.id.as_str()) {
                    let ty = self.ty(e)?;
                    let cir = self.cir(e, &ty)?;
                    return Ok(self.b.const_int(cir, value));
                }
                unsupported(e, format!("reference to '{}' as a value", decl.kind))
            }
            "CXXScalarValueInitExpr" | "ImplicitValueInitExpr" => {
                let ty = self.ty(e)?;
                self.zero_value(e, &ty)
            }
            other => unsupported(e, other),
        }
    }

    /// The zero value of a scalar type.
    fn zero_value(&mut self, e: &Node, ty: &CType) -> R<Value> {
        let cir = self.cir(e, ty)?;
        Ok(match ty.unqualified() {
            CType::Builtin(Builtin::Bool) => self.b.const_bool(false),
            CType::Builtin(Builtin::Float | Builtin::Double) => self.b.const_float(cir, 0.0),
            CType::Builtin(_) => self.b.const_int(cir, 0),
            _ => self.b.const_null(cir),
        })
    }

    /// `sizeof` and `alignof`.
    fn size_of(&mut self, e: &'ast Node) -> R<Value> {
        if e.arg_type.is_none()
            && e.name.as_deref() == Some("sizeof")
            && let Some((_, bytes)) = self
                .operand(e, 0)
                .ok()
                .and_then(|o| self.variable_array_of(o))
        {
            // A variable-length array: the byte count computed at its declaration.
            let ty = self.ty(e)?;
            return self.convert(e, bytes, &CType::Builtin(Builtin::ULong), &ty);
        }
        let operand_ty = match &e.arg_type {
            Some(q) => self.st.parse(e, q.canonical())?,
            None => {
                let operand = self.operand(e, 0)?;
                self.ty(operand)?
            }
        };
        let operand_ty = operand_ty.non_reference().clone();
        let (size, align) = self.st.size_align(self.b.ctx, e, &operand_ty)?;
        let value = match e.name.as_deref() {
            Some("sizeof") => size,
            Some("alignof" | "__alignof") => align,
            other => return unsupported(e, format!("'{}'", other.unwrap_or("trait"))),
        };
        let ty = self.ty(e)?;
        let cir = self.cir(e, &ty)?;
        Ok(self.b.const_int(cir, value as i128))
    }

    /// A conversion between scalar CIR types following the C++ types.
    pub fn convert(&mut self, e: &Node, value: Value, from: &CType, to: &CType) -> R<Value> {
        let from_cir = self.cir(e, from)?;
        let to_cir = self.cir(e, to)?;
        if from_cir == to_cir {
            return Ok(value);
        }
        let types = &self.b.ctx.types;
        let bool_ty = types.common().bool;
        let scalar =
            |t: Type| t == bool_ty || types.is_int(t) || types.is_float(t) || types.is_ptr(t);
        if !scalar(from_cir) || !scalar(to_cir) {
            // Clang converts only scalars this way; an AST that says otherwise is malformed.
            return error(e, format!("a scalar conversion from '{from}' to '{to}'"));
        }
        let kind = if from_cir == bool_ty {
            if types.is_float(to_cir) {
                CastKind::BoolToFloat
            } else {
                CastKind::BoolToInt
            }
        } else if to_cir == bool_ty {
            if types.is_float(from_cir) {
                CastKind::FloatToBool
            } else if types.is_ptr(from_cir) {
                CastKind::PtrToBool
            } else {
                CastKind::IntToBool
            }
        } else if types.is_float(from_cir) && types.is_float(to_cir) {
            CastKind::Floating
        } else if types.is_float(from_cir) {
            CastKind::FloatToInt
        } else if types.is_float(to_cir) {
            CastKind::IntToFloat
        } else if types.is_ptr(from_cir) && types.is_ptr(to_cir) {
            CastKind::Bitcast
        } else if types.is_ptr(from_cir) {
            CastKind::PtrToInt
        } else if types.is_ptr(to_cir) {
            CastKind::IntToPtr
        } else {
            CastKind::Integral
        };
        Ok(self.b.cast(kind, value, to_cir))
    }

    fn cast(&mut self, e: &'ast Node) -> R<Value> {
        let operand = self.operand(e, 0)?;
        let cast_kind = e.cast_kind.as_deref().unwrap_or("NoOp");
        let to = self.ty(e)?;
        match cast_kind {
            "LValueToRValue" => {
                let address = self.lvalue(operand)?;
                let align = self.align(e, &to)?;
                Ok(self.b.load(address, align))
            }
            "IntegralCast"
            | "IntegralToBoolean"
            | "IntegralToFloating"
            | "FloatingToIntegral"
            | "FloatingCast"
            | "FloatingToBoolean"
            | "PointerToBoolean"
            | "PointerToIntegral"
            | "IntegralToPointer"
            | "BooleanToSignedIntegral"
            | "BitCast"
            | "NoOp" => {
                let from = self.ty(operand)?;
                let value = self.scalar(operand)?;
                self.convert(e, value, &from, &to)
            }
            // A null pointer to data member is -1 (0 is the first member's offset).
            "NullToMemberPointer" => {
                if !is_glvalue(operand) {
                    self.ignored_if_side_effects(operand)?;
                }
                self.null_member_pointer(e, &to)
            }
            "MemberPointerToBoolean" => {
                let from = self.ty(operand)?;
                let value = self.scalar(operand)?;
                self.member_pointer_is_set(e, &from, value)
            }
            "NullToPointer" => {
                if !is_glvalue(operand) {
                    self.ignored_if_side_effects(operand)?;
                }
                let cir = self.cir(e, &to)?;
                Ok(self.b.const_null(cir))
            }
            "ArrayToPointerDecay" => {
                let inner = strip_parens(operand);
                if inner.kind == "StringLiteral" {
                    return self.string_literal(inner);
                }
                if let Some((address, _)) = self.variable_array_of(operand) {
                    // Already a pointer to the first element.
                    let cir = self.cir(e, &to)?;
                    return Ok(if self.b.value_type(address) == cir {
                        address
                    } else {
                        self.b.cast(CastKind::Bitcast, address, cir)
                    });
                }
                let address = self.lvalue(operand)?;
                let cir = self.cir(e, &to)?;
                Ok(self.b.cast(CastKind::ArrayToPtrDecay, address, cir))
            }
            "FunctionToPointerDecay" | "BuiltinFnToFnPtr" => self.lvalue(operand),
            "DerivedToBase" | "UncheckedDerivedToBase" | "BaseToDerived" => {
                let from = self.ty(operand)?;
                let value = self.scalar(operand)?;
                let (Some(from_class), Some(to_class)) = (
                    from.pointee().and_then(|p| p.name()).map(str::to_string),
                    to.pointee().and_then(|p| p.name()).map(str::to_string),
                ) else {
                    return unsupported(e, format!("{cast_kind} of '{from}'"));
                };
                self.class_pointer_cast(e, value, &from_class, &to_class, cast_kind, false)
            }
            "UserDefinedConversion" | "ConstructorConversion" => self.scalar(operand),
            other => unsupported(e, format!("{other} cast")),
        }
    }

    fn ignored_if_side_effects(&mut self, e: &'ast Node) -> R<()> {
        match strip_parens(e).kind.as_str() {
            "CXXNullPtrLiteralExpr" | "GNUNullExpr" | "IntegerLiteral" => Ok(()),
            _ => self.ignored(e),
        }
    }

    /// Converts a pointer between a class and its base (`nonnull` for references).
    pub fn class_pointer_cast(
        &mut self,
        e: &Node,
        value: Value,
        from: &str,
        to: &str,
        cast_kind: &str,
        nonnull: bool,
    ) -> R<Value> {
        if from == to {
            return Ok(value);
        }
        let (derived, base) = if cast_kind == "BaseToDerived" {
            (to, from)
        } else {
            (from, to)
        };
        let Some(path) = self.st.base_path(self.b.ctx, e, derived, base)? else {
            return unsupported(e, format!("conversion from '{from}' to '{to}'"));
        };
        // Through a virtual base: its offset is in the object's vtable (the derived
        // class's lists every virtual base), then the rest is static.
        let last_virtual = path
            .iter()
            .rposition(|step| matches!(step, BaseStep::Virtual(_)));
        let offset_after = |from: usize| -> u64 {
            path[from..]
                .iter()
                .map(|step| match step {
                    BaseStep::NonVirtual(offset) => *offset,
                    BaseStep::Virtual(_) => 0,
                })
                .sum()
        };
        let base_layout = self.st.layout(self.b.ctx, e, base)?;
        if cast_kind == "BaseToDerived" {
            if last_virtual.is_some() {
                return unsupported(
                    e,
                    format!("conversion from virtual base '{from}' to '{to}'"),
                );
            }
            let derived_layout = self.st.layout(self.b.ctx, e, derived)?;
            return Ok(self.b.derived_class_addr(
                value,
                derived_layout.cir,
                offset_after(0) as u32,
                nonnull,
            ));
        }
        let Some(k) = last_virtual else {
            return Ok(self.b.base_class_addr(
                value,
                base_layout.cir,
                offset_after(0) as u32,
                nonnull,
            ));
        };
        let BaseStep::Virtual(virtual_base) = path[k].clone() else {
            return error(e, "a virtual base step expected");
        };
        let rest = offset_after(k + 1) as u32;
        if nonnull {
            let at = self.virtual_base_address(e, value, derived, &virtual_base)?;
            return Ok(self.b.base_class_addr(at, base_layout.cir, rest, true));
        }
        // A null pointer stays null.
        let result_ty = self.b.ctx.types.ptr(base_layout.cir);
        let slot = self.b.alloca(result_ty, "vbase.conv", true, 8);
        let null = self.b.const_null(result_ty);
        self.b.store(null, slot, 8);
        let value_ty = self.b.value_type(value);
        let value_null = self.b.const_null(value_ty);
        let not_null = self.b.cmp(CmpPredicate::Ne, value, value_null);
        self.b.begin_if(not_null, false);
        let at = self.virtual_base_address(e, value, derived, &virtual_base)?;
        let converted = self.b.base_class_addr(at, base_layout.cir, rest, true);
        self.b.store(converted, slot, 8);
        self.b.end_if();
        Ok(self.b.load(slot, 8))
    }

    /// A string literal's address (`!cir.ptr<!s8i>`).
    fn string_literal(&mut self, e: &Node) -> R<Value> {
        let text = e.value_text().unwrap_or_default();
        let Some(bytes) = unescape_string_literal(&text) else {
            return unsupported(e, format!("string literal {text}"));
        };
        Ok(self.b.string_literal(&bytes))
    }

    fn unary(&mut self, e: &'ast Node) -> R<Value> {
        let operand = self.operand(e, 0)?;
        let opcode = e.opcode.as_deref().unwrap_or("");
        match opcode {
            "&" if matches!(self.ty(e)?.unqualified(), CType::MemberPointer(..)) => {
                self.member_pointer_of(e, operand)
            }
            "&" => self.lvalue(operand),
            "+" => self.scalar(operand),
            "-" => {
                let value = self.scalar(operand)?;
                Ok(self.b.unary(UnaryOp::Minus, value))
            }
            "~" | "!" => {
                let value = self.scalar(operand)?;
                Ok(self.b.unary(UnaryOp::Not, value))
            }
            "++" | "--" => {
                let (old, _) = self.increment(e, operand, opcode == "++")?;
                Ok(old)
            }
            "__extension__" => self.scalar(operand),
            other => unsupported(e, format!("unary operator '{other}'")),
        }
    }

    /// `++x`, `x++`, `--x`, `x--`: returns (old value, address).
    fn increment(&mut self, e: &'ast Node, operand: &'ast Node, up: bool) -> R<(Value, Value)> {
        let ty = self.ty(operand)?;
        let address = self.lvalue(operand)?;
        let align = self.align(e, &ty)?;
        let old = self.b.load(address, align);
        let cir = self.cir(e, &ty)?;
        let new = match ty.unqualified() {
            CType::Pointer(_) => {
                let long = self.b.ctx.types.common().s64;
                let step = self.b.const_int(long, if up { 1 } else { -1 });
                self.b.ptr_stride(old, step)
            }
            CType::Builtin(Builtin::Bool) => self.b.const_bool(up),
            CType::Builtin(Builtin::Float | Builtin::Double) => {
                let one = self.b.const_float(cir, 1.0);
                let op = if up { BinaryOp::Add } else { BinaryOp::Sub };
                self.b.binop(op, old, one)
            }
            _ => {
                let one = self.b.const_int(cir, 1);
                let op = if up { BinaryOp::Add } else { BinaryOp::Sub };
                self.b.binop(op, old, one)
            }
        };
        self.b.store(new, address, align);
        Ok((old, address))
    }

    fn binary(&mut self, e: &'ast Node) -> R<Value> {
        let opcode = e.opcode.as_deref().unwrap_or("");
        let (lhs, rhs) = (self.operand(e, 0)?, self.operand(e, 1)?);
        match opcode {
            "&&" | "||" => return self.logical(e, lhs, rhs, opcode == "&&"),
            "," => {
                self.ignored(lhs)?;
                return self.scalar(rhs);
            }
            _ => {}
        }
        let lhs_ty = self.ty(lhs)?;
        let rhs_ty = self.ty(rhs)?;
        if let Some(predicate) = comparison(opcode) {
            if let CType::MemberPointer(member, _) = lhs_ty.unqualified()
                && member.function().is_some()
            {
                return unsupported(e, "comparing pointers to member functions");
            }
            let l = self.scalar(lhs)?;
            let r = self.scalar(rhs)?;
            return Ok(self.b.cmp(predicate, l, r));
        }
        let l = self.scalar(lhs)?;
        let r = self.scalar(rhs)?;
        self.arithmetic(e, opcode, l, &lhs_ty, r, &rhs_ty)
    }

    /// `l OP r` for arithmetic and pointer operands.
    fn arithmetic(
        &mut self,
        e: &Node,
        opcode: &str,
        l: Value,
        lhs_ty: &CType,
        r: Value,
        rhs_ty: &CType,
    ) -> R<Value> {
        let lhs_pointer = lhs_ty.pointee().is_some();
        let rhs_pointer = rhs_ty.pointee().is_some();
        match (opcode, lhs_pointer, rhs_pointer) {
            ("+", true, false) => return Ok(self.b.ptr_stride(l, r)),
            ("+", false, true) => return Ok(self.b.ptr_stride(r, l)),
            ("-", true, false) => {
                let negated = self.b.unary(UnaryOp::Minus, r);
                return Ok(self.b.ptr_stride(l, negated));
            }
            ("-", true, true) => {
                let result_ty = self.ty(e)?;
                let long = self.cir(e, &result_ty)?;
                let pointee = lhs_ty
                    .pointee()
                    .cloned()
                    .unwrap_or(CType::Builtin(Builtin::Char));
                let (size, _) = self.st.size_align(self.b.ctx, e, &pointee)?;
                let li = self.b.cast(CastKind::PtrToInt, l, long);
                let ri = self.b.cast(CastKind::PtrToInt, r, long);
                let bytes = self.b.binop(BinaryOp::Sub, li, ri);
                let size = self.b.const_int(long, size.max(1) as i128);
                return Ok(self.b.binop(BinaryOp::Div, bytes, size));
            }
            _ => {}
        }
        let kind = match opcode {
            "+" => BinaryOp::Add,
            "-" => BinaryOp::Sub,
            "*" => BinaryOp::Mul,
            "/" => BinaryOp::Div,
            "%" => BinaryOp::Rem,
            "&" => BinaryOp::And,
            "|" => BinaryOp::Or,
            "^" => BinaryOp::Xor,
            "<<" => BinaryOp::Shl,
            ">>" => BinaryOp::Shr,
            other => return unsupported(e, format!("binary operator '{other}'")),
        };
        let r = if matches!(kind, BinaryOp::Shl | BinaryOp::Shr) {
            self.convert(e, r, rhs_ty, lhs_ty)?
        } else {
            r
        };
        Ok(self.b.binop(kind, l, r))
    }

    /// `&&` and `||`: the right operand runs conditionally (its temporaries too).
    fn logical(&mut self, e: &'ast Node, lhs: &'ast Node, rhs: &'ast Node, and: bool) -> R<Value> {
        let l = self.scalar(lhs)?;
        let bool_ty = self.b.ctx.types.common().bool;
        self.b.begin_conditional();
        let op = self
            .b
            .create_region_op(OpKind::Ternary, &[l], &[bool_ty], 2);
        let (rhs_region, constant_region) = if and { (0, 1) } else { (1, 0) };
        for region in 0..2 {
            self.b.enter_region(op, region, false);
            if region == rhs_region {
                let r = self.scalar(rhs)?;
                self.b.exit_region_yielding(&[r]);
            } else {
                let _ = constant_region;
                let constant = self.b.const_bool(!and);
                self.b.exit_region_yielding(&[constant]);
            }
        }
        self.b.end_conditional();
        self.checked(e)?;
        Ok(self.b.result(op, 0))
    }

    /// `c ? a : b` yielding a scalar (or, with `lvalue`, an address).
    fn conditional_value(&mut self, e: &'ast Node, lvalue: bool) -> R<Value> {
        let cond = self.scalar(self.operand(e, 0)?)?;
        let ty = self.ty(e)?;
        let cir = self.cir(e, &ty)?;
        let result_ty = if lvalue {
            self.b.ctx.types.ptr(cir)
        } else {
            cir
        };
        self.b.begin_conditional();
        let op = self
            .b
            .create_region_op(OpKind::Ternary, &[cond], &[result_ty], 2);
        for region in 0..2 {
            self.b.enter_region(op, region, false);
            let arm = self.operand(e, region + 1)?;
            if strip_parens(arm).kind == "CXXThrowExpr" {
                self.ignored(arm)?;
                self.b.exit_region();
                continue;
            }
            let value = if lvalue {
                self.lvalue(arm)?
            } else {
                self.scalar(arm)?
            };
            self.b.exit_region_yielding(&[value]);
        }
        self.b.end_conditional();
        self.checked(e)?;
        Ok(self.b.result(op, 0))
    }

    /// The address of an lvalue (or xvalue).
    pub fn lvalue(&mut self, e: &'ast Node) -> R<Value> {
        self.nested(e, |generator| generator.lvalue_inner(e))
    }

    fn lvalue_inner(&mut self, e: &'ast Node) -> R<Value> {
        match e.kind.as_str() {
            "DeclRefExpr" => self.decl_ref(e),
            "ParenExpr" => self.lvalue(self.operand(e, 0)?),
            "UnaryOperator" => {
                let operand = self.operand(e, 0)?;
                match e.opcode.as_deref() {
                    Some("*") => self.scalar(operand),
                    Some(op @ ("++" | "--")) => Ok(self.increment(e, operand, op == "++")?.1),
                    Some("__extension__") => self.lvalue(operand),
                    other => unsupported(e, format!("lvalue of unary '{}'", other.unwrap_or(""))),
                }
            }
            "MemberExpr" => self.member(e),
            "ArraySubscriptExpr" => {
                let (base, index) = (self.operand(e, 0)?, self.operand(e, 1)?);
                let (base, index) = if self.ty(base)?.pointee().is_some() {
                    (base, index)
                } else {
                    (index, base)
                };
                let pointer = self.scalar(base)?;
                let index = self.scalar(index)?;
                Ok(self.b.ptr_stride(pointer, index))
            }
            "StringLiteral" => {
                // The array object (the literal's first byte, seen as the whole array).
                let first = self.string_literal(e)?;
                let ty = self.ty(e)?;
                let array = self.cir(e, &ty)?;
                let pointer = self.b.ctx.types.ptr(array);
                Ok(self.b.cast(CastKind::Bitcast, first, pointer))
            }
            "CXXTypeidExpr" => self.typeid(e),
            "CXXDynamicCastExpr" => self.dynamic_cast(e, true),
            // `__func__`, `__PRETTY_FUNCTION__`: the string literal Clang made.
            "PredefinedExpr" => self.lvalue(self.operand(e, 0)?),
            "BinaryOperator" => match e.opcode.as_deref() {
                Some("=") => self.assign(e),
                Some(",") => {
                    self.ignored(self.operand(e, 0)?)?;
                    self.lvalue(self.operand(e, 1)?)
                }
                Some(op @ (".*" | "->*")) => self.member_through_pointer(e, op == "->*"),
                other => unsupported(e, format!("lvalue of '{}'", other.unwrap_or(""))),
            },
            "CompoundAssignOperator" => self.compound_assign(e),
            "ConditionalOperator" => self.conditional_value(e, true),
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr"
            | "CXXReinterpretCastExpr"
            | "CXXConstCastExpr" => {
                let operand = self.operand(e, 0)?;
                let cast_kind = e.cast_kind.as_deref().unwrap_or("NoOp");
                match cast_kind {
                    "NoOp" | "LValueBitCast" => {
                        let address = self.lvalue(operand)?;
                        let to = self.ty(e)?;
                        let cir = self.cir(e, &to)?;
                        let ptr = self.b.ctx.types.ptr(cir);
                        if self.b.value_type(address) == ptr {
                            Ok(address)
                        } else {
                            Ok(self.b.cast(CastKind::Bitcast, address, ptr))
                        }
                    }
                    "DerivedToBase" | "UncheckedDerivedToBase" | "BaseToDerived" => {
                        let from = self.ty(operand)?;
                        let to = self.ty(e)?;
                        let address = self.lvalue(operand)?;
                        let (Some(from), Some(to)) = (
                            from.non_reference().name().map(str::to_string),
                            to.non_reference().name().map(str::to_string),
                        ) else {
                            return unsupported(e, format!("{cast_kind} of a non-class"));
                        };
                        self.class_pointer_cast(e, address, &from, &to, cast_kind, true)
                    }
                    "ToUnion" | "Dynamic" => unsupported(e, format!("{cast_kind} cast")),
                    _ => unsupported(e, format!("lvalue of a {cast_kind} cast")),
                }
            }
            "MaterializeTemporaryExpr" => self.materialize(e),
            "ExprWithCleanups" => self.full_expression_value(e, true),
            "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" => {
                match self.call(e, None)? {
                    Some(value) => Ok(value),
                    None => error(e, "a call without a value used as an lvalue"),
                }
            }
            "CXXDefaultArgExpr" | "CXXDefaultInitExpr" => self.lvalue(self.operand(e, 0)?),
            "SubstNonTypeTemplateParmExpr" => self.lvalue(replacement(e)?),
            other => unsupported(e, other),
        }
    }

    fn decl_ref(&mut self, e: &'ast Node) -> R<Value> {
        let Some(decl) = &e.referenced_decl else {
            return error(e, "a reference to nothing");
        };
        if let Some(local) = self.locals.get(decl.id.as_str()).copied() {
            return Ok(match local {
                Local::Address(address) => address,
                Local::Reference(slot) => self.b.load(slot, 8),
            });
        }
        if let Some(address) = self.captured_variable(e, &decl.id)? {
            return Ok(address);
        }
        let Some(&target) = self.st.index.by_id.get(decl.id.as_str()) else {
            return error(
                e,
                format!(
                    "unknown declaration '{}'",
                    decl.name.as_deref().unwrap_or("")
                ),
            );
        };
        match target.kind.as_str() {
            "FunctionDecl" | "CXXMethodDecl" => {
                let callee = self.st.callee(self.b.ctx, target)?;
                let name = self.b.ctx.name(callee.symbol).to_string();
                self.st
                    .address_taken
                    .push((name, callee.sig, callee.nothrow));
                Ok(self.b.get_global(callee.symbol, callee.sig))
            }
            "VarDecl" => {
                let Some(symbol) = target.mangled_name.clone() else {
                    return error(e, "a variable without a mangled name");
                };
                let ty = self.st.node_type(target)?;
                if ty.is_reference() {
                    return unsupported(e, "global references");
                }
                let cir = self.cir(e, &ty)?;
                if !self.st.globals.contains_key(&symbol) {
                    let definition = self.definition_of_variable(target);
                    self.st.globals.insert(symbol.clone(), definition);
                    self.st.global_order.push(symbol.clone());
                }
                let sym = self.b.ctx.sym(&symbol);
                Ok(self.b.get_global(sym, cir))
            }
            other => unsupported(e, format!("reference to a {other}")),
        }
    }

    /// Inside a lambda's body: the closure field that holds a captured variable (for a
    /// capture by reference, the variable it refers to).
    fn captured_variable(&mut self, e: &Node, variable: &str) -> R<Option<Value>> {
        let Some(class) = self.this_class.clone() else {
            return Ok(None);
        };
        let Some(index) = self
            .st
            .index
            .captures
            .get(&class)
            .and_then(|vars| vars.iter().position(|v| v == variable))
        else {
            return Ok(None);
        };
        let this = self.this_value(e)?;
        let layout = self.st.layout(self.b.ctx, e, &class)?;
        let Some(field) = layout.fields.get(index) else {
            return Ok(None);
        };
        let cir = self.cir(e, &field.ty)?;
        let address = self.b.get_member(this, field.index, &field.name, cir);
        Ok(Some(if field.ty.is_reference() {
            self.b.load(address, 8)
        } else {
            address
        }))
    }

    /// The defining declaration of a variable: the one with an initializer, else a
    /// redeclaration that is neither `extern` nor a static data member's declaration in
    /// its class.
    fn definition_of_variable(&self, decl: &'ast Node) -> &'ast Node {
        let index = &self.st.index;
        let redeclarations = || {
            index
                .globals
                .iter()
                .copied()
                .filter(|g| g.mangled_name == decl.mangled_name)
        };
        redeclarations()
            .find(|g| g.initializer().is_some())
            .or_else(|| {
                redeclarations().find(|g| {
                    g.storage_class.as_deref() != Some("extern")
                        && !index.parent_class.contains_key(g.id.as_str())
                })
            })
            .unwrap_or(decl)
    }

    fn member(&mut self, e: &'ast Node) -> R<Value> {
        let base = self.operand(e, 0)?;
        let Some(member_id) = e.referenced_member_decl.as_deref() else {
            return error(e, "a member expression without a member");
        };
        let Some(&member) = self.st.index.by_id.get(member_id) else {
            return error(e, "unknown member");
        };
        if member.kind == "VarDecl" {
            // A static data member.
            self.ignored_if_side_effects(base)?;
            return self.static_member(e, member);
        }
        if member.kind != "FieldDecl" {
            return unsupported(e, format!("member '{}' as a value", member.kind));
        }
        let base_ty = self.ty(base)?;
        let object = if e.is_arrow {
            self.scalar(base)?
        } else {
            self.lvalue(base)?
        };
        let class_ty = if e.is_arrow {
            base_ty.pointee().cloned().unwrap_or(base_ty.clone())
        } else {
            base_ty.non_reference().clone()
        };
        let Some(class) = class_ty.name().map(str::to_string) else {
            return unsupported(e, format!("member of '{class_ty}'"));
        };
        let layout = self.st.layout(self.b.ctx, e, &class)?;
        let Some(field) = layout.fields.iter().find(|f| f.id == member.id) else {
            return unsupported(
                e,
                format!(
                    "member '{}' of an anonymous or base subobject",
                    member.name.as_deref().unwrap_or("")
                ),
            );
        };
        let field_cir = self.cir(e, &field.ty)?;
        let address = self
            .b
            .get_member(object, field.index, &field.name, field_cir);
        if field.ty.is_reference() {
            return Ok(self.b.load(address, 8));
        }
        Ok(address)
    }

    /// The address of a static data member.
    fn static_member(&mut self, fake: &Node, member: &'ast Node) -> R<Value> {
        let Some(symbol) = member.mangled_name.clone() else {
            return error(fake, "a static member without a mangled name");
        };
        let ty = self.st.node_type(member)?;
        let cir = self.cir(fake, &ty)?;
        if !self.st.globals.contains_key(&symbol) {
            let definition = self.definition_of_variable(member);
            self.st.globals.insert(symbol.clone(), definition);
            self.st.global_order.push(symbol.clone());
        }
        let sym = self.b.ctx.sym(&symbol);
        Ok(self.b.get_global(sym, cir))
    }

    /// `a = b` for scalars (classes assign through `operator=` calls).
    fn assign(&mut self, e: &'ast Node) -> R<Value> {
        let (lhs, rhs) = (self.operand(e, 0)?, self.operand(e, 1)?);
        let ty = self.ty(lhs)?;
        if self.st.is_class(&ty) {
            // A trivial assignment of a class: a copy of its bytes.
            let source = self.lvalue(rhs)?;
            let target = self.lvalue(lhs)?;
            self.copy_bytes(e, &ty, source, target)?;
            return Ok(target);
        }
        let value = self.scalar(rhs)?;
        let address = self.lvalue(lhs)?;
        let align = self.align(e, &ty)?;
        self.b.store(value, address, align);
        Ok(address)
    }

    /// `a OP= b`.
    fn compound_assign(&mut self, e: &'ast Node) -> R<Value> {
        let (lhs, rhs) = (self.operand(e, 0)?, self.operand(e, 1)?);
        let opcode = e
            .opcode
            .as_deref()
            .unwrap_or("")
            .trim_end_matches('=')
            .to_string();
        let lhs_ty = self.ty(lhs)?;
        let rhs_ty = self.ty(rhs)?;
        let compute_ty = match &e.compute_lhs_type {
            Some(q) => self.st.parse(e, q.canonical())?,
            None => lhs_ty.clone(),
        };
        let r = self.scalar(rhs)?;
        let address = self.lvalue(lhs)?;
        let align = self.align(e, &lhs_ty)?;
        let old = self.b.load(address, align);
        let old = self.convert(e, old, &lhs_ty, &compute_ty)?;
        let result = self.arithmetic(e, &opcode, old, &compute_ty, r, &rhs_ty)?;
        let result_ty = match &e.compute_result_type {
            Some(q) => self.st.parse(e, q.canonical())?,
            None => compute_ty,
        };
        let result = self.convert(e, result, &result_ty, &lhs_ty)?;
        self.b.store(result, address, align);
        Ok(address)
    }

    /// A temporary materialized for a glvalue (a reference binds to it, or a member of
    /// it is used). Its destruction is registered at the end of the full expression, or
    /// for a lifetime-extended one, at the end of the variable's scope.
    fn materialize(&mut self, e: &'ast Node) -> R<Value> {
        let mut inner = self.operand(e, 0)?;
        if inner.kind == "CXXBindTemporaryExpr" {
            inner = self.operand(inner, 0)?;
        }
        if is_glvalue(inner) {
            return self.lvalue(inner);
        }
        let ty = self.ty(e)?;
        let ty = ty.non_reference().clone();
        let cir = self.cir(e, &ty)?;
        let align = self.align(e, &ty)?;
        let temp = self.b.alloca(cir, "ref.tmp", false, align);
        self.init_into(inner, temp, true)?;
        match e.storage_duration.as_deref() {
            Some("automatic") => self.extended.push((temp, ty)),
            Some("full expression") | None => {
                self.push_destroy_temporary(e, &ty, temp)?;
            }
            Some(other) => return unsupported(e, format!("temporary with {other} storage")),
        }
        Ok(temp)
    }

    /// Initializes the object at `dest` from `e`. `externally_destructed`: the
    /// destination's destruction is someone else's business (a variable, the exception
    /// object, a returned object), so a bound temporary registers no cleanup.
    pub fn init_into(&mut self, e: &'ast Node, dest: Value, externally_destructed: bool) -> R<()> {
        self.nested(e, |generator| {
            generator.init_into_inner(e, dest, externally_destructed)
        })
    }

    fn init_into_inner(
        &mut self,
        e: &'ast Node,
        dest: Value,
        externally_destructed: bool,
    ) -> R<()> {
        let ty = self.ty(e)?;
        match e.kind.as_str() {
            "CXXConstructExpr" | "CXXTemporaryObjectExpr" => {
                return self.construct(e, dest, externally_destructed);
            }
            "CXXBindTemporaryExpr" => {
                self.init_into(self.operand(e, 0)?, dest, true)?;
                if !externally_destructed {
                    self.push_destroy_temporary(e, &ty, dest)?;
                }
                return Ok(());
            }
            "ExprWithCleanups" => {
                let mark = self.b.begin_full_expression();
                self.init_into(self.operand(e, 0)?, dest, externally_destructed)?;
                self.b.end_full_expression(mark);
                return Ok(());
            }
            "ParenExpr" | "CXXDefaultArgExpr" | "CXXDefaultInitExpr" => {
                return self.init_into(self.operand(e, 0)?, dest, externally_destructed);
            }
            "ImplicitCastExpr"
            | "CXXFunctionalCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
                if self.st.is_class(&ty)
                    && matches!(
                        e.cast_kind.as_deref(),
                        Some("ConstructorConversion" | "NoOp" | "UserDefinedConversion")
                    ) =>
            {
                return self.init_into(self.operand(e, 0)?, dest, externally_destructed);
            }
            "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" if self.st.is_class(&ty) => {
                self.call(e, Some(dest))?;
                return Ok(());
            }
            "ConditionalOperator" if self.st.is_class(&ty) => {
                let cond = self.scalar(self.operand(e, 0)?)?;
                // The temporaries of each arm exist only on its path.
                self.b.begin_conditional();
                let if_op = self.b.begin_if(cond, true);
                self.init_into(self.operand(e, 1)?, dest, externally_destructed)?;
                self.b.begin_else(if_op);
                self.init_into(self.operand(e, 2)?, dest, externally_destructed)?;
                self.b.end_if();
                self.b.end_conditional();
                return Ok(());
            }
            // An arm of a conditional that throws: nothing is built.
            "CXXThrowExpr" => return self.throw_expr(e),
            "InitListExpr" => return self.init_list(e, &ty, dest),
            // An array member copied by an implicit copy constructor (element by element
            // from the source array, the `OpaqueValueExpr`): a bitwise copy when the
            // elements are copied bitwise.
            "ArrayInitLoopExpr" => {
                let element = match ty.unqualified() {
                    CType::Array(element, _) => element.unqualified().clone(),
                    _ => return error(e, "'ArrayInitLoopExpr' of a type that is not an array"),
                };
                let bitwise = match &element {
                    CType::Named(class) => {
                        let layout = self.st.layout(self.b.ctx, e, class)?;
                        layout.by_value
                    }
                    CType::Array(..) => false,
                    _ => true,
                };
                let source = self
                    .operand(e, 0)
                    .ok()
                    .filter(|o| o.kind == "OpaqueValueExpr")
                    .and_then(|o| o.children().next());
                if let (true, Some(source)) = (bitwise, source) {
                    let source = self.lvalue(source)?;
                    return self.copy_bytes(e, &ty, source, dest);
                }
                return unsupported(
                    e,
                    format!("array initialization by a loop over '{element}'"),
                );
            }
            "LambdaExpr" => return self.lambda(e, &ty, dest),
            "ImplicitValueInitExpr" | "CXXScalarValueInitExpr" => {
                return self.zero_into(e, &ty, dest);
            }
            "StringLiteral" if matches!(ty.unqualified(), CType::Array(..)) => {
                let text = e.value_text().unwrap_or_default();
                let Some(bytes) = unescape_string_literal(&text) else {
                    return unsupported(e, format!("string literal {text}"));
                };
                let s8 = self.b.ctx.types.common().s8;
                let length = match ty.unqualified() {
                    CType::Array(_, Some(n)) => *n as usize,
                    _ => bytes.len() + 1,
                };
                let first = self.decay(dest, s8);
                let long = self.b.ctx.types.common().s64;
                for i in 0..length {
                    let byte = bytes.get(i).copied().unwrap_or(0);
                    let value = self.b.const_int(s8, byte as i8 as i128);
                    let index = self.b.const_int(long, i as i128);
                    let address = self.b.ptr_stride(first, index);
                    self.b.store(value, address, 1);
                }
                return Ok(());
            }
            _ => {}
        }
        if self.st.is_class(&ty) {
            if is_glvalue(e) {
                // A trivial copy.
                let source = self.lvalue(e)?;
                self.copy_bytes(e, &ty, source, dest)?;
                return Ok(());
            }
            return unsupported(e, format!("initialization of a class from '{}'", e.kind));
        }
        if matches!(ty.unqualified(), CType::Array(..)) {
            return unsupported(e, format!("initialization of an array from '{}'", e.kind));
        }
        let value = self.scalar(e)?;
        let align = self.align(e, &ty)?;
        self.b.store(value, dest, align);
        Ok(())
    }

    /// A lambda's closure object: its captures initialized in order.
    fn lambda(&mut self, e: &'ast Node, ty: &CType, dest: Value) -> R<()> {
        let Some(class) = ty.name().map(str::to_string) else {
            return error(e, "a lambda without a closure type");
        };
        let layout = self.st.layout(self.b.ctx, e, &class)?;
        let captures: Vec<&'ast Node> = e
            .children()
            .filter(|c| !c.is_decl() && c.kind != "CompoundStmt")
            .collect();
        if captures.len() != layout.fields.len() {
            return unsupported(
                e,
                "a lambda capturing 'this' or by default in a way not modelled",
            );
        }
        let depth = self.b.cleanup_depth();
        for (field, init) in layout.fields.iter().zip(captures) {
            let cir = self.cir(e, &field.ty)?;
            let address = self.b.get_member(dest, field.index, &field.name, cir);
            if field.ty.is_reference() {
                let target = self.lvalue(init)?;
                self.b.store(target, address, 8);
            } else {
                self.init_into(init, address, true)?;
                self.push_destroy(CleanupKind::Eh, &field.ty, address)?;
            }
        }
        self.b.pop_cleanups_to(depth);
        Ok(())
    }

    /// Copies an object of type `ty` byte for byte (a trivial copy or assignment).
    pub fn copy_bytes(&mut self, e: &Node, ty: &CType, from: Value, to: Value) -> R<()> {
        let align = self.align(e, ty)?;
        let value = self.b.load(from, align);
        self.b.store(value, to, align);
        Ok(())
    }

    /// A pointer to the first element of an array.
    pub fn decay(&mut self, array: Value, element: Type) -> Value {
        let ptr = self.b.ctx.types.ptr(element);
        self.b.cast(CastKind::ArrayToPtrDecay, array, ptr)
    }

    /// Zero-initializes the object at `dest`.
    fn zero_into(&mut self, e: &Node, ty: &CType, dest: Value) -> R<()> {
        match ty.unqualified() {
            CType::Named(class) => {
                let layout = self.st.layout(self.b.ctx, e, class)?;
                for field in &layout.fields {
                    let cir = self.cir(e, &field.ty)?;
                    let address = self.b.get_member(dest, field.index, &field.name, cir);
                    self.zero_into(e, &field.ty, address)?;
                }
                for base in &layout.bases {
                    let base_layout = self.st.layout(self.b.ctx, e, &base.name)?;
                    let address =
                        self.b
                            .base_class_addr(dest, base_layout.cir, base.offset as u32, true);
                    self.zero_into(e, &CType::Named(base.name.clone()), address)?;
                }
                Ok(())
            }
            CType::Array(element, n) => {
                let element_cir = self.cir(e, element)?;
                let first = self.decay(dest, element_cir);
                let long = self.b.ctx.types.common().s64;
                for i in 0..n.unwrap_or(0) {
                    let index = self.b.const_int(long, i as i128);
                    let address = self.b.ptr_stride(first, index);
                    self.zero_into(e, element, address)?;
                }
                Ok(())
            }
            other => {
                let value = self.zero_value(e, other)?;
                let align = self.align(e, other)?;
                self.b.store(value, dest, align);
                Ok(())
            }
        }
    }

    /// `{a, b, c}` for arrays and aggregates; elements with destructors are destroyed
    /// if a later one throws.
    fn init_list(&mut self, e: &'ast Node, ty: &CType, dest: Value) -> R<()> {
        let (filler, elements) = e.init_list_parts();
        match ty.unqualified() {
            CType::Array(element, n) => {
                let element_cir = self.cir(e, element)?;
                let first = self.decay(dest, element_cir);
                let long = self.b.ctx.types.common().s64;
                let depth = self.b.cleanup_depth();
                for i in 0..n.unwrap_or(elements.len() as u64) as usize {
                    let index = self.b.const_int(long, i as i128);
                    let address = self.b.ptr_stride(first, index);
                    match elements.get(i).copied().or(filler) {
                        Some(init) if init.kind != "ArrayInitLoopExpr" => {
                            self.init_into(init, address, true)?
                        }
                        Some(init) => return unsupported(init, "ArrayInitLoopExpr"),
                        None => self.zero_into(e, element, address)?,
                    }
                    self.push_destroy(CleanupKind::Eh, element, address)?;
                }
                self.b.pop_cleanups_to(depth);
                Ok(())
            }
            CType::Named(class) => {
                let layout = self.st.layout(self.b.ctx, e, class)?;
                let depth = self.b.cleanup_depth();
                let mut next = elements.iter();
                for base in &layout.bases {
                    let base_layout = self.st.layout(self.b.ctx, e, &base.name)?;
                    let address =
                        self.b
                            .base_class_addr(dest, base_layout.cir, base.offset as u32, true);
                    let base_ty = CType::Named(base.name.clone());
                    match next.next() {
                        Some(init) => self.init_into(init, address, true)?,
                        None => self.zero_into(e, &base_ty, address)?,
                    }
                    self.push_destroy(CleanupKind::Eh, &base_ty, address)?;
                }
                for field in &layout.fields {
                    let cir = self.cir(e, &field.ty)?;
                    let address = self.b.get_member(dest, field.index, &field.name, cir);
                    match next.next() {
                        Some(init) if field.ty.is_reference() => {
                            let target = self.lvalue(init)?;
                            self.b.store(target, address, 8);
                        }
                        Some(init) => self.init_into(init, address, true)?,
                        None => self.zero_into(e, &field.ty, address)?,
                    }
                    self.push_destroy(CleanupKind::Eh, &field.ty, address)?;
                }
                self.b.pop_cleanups_to(depth);
                Ok(())
            }
            _ => match elements.first() {
                Some(init) => self.init_into(init, dest, true),
                None => self.zero_into(e, ty, dest),
            },
        }
    }

    /// Runs a constructor on `dest` (elided copies are built in place).
    fn construct(&mut self, e: &'ast Node, dest: Value, externally_destructed: bool) -> R<()> {
        let args: Vec<&'ast Node> = e.children().collect();
        if e.elidable
            && let [source] = args.as_slice()
        {
            // An elided copy: the source is built in place (as Clang's CodeGen does
            // with the argument without its implicit nodes).
            let inner = ignore_implicit(source);
            if !is_glvalue(inner) {
                return self.init_into(inner, dest, externally_destructed);
            }
        }
        let ty = self.ty(e)?;
        if let CType::Array(..) = ty.unqualified() {
            return self.construct_array(e, &ty, dest, &args);
        }
        let Some(class) = ty.name().map(str::to_string) else {
            return unsupported(e, format!("construction of '{ty}'"));
        };
        let ctor = self.st.constructor_called(e, &class)?;
        if e.zeroing {
            self.zero_into(e, &ty, dest)?;
        }
        if self.is_trivial_special_member(e, &class, ctor)? {
            if let [source] = args.as_slice() {
                let source = self.lvalue(source)?;
                self.copy_bytes(e, &ty, source, dest)?;
            }
            return Ok(());
        }
        let signature = self.st.signature(self.b.ctx, ctor)?;
        let mut values = vec![dest];
        // A base subobject with virtual bases is built by the base-object constructor,
        // with the sub-VTT its initializer set.
        // Microsoft: one constructor, told by its last argument whether it builds a
        // complete object.
        let pending_sub_vtt = self.pending_sub_vtt.take();
        let most_derived_flag = if self.st.takes_most_derived_flag(self.b.ctx, e, &class)? {
            Some(pending_sub_vtt.unwrap_or_else(|| self.most_derived_flag(true)))
        } else {
            None
        };
        let callee = match pending_sub_vtt {
            Some(vtt)
                if most_derived_flag.is_none()
                    && self.st.has_virtual_bases(self.b.ctx, e, &class)? =>
            {
                values.push(vtt);
                self.st.base_variant_callee(self.b.ctx, ctor)?
            }
            _ => self.st.callee(self.b.ctx, ctor)?,
        };
        values.extend(self.arguments(e, &signature.params, &args)?);
        values.extend(most_derived_flag);
        self.b.set_loc(loc_of(e));
        call_function(&mut self.b, callee, &values);
        self.checked(e)
    }

    /// Constructs every element of an array (of arrays) of a class, first to last; if
    /// one throws, the elements already built are destroyed, last first.
    fn construct_array(
        &mut self,
        e: &'ast Node,
        ty: &CType,
        dest: Value,
        args: &[&'ast Node],
    ) -> R<()> {
        let mut element = ty.unqualified();
        let mut count = 1u64;
        while let CType::Array(inner, n) = element {
            count *= n.unwrap_or(0);
            element = inner.unqualified();
        }
        let element = element.clone();
        let Some(class) = element.name().map(str::to_string) else {
            return unsupported(e, format!("construction of '{ty}'"));
        };
        let ctor = self.st.constructor_called(e, &class)?;
        if self.is_trivial_special_member(e, &class, ctor)? && args.is_empty() {
            if e.zeroing {
                self.zero_into(e, ty, dest)?;
            }
            return Ok(());
        }
        let element_cir = self.cir(e, &element)?;
        let first = self.decay(dest, element_cir);
        let callee = self.st.callee(self.b.ctx, ctor)?;
        let signature = self.st.signature(self.b.ctx, ctor)?;
        let long = self.b.ctx.types.common().s64;
        let depth = self.b.cleanup_depth();
        for i in 0..count {
            let index = self.b.const_int(long, i as i128);
            let address = self.b.ptr_stride(first, index);
            if e.zeroing {
                self.zero_into(e, &element, address)?;
            }
            if args.is_empty() {
                call_function(&mut self.b, callee, &[address]);
                self.push_destroy(CleanupKind::Eh, &element, address)?;
                continue;
            }
            // Each element is its own full expression: the temporaries of its arguments
            // die after it is built, and if one of their destructors throws, the element
            // is destroyed with those before it.
            let bool_ty = self.b.ctx.types.common().bool;
            let built = self.b.alloca(bool_ty, "arrayinit.element.built", true, 1);
            let no = self.b.const_bool(false);
            self.b.store(no, built, 1);
            if let Some(dtor) = self.st.destructor(self.b.ctx, e, &class)? {
                self.b.push_cleanup(CleanupKind::Eh, move |b| {
                    let is_built = b.load(built, 1);
                    b.begin_if(is_built, false);
                    call_function(b, dtor, &[address]);
                    b.end_if();
                });
            }
            let mark = self.b.begin_full_expression();
            let mut values = vec![address];
            values.extend(self.arguments(e, &signature.params, args)?);
            call_function(&mut self.b, callee, &values);
            let yes = self.b.const_bool(true);
            self.b.store(yes, built, 1);
            self.b.end_full_expression(mark);
        }
        self.b.pop_cleanups_to(depth);
        self.checked(e)
    }

    /// Whether a constructor or assignment is trivial (a copy of bytes, or nothing).
    pub fn is_trivial_special_member(&mut self, e: &Node, class: &str, decl: &Node) -> R<bool> {
        if !(decl.is_implicit || decl.explicitly_defaulted.as_deref() == Some("default")) {
            return Ok(false);
        }
        let class_node = self.st.class_node(e, class)?;
        let data = class_node.definition_data.clone().unwrap_or_default();
        let params = decl.children().filter(|c| c.kind == "ParmVarDecl").count();
        let text = decl.ty.as_ref().map(|q| q.qual_type.as_str()).unwrap_or("");
        Ok(match (decl.kind.as_str(), params) {
            ("CXXConstructorDecl", 0) => data.default_ctor.trivial,
            ("CXXConstructorDecl", _) if text.contains("&&") => data.move_ctor.trivial,
            ("CXXConstructorDecl", _) => data.copy_ctor.trivial,
            ("CXXMethodDecl", _) if text.contains("&&") => data.move_assign.trivial,
            ("CXXMethodDecl", _) => data.copy_assign.trivial,
            _ => false,
        })
    }

    /// Evaluates call arguments (right to left, as g++ does) for parameters of the given
    /// types: classes in temporaries passed by address, references by address.
    pub fn arguments(&mut self, e: &Node, params: &[CType], args: &[&'ast Node]) -> R<Vec<Value>> {
        let mut values = vec![None; args.len()];
        // Microsoft ABI: the callee destroys its by-value class parameters; the caller
        // destroys an argument only if an exception leaves before the call (an EH-only
        // cleanup, deactivated once every argument is built).
        let callee_destroys = self.st.abi == ehir_core::abi::EhAbi::Msvc;
        let mut until_the_call = Vec::new();
        for (i, arg) in args.iter().enumerate().rev() {
            let param = params.get(i).cloned();
            let value = match param {
                Some(param) if param.is_reference() => self.lvalue(arg)?,
                Some(param) if self.st.is_class(&param) => {
                    let cir = self.cir(e, &param)?;
                    let align = self.align(e, &param)?;
                    let temp = self.b.alloca(cir, "agg.tmp", false, align);
                    self.init_into(arg, temp, callee_destroys)?;
                    if callee_destroys
                        && let Some(guard) =
                            self.push_destroy_handle(CleanupKind::Eh, &param, temp)?
                    {
                        until_the_call.push(guard);
                    }
                    temp
                }
                _ => {
                    let arg_ty = self.ty(arg)?;
                    if self.st.is_class(&arg_ty) {
                        return unsupported(arg, "a class passed through '...'");
                    }
                    self.scalar(arg)?
                }
            };
            values[i] = Some(value);
        }
        for guard in until_the_call.into_iter().rev() {
            self.b.deactivate_cleanup(guard);
        }
        Ok(values.into_iter().flatten().collect())
    }

    /// A call; `dest` receives a class result.
    pub fn call(&mut self, e: &'ast Node, dest: Option<Value>) -> R<Option<Value>> {
        let children: Vec<&'ast Node> = e.children().collect();
        let Some((&callee_expr, rest)) = children.split_first() else {
            return error(e, "a call without a callee");
        };
        let mut this = None;
        let mut args: Vec<&'ast Node> = rest.to_vec();
        let target: Option<&'ast Node>;
        // The vtable slot of a virtual member function called.
        let mut virtual_index = None;
        let callee_inner = strip_parens(callee_expr);
        if e.kind == "CXXMemberCallExpr"
            && callee_inner.kind == "BinaryOperator"
            && matches!(callee_inner.opcode.as_deref(), Some(".*" | "->*"))
        {
            return self.member_function_pointer_call(e, callee_inner, rest, dest);
        }
        if e.kind == "CXXMemberCallExpr" {
            if callee_inner.kind != "MemberExpr" {
                return unsupported(e, format!("member call through '{}'", callee_inner.kind));
            }
            let Some(method) = callee_inner
                .referenced_member_decl
                .as_deref()
                .and_then(|id| self.st.index.by_id.get(id).copied())
            else {
                return error(e, "a member call of an unknown method");
            };
            virtual_index = self.st.virtual_slot(self.b.ctx, method, SlotKind::Method)?;
            let base = self.operand(callee_inner, 0)?;
            if virtual_index.is_some() {
                // Clang's JSON does not say whether the name was qualified: a method that
                // is not the final overrider in the object's static type (`B::f()` in
                // `D::f`) can only have been named qualified, and is called directly.
                let mut object = base;
                while object.kind == "ImplicitCastExpr"
                    && let Some(inner) = object.children().next()
                {
                    object = inner;
                }
                let object_ty = self.ty(object)?;
                let object_ty = match object_ty.pointee() {
                    Some(pointee) if callee_inner.is_arrow => pointee.clone(),
                    _ => object_ty,
                };
                if let CType::Named(class) = object_ty.unqualified()
                    && !self.is_final_overrider(e, class, method)?
                {
                    virtual_index = None;
                }
            }
            let object = if callee_inner.is_arrow {
                self.scalar(base)?
            } else {
                self.lvalue(base)?
            };
            this = Some(self.msvc_adjusted_this(method, object, virtual_index.is_some())?);
            target = Some(method);
        } else {
            target =
                direct_callee(callee_inner).and_then(|id| self.st.index.by_id.get(id).copied());
            if e.kind == "CXXOperatorCallExpr"
                && let Some(method) = target
                && method.kind == "CXXMethodDecl"
            {
                virtual_index = self.st.virtual_slot(self.b.ctx, method, SlotKind::Method)?;
                let object = args.remove(0);
                // The right operand of an assignment is evaluated first (g++ order).
                let object = self.lvalue(object)?;
                this = Some(self.msvc_adjusted_this(method, object, virtual_index.is_some())?);
            }
        }
        let (symbol, signature) = match target {
            Some(decl) => {
                if let Some(name) = decl.name.as_deref()
                    && name.starts_with("__builtin")
                {
                    match name {
                        // Code generation is never constant evaluation.
                        "__builtin_is_constant_evaluated" => {
                            return Ok(Some(self.b.const_bool(false)));
                        }
                        // `__builtin_expect(value, expected)`: the value.
                        "__builtin_expect" => {
                            let [value, expected] = args.as_slice() else {
                                return error(e, "__builtin_expect takes two arguments");
                            };
                            self.ignored(expected)?;
                            return Ok(Some(self.scalar(value)?));
                        }
                        // `__builtin_alloca(size)`: `size` bytes in this frame, 16-aligned.
                        "__builtin_alloca" => {
                            let [size] = args.as_slice() else {
                                return error(e, "__builtin_alloca takes one argument");
                            };
                            let size = self.scalar(size)?;
                            let u8_ty = self.b.ctx.types.common().u8;
                            let bytes = self.b.dynamic_alloca(u8_ty, size, "bi_alloca", 16);
                            let void_ptr = self.b.ctx.types.common().void_ptr;
                            return Ok(Some(self.b.cast(CastKind::Bitcast, bytes, void_ptr)));
                        }
                        // The C library's functions of the same name.
                        "__builtin_strcmp" | "__builtin_strlen" | "__builtin_abort" => {}
                        _ => return unsupported(e, format!("builtin '{name}'")),
                    }
                }
                if let Some(class) = &self.st.class_of(decl)
                    && decl.kind == "CXXMethodDecl"
                    && self.is_trivial_special_member(e, class, decl)?
                    && let (Some(object), [source]) = (this, args.as_slice())
                {
                    // A trivial assignment operator.
                    let ty = CType::Named(class.clone());
                    let source = self.lvalue(source)?;
                    self.copy_bytes(e, &ty, source, object)?;
                    return Ok(Some(object));
                }
                let callee = self.st.callee(self.b.ctx, decl)?;
                let signature = self.st.signature(self.b.ctx, decl)?;
                (Some(callee.symbol), signature)
            }
            None => {
                let callee_ty = self.ty(callee_expr)?;
                let Some(function) = callee_ty.function().cloned() else {
                    return unsupported(e, format!("call through '{callee_ty}'"));
                };
                let cir = self.cir(e, &CType::Function(Box::new(function.clone())))?;
                let indirect_result = self.st.is_class(&function.result);
                (
                    None,
                    super::function::Signature {
                        cir,
                        result: function.result,
                        params: function.params,
                        this_class: None,
                        indirect_result,
                        nothrow: function.noexcept,
                        variadic: function.variadic,
                    },
                )
            }
        };
        let (symbol, function_pointer) = match (symbol, virtual_index, this) {
            (_, Some(index), Some(object)) => {
                let pointer = self.virtual_function(object, index);
                let pointer_ty = self.b.ctx.types.ptr(signature.cir);
                let pointer = self.b.cast(CastKind::Bitcast, pointer, pointer_ty);
                (None, Some(pointer))
            }
            (Some(symbol), _, _) => (Some(symbol), None),
            (None, _, _) => (None, Some(self.scalar(callee_expr)?)),
        };
        let mut values = Vec::new();
        let result_slot = self.indirect_result_slot(e, &signature, dest)?;
        values.extend(result_slot);
        if let Some(this) = this {
            values.push(this);
        }
        values.extend(self.arguments(e, &signature.params, &args)?);
        self.b.set_loc(loc_of(e));
        let flags = call_flags(signature.nothrow);
        let result = match (symbol, function_pointer) {
            (Some(symbol), _) => {
                let name = self.b.ctx.name(symbol).to_string();
                self.b.call_named(&name, signature.cir, &values, flags)
            }
            (None, Some(pointer)) => self.b.call_indirect(pointer, signature.cir, &values, flags),
            (None, None) => None,
        };
        self.checked(e)?;
        Ok(result_slot.or(result))
    }
}

/// The expression a use of a non-type template parameter stands for in an
/// instantiation (the child that is not the parameter's declaration).
fn replacement(e: &Node) -> R<&Node> {
    match e.children().find(|c| !c.is_decl()) {
        Some(inner) => Ok(inner),
        None => error(e, "a template parameter without its value"),
    }
}

/// The function a callee expression names directly (`f`, `&f`, `ns::f`).
fn direct_callee(callee: &Node) -> Option<&str> {
    let mut e = callee;
    loop {
        match e.kind.as_str() {
            "ImplicitCastExpr" | "ParenExpr"
                if matches!(
                    e.cast_kind.as_deref(),
                    None | Some("FunctionToPointerDecay") | Some("BuiltinFnToFnPtr")
                ) =>
            {
                e = e.children().next()?;
            }
            "DeclRefExpr" => {
                let decl = e.referenced_decl.as_ref()?;
                return matches!(decl.kind.as_str(), "FunctionDecl" | "CXXMethodDecl")
                    .then_some(decl.id.as_str());
            }
            "MemberExpr" => return e.referenced_member_decl.as_deref(),
            _ => return None,
        }
    }
}

/// Skips the implicit nodes around an expression (temporaries materialized or bound,
/// no-op casts), as Clang's `Expr::IgnoreImplicit`.
pub fn ignore_implicit(mut e: &Node) -> &Node {
    loop {
        let skip = match e.kind.as_str() {
            "MaterializeTemporaryExpr" | "CXXBindTemporaryExpr" | "ExprWithCleanups" => true,
            "ImplicitCastExpr" => e.cast_kind.as_deref() == Some("NoOp"),
            _ => false,
        };
        match e.children().next() {
            Some(inner) if skip => e = inner,
            _ => return e,
        }
    }
}

/// Whether an expression is a glvalue.
pub fn is_glvalue(e: &Node) -> bool {
    matches!(e.value_category.as_deref(), Some("lvalue" | "xvalue"))
}

/// The comparison predicate of an operator.
fn comparison(opcode: &str) -> Option<CmpPredicate> {
    Some(match opcode {
        "==" => CmpPredicate::Eq,
        "!=" => CmpPredicate::Ne,
        "<" => CmpPredicate::Lt,
        "<=" => CmpPredicate::Le,
        ">" => CmpPredicate::Gt,
        ">=" => CmpPredicate::Ge,
        _ => return None,
    })
}

/// The bytes of a string literal as Clang prints it (`"a\n"`, with C escapes).
pub fn unescape_string_literal(text: &str) -> Option<Vec<u8>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let escape = *bytes.get(i)?;
        i += 1;
        out.push(match escape {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'0'..=b'7' => {
                let mut value = (escape - b'0') as u32;
                let mut digits = 1;
                while digits < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + (bytes[i] - b'0') as u32;
                    i += 1;
                    digits += 1;
                }
                value as u8
            }
            b'x' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    i += 1;
                }
                u8::from_str_radix(std::str::from_utf8(&bytes[start..i]).ok()?, 16).ok()?
            }
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'e' => 27,
            other => other,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::unescape_string_literal;

    #[test]
    fn string_literals_unescape() {
        assert_eq!(
            unescape_string_literal(r#""a\n\t\"\\\0x\x41\101""#).unwrap(),
            b"a\n\t\"\\\0xAA".to_vec()
        );
        assert_eq!(unescape_string_literal("no quotes"), None);
    }
}
