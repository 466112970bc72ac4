//! Virtual functions on the Microsoft C++ ABI, for single inheritance through the base
//! that holds the vftable pointer (`-fdump-record-layouts`' "primary base"), as Clang for
//! `x86_64-pc-windows-msvc` generates them:
//!
//! - the vftable slots ([`virtual_slots`]): the base's, overridden in place, then the
//!   class's new virtual functions grouped by name in the order of each name's first
//!   declaration, overloads of one name in reverse declaration order; a virtual
//!   destructor takes one slot, the scalar deleting destructor;
//! - the vftable, an internal CIR global `??_7<class>6B@` of `1 + slots` pointers: the
//!   class's Complete Object Locator `??_R4<class>6B@`, then the functions (`_purecall`
//!   for a pure one). The vftable pointer holds the address of element 1, where Clang's
//!   `??_7<class>6B@` alias points;
//! - the RTTI objects the code and vftables refer to are declared as module globals
//!   without an initializer under their Microsoft names (the Complete Object Locator, and
//!   the TypeDescriptors `??_R0…@8` that `typeid` and `dynamic_cast` name), and the class's
//!   `cir.typeinfo` item carries its bases: the LLVM emitter defines the locator, the
//!   class hierarchy and base class descriptors from them (`ehir_llvm::msvc_rtti`);
//! - the scalar deleting destructor `??_G…` (`void *(unsigned flags)`): destroys the
//!   object and, when bit 0 of the flags is set, releases its storage with the class's
//!   `operator delete` (or the global sized one when bit 2 is set too, or the class has
//!   none), also when the destructor throws; `delete p` calls it through the vftable with
//!   flags 1, `::delete p` with flags 5;
//! - `typeid` of a polymorphic glvalue calls msvcrt's `__RTtypeid`, of anything else is
//!   the address of the type's TypeDescriptor (what a `type_info` is on this ABI);
//!   `dynamic_cast` calls `__RTDynamicCast` (`__RTCastToVoid` for `void *`), which returns
//!   null for a null pointer and throws `bad_cast` for a failed reference cast.
//!
//! Names come from `ehir_core::abi::type_names`; the runtime's from
//! `ehir_core::abi::runtime`.

