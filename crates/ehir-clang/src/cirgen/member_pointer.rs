//! Pointers to members on the Itanium ABI. To a data member: the member's byte offset
//! in the class, an `!s64i` (-1 for null, as 0 is the first member's offset). To a
//! member function: two pointer-sized words `{ptr, adj}` (`!cir.array<!cir.ptr<!void> x
//! 2>`, all zero for null): `ptr` is the function's address, or for a virtual function
//! 1 + the byte offset of its vtable slot (function addresses are even); `adj` is the
//! adjustment of `this` (0: the front end makes them only for members of the pointer's
//! own class). The Microsoft representations are not modelled.

use super::expr::{call_flags, strip_parens};
use super::function::{FnGen, Signature};
use super::{R, error, loc_of, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_builder::Value;
use ehir_core::{AttrData, BinaryOp, CastKind, CmpPredicate, OpKind};

impl<'ast> FnGen<'_, 'ast, '_> {
    /// `&C::m`: the offset of data member `m`, or the words of member function `m`.
    pub fn member_pointer_of(&mut self, e: &'ast Node, operand: &'ast Node) -> R<Value> {
        let ty = self.ty(e)?;
        self.check_member_pointer(e, &ty)?;
        let CType::MemberPointer(member, class) = ty.unqualified() else {
            return error(e, "'&' of a member without a member pointer type");
        };
        let Some(decl) = strip_parens(operand).referenced_decl.as_ref() else {
            return unsupported(e, "a pointer to member of this kind");
        };
        if member.function().is_some() {
            let Some(&method) = self.st.index.by_id.get(decl.id.as_str()) else {
                return error(e, "a pointer to an unknown member function");
            };
            if self.st.class_of(method).as_deref() != Some(class.as_str()) {
                return unsupported(
                    e,
                    format!("a pointer to a member function not declared in '{class}'"),
                );
            }
            let word = self.st.member_function_word(self.b.ctx, method)?;
            let void_ptr = self.b.ctx.types.common().void_ptr;
            let ptr = match word {
                AttrData::GlobalView { symbol, .. } => {
                    let sig = self.st.signature(self.b.ctx, method)?.cir;
                    let function = self.b.get_global(symbol, sig);
                    self.b.cast(CastKind::Bitcast, function, void_ptr)
                }
                AttrData::IntPtr { value, .. } => {
                    let s64 = self.b.ctx.types.common().s64;
                    let bits = self.b.const_int(s64, i128::from(value));
                    self.b.cast(CastKind::IntToPtr, bits, void_ptr)
                }
                _ => return error(e, "a member function pointer word of an unknown kind"),
            };
            let adj = self.b.const_null(void_ptr);
            return self.member_function_pointer_value(e, &ty, ptr, adj);
        }
        if decl.kind != "FieldDecl" {
            return unsupported(e, "a pointer to member of this kind");
        }
        let layout = self.st.layout(self.b.ctx, e, class)?;
        let Some(offset) = layout
            .fields
            .iter()
            .find(|f| f.id == decl.id)
            .map(|f| f.offset)
        else {
            return unsupported(
                e,
                format!("a pointer to a member not declared in '{class}'"),
            );
        };
        let s64 = self.b.ctx.types.common().s64;
        Ok(self.b.const_int(s64, offset as i128))
    }

    /// The value of a pointer to member function of type `ty` with words `ptr` and `adj`.
    fn member_function_pointer_value(
        &mut self,
        e: &Node,
        ty: &CType,
        ptr: Value,
        adj: Value,
    ) -> R<Value> {
        let cir = self.cir(e, ty)?;
        let slot = self.b.alloca(cir, "memptr.tmp", false, 8);
        let words = self.member_function_words(slot);
        self.b.store(ptr, words, 8);
        let one = self.b.const_int(self.b.ctx.types.common().s64, 1);
        let second = self.b.ptr_stride(words, one);
        self.b.store(adj, second, 8);
        Ok(self.b.load(slot, 8))
    }

    /// The first of the two words of the pointer to member function at `address`.
    fn member_function_words(&mut self, address: Value) -> Value {
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let words = self.b.ctx.types.ptr(void_ptr);
        self.b.cast(CastKind::ArrayToPtrDecay, address, words)
    }

    /// The two words of pointer to member function `value`.
    fn member_function_pointer_words(
        &mut self,
        e: &Node,
        ty: &CType,
        value: Value,
    ) -> R<(Value, Value)> {
        let cir = self.cir(e, ty)?;
        let slot = self.b.alloca(cir, "memptr.tmp", false, 8);
        self.b.store(value, slot, 8);
        let words = self.member_function_words(slot);
        let ptr = self.b.load(words, 8);
        let one = self.b.const_int(self.b.ctx.types.common().s64, 1);
        let second = self.b.ptr_stride(words, one);
        let adj = self.b.load(second, 8);
        Ok((ptr, adj))
    }

    /// A null pointer to member of type `to`.
    pub fn null_member_pointer(&mut self, e: &Node, to: &CType) -> R<Value> {
        self.check_member_pointer(e, to)?;
        if let CType::MemberPointer(member, _) = to.unqualified()
            && member.function().is_some()
        {
            let void_ptr = self.b.ctx.types.common().void_ptr;
            let null = self.b.const_null(void_ptr);
            return self.member_function_pointer_value(e, to, null, null);
        }
        let s64 = self.b.ctx.types.common().s64;
        Ok(self.b.const_int(s64, -1))
    }

    /// Whether pointer to member `value` of type `ty` is not null.
    pub fn member_pointer_is_set(&mut self, e: &Node, ty: &CType, value: Value) -> R<Value> {
        self.check_member_pointer(e, ty)?;
        if let CType::MemberPointer(member, _) = ty.unqualified()
            && member.function().is_some()
        {
            let (ptr, _) = self.member_function_pointer_words(e, ty, value)?;
            let null = self.b.const_null(self.b.ctx.types.common().void_ptr);
            return Ok(self.b.cmp(CmpPredicate::Ne, ptr, null));
        }
        let s64 = self.b.ctx.types.common().s64;
        let null = self.b.const_int(s64, -1);
        Ok(self.b.cmp(CmpPredicate::Ne, value, null))
    }

    /// `object.*pm` and `pointer->*pm` for a pointer to data member: the member's address,
    /// `pm` bytes into the object.
    pub fn member_through_pointer(&mut self, e: &'ast Node, arrow: bool) -> R<Value> {
        let (object, member) = (self.operand(e, 0)?, self.operand(e, 1)?);
        let member_ty = self.ty(member)?;
        self.check_member_pointer(e, &member_ty)?;
        let base = if arrow {
            self.scalar(object)?
        } else {
            self.lvalue(object)?
        };
        let offset = self.scalar(member)?;
        let u8_ptr = self.b.ctx.types.ptr(self.b.ctx.types.common().u8);
        let bytes = self.b.cast(CastKind::Bitcast, base, u8_ptr);
        let address = self.b.ptr_stride(bytes, offset);
        let ty = self.ty(e)?;
        let cir = self.cir(e, &ty)?;
        let pointer = self.b.ctx.types.ptr(cir);
        Ok(self.b.cast(CastKind::Bitcast, address, pointer))
    }

    /// `(object.*pmf)(args)`, `(pointer->*pmf)(args)`: `this` adjusted by `adj`, then the
    /// function `ptr` names, read from the object's vtable when it is virtual (odd).
    pub fn member_function_pointer_call(
        &mut self,
        e: &'ast Node,
        callee: &'ast Node,
        args: &[&'ast Node],
        dest: Option<Value>,
    ) -> R<Option<Value>> {
        let arrow = callee.opcode.as_deref() == Some("->*");
        let (object, member) = (self.operand(callee, 0)?, self.operand(callee, 1)?);
        let member_ty = self.ty(member)?;
        self.check_member_pointer(e, &member_ty)?;
        let CType::MemberPointer(function, class) = member_ty.unqualified() else {
            return error(e, "a call through a pointer to member of another type");
        };
        let Some(function) = function.function().cloned() else {
            return error(e, "a call through a pointer to data member");
        };
        let this = if arrow {
            self.scalar(object)?
        } else {
            self.lvalue(object)?
        };
        let pm = self.scalar(member)?;
        let (ptr, adj) = self.member_function_pointer_words(e, &member_ty, pm)?;
        let common = *self.b.ctx.types.common();
        let u8_ptr = self.b.ctx.types.ptr(common.u8);
        let bytes = self.b.cast(CastKind::Bitcast, this, u8_ptr);
        let adjustment = self.b.cast(CastKind::PtrToInt, adj, common.s64);
        let adjusted = self.b.ptr_stride(bytes, adjustment);
        let record = self.st.layout(self.b.ctx, e, class)?.cir;
        let this_ty = self.b.ctx.types.ptr(record);
        let this = self.b.cast(CastKind::Bitcast, adjusted, this_ty);
        // The function: `ptr`, or the vtable entry `ptr - 1` bytes past the vptr.
        let bits = self.b.cast(CastKind::PtrToInt, ptr, common.s64);
        let one = self.b.const_int(common.s64, 1);
        let low = self.b.binop(BinaryOp::And, bits, one);
        let is_virtual = self.b.cmp(CmpPredicate::Eq, low, one);
        self.b.begin_conditional();
        let op = self
            .b
            .create_region_op(OpKind::Ternary, &[is_virtual], &[common.void_ptr], 2);
        self.b.enter_region(op, 0, false);
        let vptr_slot_ty = self.b.ctx.types.ptr(u8_ptr);
        let vptr_slot = self.b.cast(CastKind::Bitcast, adjusted, vptr_slot_ty);
        let vptr = self.b.load(vptr_slot, 8);
        let offset = self.b.binop(BinaryOp::Sub, bits, one);
        let entry = self.b.ptr_stride(vptr, offset);
        let entry_ty = self.b.ctx.types.ptr(common.void_ptr);
        let entry = self.b.cast(CastKind::Bitcast, entry, entry_ty);
        let target = self.b.load(entry, 8);
        self.b.exit_region_yielding(&[target]);
        self.b.enter_region(op, 1, false);
        self.b.exit_region_yielding(&[ptr]);
        self.b.end_conditional();
        let target = self.b.result(op, 0);
        let cir = self
            .st
            .function_cir_type(self.b.ctx, e, &function, Some(class))?;
        let pointer_ty = self.b.ctx.types.ptr(cir);
        let pointer = self.b.cast(CastKind::Bitcast, target, pointer_ty);
        let indirect_result = self.st.is_class(&function.result);
        let signature = Signature {
            cir,
            result: function.result.clone(),
            params: function.params.clone(),
            this_class: Some(class.clone()),
            indirect_result,
            nothrow: function.noexcept,
            variadic: function.variadic,
        };
        let mut values = Vec::new();
        let result_slot = self.indirect_result_slot(e, &signature, dest)?;
        values.extend(result_slot);
        values.push(this);
        values.extend(self.arguments(e, &signature.params, args)?);
        self.b.set_loc(loc_of(e));
        let result = self.b.call_indirect(
            pointer,
            signature.cir,
            &values,
            call_flags(signature.nothrow),
        );
        self.checked(e)?;
        Ok(result_slot.or(result))
    }

    /// Pointers to members are modelled on the Itanium ABI (see `State::check_member_pointer`).
    pub fn check_member_pointer(&mut self, e: &Node, t: &CType) -> R<()> {
        self.st.cir_type(self.b.ctx, e, t).map(|_| ())
    }
}