use super::class::{Callee, call_function};
use super::function::FnGen;
use super::vtable::{DynamicCast, SlotKind, TypeidOperand, VirtualSlot, slot_key};
use super::{Pending, R, State, error, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_builder::{ModuleBuilder, Value};
use ehir_core::abi::runtime::{
    MSVC_PURECALL, MSVC_RTCAST_TO_VOID, MSVC_RTDYNAMIC_CAST, MSVC_RTTYPEID, MSVC_SIZED_DELETE,
};
use ehir_core::abi::type_names::{
    complete_object_locator_symbol, descriptor_code, msvc_class_name,
    scalar_deleting_destructor_symbol, type_descriptor_name, vftable_symbol,
};
use ehir_core::{
    AttrData, BinaryOp, CastKind, CleanupKind, CmpPredicate, Linkage, ModuleCtx, Symbol, Type,
};

/// The number of fields of a Complete Object Locator (32-bit each).
const LOCATOR_FIELDS: u64 = 6;
/// The bytes of a TypeDescriptor before its decorated name: the `type_info` vftable
/// pointer and the undecorated-name cache.
const DESCRIPTOR_HEADER: u64 = 16;
/// A flag of the scalar deleting destructor: release the storage too.
const DELETE_STORAGE: i128 = 1;
/// A flag of the scalar deleting destructor: release the storage with the global
/// `operator delete` (`::delete p`), not the class's.
const DELETE_GLOBAL: i128 = 4;

/// The vftable slots of a class on the Microsoft ABI: those of the base that holds its
/// vftable pointer (`inherited`), overridden in place by the class's methods of the same
/// name and type; then the class's new virtual functions, grouped by name in the order
/// each name is first declared in the class (any member counts), a group's overloads in
/// reverse declaration order (Clang's `GroupNewVirtualOverloads`). The destructor has one
/// slot ([`SlotKind::DeletingDestructor`]).
pub fn virtual_slots(class: &Node, inherited: Vec<VirtualSlot>) -> Vec<VirtualSlot> {
    let mut slots = inherited;
    let mut groups: Vec<(&str, Vec<&Node>)> = Vec::new();
    for member in class.children() {
        let Some(name) = member.name.as_deref() else {
            continue;
        };
        let index = match groups.iter().position(|(group, _)| *group == name) {
            Some(index) => index,
            None => {
                groups.push((name, Vec::new()));
                groups.len() - 1
            }
        };
        if matches!(
            member.kind.as_str(),
            "CXXMethodDecl" | "CXXDestructorDecl" | "CXXConversionDecl"
        ) {
            groups[index].1.push(member);
        }
    }
    for member in groups
        .iter()
        .flat_map(|(_, methods)| methods.iter().rev().copied())
    {
        let (kind, key) = if member.kind == "CXXDestructorDecl" {
            (SlotKind::DeletingDestructor, "~".to_string())
        } else {
            (SlotKind::Method, slot_key(member))
        };
        if let Some(slot) = slots.iter_mut().find(|s| s.kind == kind && s.key == key) {
            slot.id = member.id.clone();
            slot.pure = member.pure;
        } else if member.is_virtual {
            slots.push(VirtualSlot {
                kind,
                key,
                id: member.id.clone(),
                pure: member.pure,
            });
        }
    }
    slots
}

impl<'ast> State<'ast> {
    /// The name of a class in its RTTI symbols (`In@ns@@`); declares its typeinfo (with
    /// its bases), from which the emitter builds the class hierarchy.
    fn msvc_rtti_class(&mut self, ctx: &mut ModuleCtx, node: &Node, class: &str) -> R<String> {
        let typeinfo = self.typeinfo(ctx, node, &CType::Named(class.to_string()))?;
        match msvc_class_name(ctx, ctx.name(typeinfo)) {
            Some(name) => Ok(name),
            None => unsupported(node, format!("RTTI of '{class}'")),
        }
    }

    /// Declares (once) a module global without an initializer for an RTTI object the
    /// emitter defines.
    fn declare_rtti_object(&mut self, ctx: &mut ModuleCtx, name: &str, ty: Type) -> Symbol {
        let symbol = ctx.sym(name);
        self.declare_rtti_global(symbol, ty);
        symbol
    }

    /// The TypeDescriptor of a type (declared on first use) and its CIR type (its size is
    /// the descriptor's: header, `.` and code, NUL).
    fn type_descriptor(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        t: &CType,
    ) -> R<(Symbol, Type)> {
        if let CType::Named(class) = t.unqualified() {
            // Its record (the class key of its name) is declared with its layout.
            self.layout(ctx, node, class)?;
        }
        let mangled = self.mangle_type(node, t.unqualified())?;
        let name = type_descriptor_name(ctx, &format!("_ZTI{mangled}"));
        let code_len = descriptor_code(&name).map_or(0, str::len) as u64;
        let bytes = ctx.types.common().u8;
        let ty = ctx.types.array(bytes, DESCRIPTOR_HEADER + code_len + 2);
        Ok((self.declare_rtti_object(ctx, &name, ty), ty))
    }

    /// The vftable of a dynamic class on the Microsoft ABI (defined, with the functions it
    /// points to queued, on first use): its symbol and its CIR type.
    pub fn vftable(&mut self, ctx: &mut ModuleCtx, node: &Node, class: &str) -> R<(Symbol, Type)> {
        let layout = self.layout(ctx, node, class)?;
        let Some(slots) = layout.virtual_slots.clone() else {
            return error(node, format!("vftable of '{class}', which is not dynamic"));
        };
        let class_name = self.msvc_rtti_class(ctx, node, class)?;
        // The dynamic type `__RTtypeid` answers with (the locator points to it too).
        self.type_descriptor(ctx, node, &CType::Named(class.to_string()))?;
        let void_ptr = ctx.types.common().void_ptr;
        let ty = ctx.types.array(void_ptr, 1 + slots.len() as u64);
        let symbol = ctx.sym(&vftable_symbol(&class_name));
        if self.rtti_globals.iter().any(|g| g.name == symbol) {
            return Ok((symbol, ty));
        }
        let s32 = ctx.types.common().s32;
        let locator_ty = ctx.types.array(s32, LOCATOR_FIELDS);
        let locator = self.declare_rtti_object(
            ctx,
            &complete_object_locator_symbol(&class_name),
            locator_ty,
        );
        let mut entries = vec![AttrData::GlobalView {
            symbol: locator,
            indices: vec![],
            ty: Some(void_ptr),
        }];
        for slot in &slots {
            let function = if slot.pure {
                let sig = ctx.types.func(vec![], None, false);
                self.address_taken
                    .push((MSVC_PURECALL.to_string(), sig, false));
                MSVC_PURECALL.to_string()
            } else {
                let Some(decl) = self.index.by_id.get(slot.id.as_str()).copied() else {
                    return error(node, format!("a virtual function of '{class}' not found"));
                };
                let callee = self.callee(ctx, decl)?;
                let name = ctx.name(callee.symbol).to_string();
                if slot.kind == SlotKind::DeletingDestructor {
                    let Some(deleting) = scalar_deleting_destructor_symbol(&name) else {
                        return unsupported(decl, format!("deleting destructor of '{name}'"));
                    };
                    self.enqueue(&deleting, Pending::DeletingDestructor(decl));
                    deleting
                } else {
                    if !self.index.definitions.contains_key(decl.id.as_str()) && !decl.is_implicit {
                        // Defined elsewhere: declared in the module.
                        self.address_taken
                            .push((name.clone(), callee.sig, callee.nothrow));
                    }
                    name
                }
            };
            entries.push(AttrData::GlobalView {
                symbol: ctx.sym(&function),
                indices: vec![],
                ty: Some(void_ptr),
            });
        }
        let elements = entries.into_iter().map(|e| ctx.attrs.intern(e)).collect();
        let ty = self.define_pointer_table(ctx, symbol, elements);
        Ok((symbol, ty))
    }

    /// The `operator delete` that deleting an object of `class` calls: the class's own
    /// (or a base's), else the global sized one.
    fn deallocation_function(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<Callee> {
        let mut classes = vec![class.to_string()];
        let mut next = 0;
        while next < classes.len() {
            let current = classes[next].clone();
            next += 1;
            let class_node = self.class_node(node, &current)?;
            if let Some(delete) = class_node
                .children()
                .find(|c| c.kind == "CXXMethodDecl" && c.name.as_deref() == Some("operator delete"))
            {
                return self.callee(ctx, delete);
            }
            let layout = self.layout(ctx, node, &current)?;
            classes.extend(layout.bases.iter().map(|b| b.name.clone()));
        }
        Ok(global_sized_delete(ctx))
    }
}

/// The global sized `operator delete(void *, size_t)`.
fn global_sized_delete(ctx: &mut ModuleCtx) -> Callee {
    let common = *ctx.types.common();
    Callee {
        symbol: ctx.sym(MSVC_SIZED_DELETE),
        sig: ctx
            .types
            .func(vec![common.void_ptr, common.u64], None, false),
        nothrow: true,
    }
}

/// Generates the scalar deleting destructor (`??_G…`) of a destructor declaration.
pub fn generate_scalar_deleting_destructor<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    decl: &'ast Node,
) -> R<()> {
    let Some(class) = state.class_of(decl) else {
        return error(decl, "a destructor outside a class");
    };
    let destructor = state.callee(mb.ctx(), decl)?;
    let destructor_name = mb.ctx().name(destructor.symbol).to_string();
    let Some(name) = scalar_deleting_destructor_symbol(&destructor_name) else {
        return unsupported(decl, format!("deleting destructor of '{destructor_name}'"));
    };
    let size = state.layout(mb.ctx(), decl, &class)?.size;
    let delete = state.deallocation_function(mb.ctx(), decl, &class)?;
    let global_delete = global_sized_delete(mb.ctx());
    // A class's own `operator delete` is bypassed by `::delete`.
    let class_delete = (delete.symbol != global_delete.symbol).then_some(delete);
    let (sig, params) = deleting_destructor_signature(mb.ctx(), destructor.sig);
    let mut b = mb.function(&name, sig, &params);
    // Only this module's vftables point to it.
    b.func_mut().linkage = Linkage::Internal;
    b.set_loc(super::loc_of(decl));
    let [this, flags] = b.params()[..] else {
        return error(decl, "a deleting destructor without 'this' and flags");
    };
    let common = *b.ctx.types.common();
    let raw = b.cast(CastKind::Bitcast, this, common.void_ptr);
    let size = b.const_int(common.u64, i128::from(size));
    let arguments = move |b: &mut ehir_builder::FunctionBuilder, callee: Callee| {
        let sized = b
            .ctx
            .types
            .func_info(callee.sig)
            .is_some_and(|(params, _, _)| params.len() == 2);
        if sized { vec![raw, size] } else { vec![raw] }
    };
    // The storage is released even if the destructor throws.
    b.push_cleanup(CleanupKind::All, move |b| {
        let flag_set = |b: &mut ehir_builder::FunctionBuilder, flag: i128| {
            let bit = b.const_int(common.u32, flag);
            let set = b.binop(BinaryOp::And, flags, bit);
            let zero = b.const_int(common.u32, 0);
            b.cmp(CmpPredicate::Ne, set, zero)
        };
        let release = flag_set(b, DELETE_STORAGE);
        b.begin_if(release, false);
        match class_delete {
            Some(class_delete) => {
                let global = flag_set(b, DELETE_GLOBAL);
                let choice = b.begin_if(global, true);
                let args = arguments(b, global_delete);
                call_function(b, global_delete, &args);
                b.begin_else(choice);
                let args = arguments(b, class_delete);
                call_function(b, class_delete, &args);
                b.end_if();
            }
            None => {
                let args = arguments(b, global_delete);
                call_function(b, global_delete, &args);
            }
        }
        b.end_if();
    });
    call_function(&mut b, destructor, &[this]);
    b.pop_cleanup();
    b.emit_return(Some(raw));
    super::function::define_function(b, decl)?;
    Ok(())
}

/// The signature of the scalar deleting destructor of a destructor of signature
/// `destructor` (`this` only): `void *(this, unsigned flags)`, and its parameter types.
fn deleting_destructor_signature(ctx: &mut ModuleCtx, destructor: Type) -> (Type, Vec<Type>) {
    let common = *ctx.types.common();
    let this = ctx
        .types
        .func_info(destructor)
        .and_then(|(params, _, _)| params.first().copied())
        .unwrap_or(common.void_ptr);
    let params = vec![this, common.u32];
    let sig = ctx.types.func(params.clone(), Some(common.void_ptr), false);
    (sig, params)
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Stores the address of `class`'s vftable (its first function slot) in the vftable
    /// pointer of the object at `object`, when the class is dynamic.
    pub fn store_vfptr(&mut self, node: &Node, class: &str, object: Value) -> R<()> {
        if self
            .st
            .layout(self.b.ctx, node, class)?
            .virtual_slots
            .is_none()
        {
            return Ok(());
        }
        let (symbol, ty) = self.st.vftable(self.b.ctx, node, class)?;
        // The locator's slot comes first.
        self.store_table_entry_address(symbol, ty, 1, object);
        Ok(())
    }

    /// `delete p` of an object with a virtual destructor at vftable slot `index`: the
    /// dynamic type's scalar deleting destructor, with flags 1 (release the storage), or
    /// 5 for `::delete p` (`global`: with the global `operator delete`).
    pub fn delete_through_vftable(
        &mut self,
        pointer: Value,
        index: usize,
        destructor: Callee,
        global: bool,
    ) {
        let (sig, _) = deleting_destructor_signature(self.b.ctx, destructor.sig);
        let function = self.virtual_function(pointer, index);
        let function_ty = self.b.ctx.types.ptr(sig);
        let function = self.b.cast(CastKind::Bitcast, function, function_ty);
        let u32_ty = self.b.ctx.types.common().u32;
        let flags = if global {
            DELETE_STORAGE | DELETE_GLOBAL
        } else {
            DELETE_STORAGE
        };
        let flags = self.b.const_int(u32_ty, flags);
        let call_flags = super::expr::call_flags(destructor.nothrow);
        self.b
            .call_indirect(function, sig, &[pointer, flags], call_flags);
    }

    /// The address (`!cir.ptr<!void>`) of the TypeDescriptor of `t`.
    fn type_descriptor_address(&mut self, node: &Node, t: &CType) -> R<Value> {
        let (symbol, ty) = self.st.type_descriptor(self.b.ctx, node, t)?;
        let address = self.b.get_global(symbol, ty);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        Ok(self.b.cast(CastKind::Bitcast, address, void_ptr))
    }

    /// `typeid(T)` or `typeid(e)` on the Microsoft ABI: `__RTtypeid(&e)` for a glvalue of
    /// a dynamic class, else the static type's TypeDescriptor.
    pub fn typeid_msvc(&mut self, e: &'ast Node) -> R<Value> {
        let (operand, type_info) = self.typeid_operand(e)?;
        let type_info_ptr = self.b.ctx.types.ptr(type_info);
        let info = match operand {
            TypeidOperand::Dynamic(object) => {
                let void_ptr = self.b.ctx.types.common().void_ptr;
                let raw = self.b.cast(CastKind::Bitcast, object, void_ptr);
                let sig = self.b.ctx.types.func(vec![void_ptr], Some(void_ptr), false);
                let flags = super::expr::call_flags(false);
                let Some(info) = self.b.call_named(MSVC_RTTYPEID, sig, &[raw], flags) else {
                    return error(e, "__RTtypeid without a result");
                };
                info
            }
            TypeidOperand::Static(t) => self.type_descriptor_address(e, &t)?,
        };
        Ok(self.b.cast(CastKind::Bitcast, info, type_info_ptr))
    }

    /// `dynamic_cast<T *>(p)` or `dynamic_cast<T &>(r)` on the Microsoft ABI, through
    /// msvcrt's `__RTDynamicCast` (null stays null; a failed reference cast throws
    /// `bad_cast`), or `__RTCastToVoid` for `void *`.
    pub fn dynamic_cast_msvc(&mut self, e: &'ast Node, reference: bool) -> R<Value> {
        let DynamicCast {
            object: raw,
            source,
            target,
        } = self.dynamic_cast_operands(e, reference)?;
        let common = *self.b.ctx.types.common();
        let flags = super::expr::call_flags(false);
        let Some(target) = target else {
            let sig = self
                .b
                .ctx
                .types
                .func(vec![common.void_ptr], Some(common.void_ptr), false);
            let Some(result) = self.b.call_named(MSVC_RTCAST_TO_VOID, sig, &[raw], flags) else {
                return error(e, "__RTCastToVoid without a result");
            };
            return Ok(result);
        };
        let source_descriptor = self.type_descriptor_address(e, &CType::Named(source))?;
        let target_descriptor = self.type_descriptor_address(e, &CType::Named(target.clone()))?;
        // The vftable pointer is at offset 0 of the object.
        let vfptr_offset = self.b.const_int(common.s32, 0);
        let is_reference = self.b.const_int(common.s32, i128::from(reference));
        let sig = self.b.ctx.types.func(
            vec![
                common.void_ptr,
                common.s32,
                common.void_ptr,
                common.void_ptr,
                common.s32,
            ],
            Some(common.void_ptr),
            false,
        );
        let args = [
            raw,
            vfptr_offset,
            source_descriptor,
            target_descriptor,
            is_reference,
        ];
        let Some(result) = self.b.call_named(MSVC_RTDYNAMIC_CAST, sig, &args, flags) else {
            return error(e, "__RTDynamicCast without a result");
        };
        let target_cir = self.cir(e, &CType::Named(target))?;
        let target_ptr = self.b.ctx.types.ptr(target_cir);
        Ok(self.b.cast(CastKind::Bitcast, result, target_ptr))
    }
}

#[cfg(test)]
mod tests {
    use super::virtual_slots;
    use crate::cirgen::vtable::SlotKind;
    use crate::cirgen::vtable::tests::class;

    /// `struct A { virtual ~A(); virtual int f(int); virtual int g(); virtual int
    /// f(double); virtual int f(); };` has, with Clang for Windows, the vftable
    /// `[??_E, f(), f(double), f(int), g]`; `B : A` overriding `f(int)` and adding `h`
    /// keeps A's slots and appends `h`.
    #[test]
    fn overloads_are_grouped_by_name_in_reverse_order() {
        let base = class(
            r#"{"id": "1", "kind": "CXXRecordDecl", "inner": [
                {"id": "2", "kind": "CXXDestructorDecl", "name": "~A", "virtual": true,
                 "type": {"qualType": "void () noexcept"}},
                {"id": "3", "kind": "CXXMethodDecl", "name": "f", "virtual": true,
                 "type": {"qualType": "int (int)"}},
                {"id": "4", "kind": "CXXMethodDecl", "name": "g", "virtual": true,
                 "type": {"qualType": "int ()"}},
                {"id": "5", "kind": "CXXMethodDecl", "name": "f", "virtual": true,
                 "type": {"qualType": "int (double)"}},
                {"id": "6", "kind": "CXXMethodDecl", "name": "f", "virtual": true,
                 "pure": true, "type": {"qualType": "int ()"}},
                {"id": "7", "kind": "CXXMethodDecl", "name": "k",
                 "type": {"qualType": "void ()"}}
            ]}"#,
        );
        let slots = virtual_slots(&base, Vec::new());
        let ids: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["2", "6", "5", "3", "4"]);
        assert_eq!(slots[0].kind, SlotKind::DeletingDestructor);
        assert!(slots[1].pure);
        let derived = class(
            r#"{"id": "8", "kind": "CXXRecordDecl", "inner": [
                {"id": "9", "kind": "FieldDecl", "name": "h", "type": {"qualType": "int"}},
                {"id": "10", "kind": "CXXMethodDecl", "name": "f",
                 "type": {"qualType": "int ()"}},
                {"id": "11", "kind": "CXXMethodDecl", "name": "z", "virtual": true,
                 "type": {"qualType": "void ()"}},
                {"id": "12", "kind": "CXXMethodDecl", "name": "h", "virtual": true,
                 "type": {"qualType": "void (int)"}},
                {"id": "13", "kind": "CXXDestructorDecl", "name": "~B", "isImplicit": true,
                 "type": {"qualType": "void () noexcept"}}
            ]}"#,
        );
        let slots = virtual_slots(&derived, slots);
        let ids: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        // `h` is named (by a field) before `z`: its group comes first.
        assert_eq!(ids, ["13", "10", "5", "3", "4", "12", "11"]);
        assert!(slots.iter().all(|s| !s.pure));
    }

    /// msvcrt's `exception::what() const` is overridden by `what() const noexcept` and
    /// `~exception() throw()` by an implicit `noexcept` destructor.
    #[test]
    fn an_overrider_may_add_an_exception_specification() {
        let base = class(
            r#"{"id": "1", "kind": "CXXRecordDecl", "inner": [
                {"id": "2", "kind": "CXXDestructorDecl", "name": "~exception", "virtual": true,
                 "type": {"qualType": "void () throw()"}},
                {"id": "3", "kind": "CXXMethodDecl", "name": "what", "virtual": true,
                 "type": {"qualType": "const char *() const"}}
            ]}"#,
        );
        let derived = class(
            r#"{"id": "4", "kind": "CXXRecordDecl", "inner": [
                {"id": "5", "kind": "CXXMethodDecl", "name": "what",
                 "type": {"qualType": "const char *() const noexcept"}},
                {"id": "6", "kind": "CXXDestructorDecl", "name": "~E", "isImplicit": true,
                 "type": {"qualType": "void () noexcept"}}
            ]}"#,
        );
        let slots = virtual_slots(&derived, virtual_slots(&base, Vec::new()));
        let ids: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["6", "5"]);
    }
}
