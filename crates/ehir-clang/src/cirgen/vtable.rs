//! Virtual functions on the Itanium C++ ABI, for single inheritance through primary
//! bases: the vtable slots of a dynamic class, its vtable as a CIR global (offset to top,
//! typeinfo pointer, function pointers), storing the vptr in constructors and
//! destructors, virtual calls through the vptr, and deleting destructors (D0). On the
//! Microsoft ABI, vptr stores, `typeid`, `dynamic_cast` and deleting destructors go to
//! [`super::vtable_msvc`].

use super::class::{Callee, call_function};
use super::function::FnGen;
use super::{Pending, R, State, error, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_builder::{ModuleBuilder, Value};
use ehir_core::abi::EhAbi;
use ehir_core::{AttrData, CastKind, ConstArrayElements, Global, Linkage, Loc};

/// What `typeid` applies to.
pub enum TypeidOperand {
    /// A glvalue of a dynamic class, at this address: its dynamic type.
    Dynamic(Value),
    /// The static type of the operand (or the type), without a reference.
    Static(CType),
}

/// The operands of a `dynamic_cast`.
pub struct DynamicCast {
    /// The object's address (`!cir.ptr<!void>`).
    pub object: Value,
    /// The class the object is statically.
    pub source: String,
    /// The target class; `None` for `void *` (the most derived object).
    pub target: Option<String>,
}

/// What a vtable slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// A virtual member function.
    Method,
    /// The complete-object destructor (D1).
    CompleteDestructor,
    /// The deleting destructor (D0): destroys, then releases the storage.
    DeletingDestructor,
}

/// One function slot of a vtable (after offset-to-top and the typeinfo pointer).
#[derive(Clone, Debug)]
pub struct VirtualSlot {
    /// What the slot holds.
    pub kind: SlotKind,
    /// What an overrider must match: the method's name and function type.
    pub key: String,
    /// The declaration id of the final overrider in this class.
    pub id: String,
    /// The final overrider is pure virtual (the slot holds a null pointer).
    pub pure: bool,
}

/// The slot key of a method: its name and function type without its exception
/// specification (an overrider may add `noexcept`).
pub(super) fn slot_key(method: &Node) -> String {
    let ty = method.ty.as_ref().map_or("", |t| t.qual_type.as_str());
    let ty = [" noexcept", " throw("]
        .iter()
        .filter_map(|spec| ty.find(spec))
        .min()
        .map_or(ty, |end| &ty[..end]);
    format!("{}:{ty}", method.name.as_deref().unwrap_or_default())
}

/// The vtable slots of a class: those of its primary base (`inherited`), overridden by
/// the class's methods of the same name and type, then its new virtual methods.
pub fn virtual_slots(class: &Node, inherited: Vec<VirtualSlot>) -> Vec<VirtualSlot> {
    let mut slots = inherited;
    for member in class.children() {
        match member.kind.as_str() {
            "CXXDestructorDecl" => {
                let found = slots
                    .iter()
                    .position(|s| s.kind == SlotKind::CompleteDestructor);
                if let Some(index) = found {
                    for slot in &mut slots[index..=index + 1] {
                        slot.id = member.id.clone();
                        slot.pure = member.pure;
                    }
                } else if member.is_virtual {
                    for kind in [SlotKind::CompleteDestructor, SlotKind::DeletingDestructor] {
                        slots.push(VirtualSlot {
                            kind,
                            key: "~".to_string(),
                            id: member.id.clone(),
                            pure: member.pure,
                        });
                    }
                }
            }
            "CXXMethodDecl" => {
                let key = slot_key(member);
                if let Some(slot) = slots
                    .iter_mut()
                    .find(|s| s.kind == SlotKind::Method && s.key == key)
                {
                    slot.id = member.id.clone();
                    slot.pure = member.pure;
                } else if member.is_virtual {
                    slots.push(VirtualSlot {
                        kind: SlotKind::Method,
                        key,
                        id: member.id.clone(),
                        pure: member.pure,
                    });
                }
            }
            _ => {}
        }
    }
    slots
}

/// The deleting destructor's symbol of a complete-object destructor's (`…D1Ev` →
/// `…D0Ev`).
fn deleting_symbol(complete: &str) -> Option<String> {
    complete
        .strip_suffix("D1Ev")
        .map(|stem| format!("{stem}D0Ev"))
}

impl<'ast> State<'ast> {
    /// The vtable symbol of a dynamic class (its global defined, and the functions it
    /// points to queued, on first use).
    pub fn vtable(&mut self, mb: &mut ehir_core::ModuleCtx, node: &Node, class: &str) -> R<String> {
        let Some(mangled) = super::class::mangle_class_name(class) else {
            return unsupported(node, format!("vtable of '{class}'"));
        };
        let symbol = format!("_ZTV{mangled}");
        if self.rtti_globals.iter().any(|g| mb.name(g.name) == symbol) {
            return Ok(symbol);
        }
        let layout = self.layout(mb, node, class)?;
        let Some(slots) = layout.virtual_slots.clone() else {
            return error(node, format!("vtable of '{class}', which is not dynamic"));
        };
        let typeinfo = self.typeinfo(mb, node, &CType::Named(class.to_string()))?;
        let void_ptr = mb.types.common().void_ptr;
        let mut entries = vec![
            AttrData::Null(void_ptr),
            AttrData::GlobalView {
                symbol: typeinfo,
                indices: vec![],
                ty: Some(void_ptr),
            },
        ];
        for slot in &slots {
            if slot.pure {
                entries.push(AttrData::Null(void_ptr));
                continue;
            }
            let Some(decl) = self.index.by_id.get(slot.id.as_str()).copied() else {
                return error(node, format!("a virtual function of '{class}' not found"));
            };
            let callee = self.callee(mb, decl)?;
            let mut name = mb.name(callee.symbol).to_string();
            if slot.kind == SlotKind::DeletingDestructor {
                let Some(deleting) = deleting_symbol(&name) else {
                    return unsupported(decl, format!("deleting destructor of '{name}'"));
                };
                self.enqueue(&deleting, Pending::DeletingDestructor(decl));
                name = deleting;
            } else if !self.index.definitions.contains_key(decl.id.as_str()) && !decl.is_implicit {
                // Defined elsewhere (in libstdc++): declared in the module.
                self.address_taken
                    .push((name.clone(), callee.sig, callee.nothrow));
            }
            entries.push(AttrData::GlobalView {
                symbol: mb.sym(&name),
                indices: vec![],
                ty: Some(void_ptr),
            });
        }
        let ty = mb.types.array(void_ptr, entries.len() as u64);
        let elements = entries.into_iter().map(|e| mb.attrs.intern(e)).collect();
        let init = mb.attrs.intern(AttrData::ConstArray {
            elements: ConstArrayElements::Attrs(elements),
            ty,
        });
        let name = mb.sym(&symbol);
        self.rtti_globals.push(Global {
            name,
            ty,
            init: Some(init),
            constant: true,
            linkage: Linkage::Internal,
            private_visibility: false,
            align: Some(8),
            loc: Loc::NONE,
        });
        Ok(symbol)
    }

    /// The index of a method's slot in its class's vtable, when it is virtual.
    pub fn virtual_slot(
        &mut self,
        ctx: &mut ehir_core::ModuleCtx,
        method: &Node,
        kind: SlotKind,
    ) -> R<Option<usize>> {
        let Some(class) = self.class_of(method) else {
            return Ok(None);
        };
        let layout = self.layout(ctx, method, &class)?;
        Ok(layout.virtual_slots.as_ref().and_then(|slots| {
            slots
                .iter()
                .position(|s| s.kind == kind && s.id == method.id)
        }))
    }
}

/// Adds the RTTI globals (vtables, typeinfo declarations) the module refers to.
pub fn define_vtables(state: &mut State<'_>, mb: &mut ModuleBuilder) {
    for global in std::mem::take(&mut state.rtti_globals) {
        mb.module_mut().add_global(global);
    }
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Stores the address of `class`'s vtable (its first function slot) in the vptr of
    /// the object at `object`, when the class is dynamic.
    pub fn store_vptr(&mut self, node: &Node, class: &str, object: Value) -> R<()> {
        if self.st.abi == EhAbi::Msvc {
            return self.store_vfptr(node, class, object);
        }
        let layout = self.st.layout(self.b.ctx, node, class)?;
        if layout.virtual_slots.is_none() {
            return Ok(());
        }
        let symbol = self.st.vtable(self.b.ctx, node, class)?;
        let symbol = self.b.ctx.sym(&symbol);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let length = 2 + layout.virtual_slots.as_ref().map_or(0, Vec::len) as u64;
        let array = self.b.ctx.types.array(void_ptr, length);
        self.store_table_entry_address(symbol, array, 2, object);
        Ok(())
    }

    /// Stores the address of entry `entry` of the table global `table` (an array of
    /// pointers, of type `ty`) in the pointer at offset 0 of the object at `object`: a
    /// vptr or vfptr store.
    pub fn store_table_entry_address(
        &mut self,
        table: ehir_core::Symbol,
        ty: ehir_core::Type,
        entry: i128,
        object: Value,
    ) {
        let table = self.b.get_global(table, ty);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let slot_ptr = self.b.ctx.types.ptr(void_ptr);
        let first = self.b.cast(CastKind::ArrayToPtrDecay, table, slot_ptr);
        let s64 = self.b.ctx.types.common().s64;
        let entry = self.b.const_int(s64, entry);
        let address = self.b.ptr_stride(first, entry);
        let pointer_slot_ty = self.b.ctx.types.ptr(slot_ptr);
        let pointer_slot = self.b.cast(CastKind::Bitcast, object, pointer_slot_ty);
        self.b.store(address, pointer_slot, 8);
    }

    /// What `typeid(T)` or `typeid(e)` applies to (the operand evaluated when it is a
    /// glvalue of a dynamic class, else ignored), and the `type_info` record.
    pub fn typeid_operand(&mut self, e: &'ast Node) -> R<(TypeidOperand, ehir_core::Type)> {
        let result_ty = self.ty(e)?;
        let type_info = self.cir(e, &result_ty)?;
        let static_type = match (&e.type_arg, e.children().next()) {
            (Some(arg), _) => self.st.parse(e, arg.canonical())?,
            (None, Some(operand)) => {
                let ty = self.ty(operand)?;
                let dynamic = match ty.unqualified() {
                    CType::Named(class) => self
                        .st
                        .layout(self.b.ctx, e, class)?
                        .virtual_slots
                        .is_some(),
                    _ => false,
                };
                if dynamic && super::expr::is_glvalue(operand) {
                    let object = self.lvalue(operand)?;
                    return Ok((TypeidOperand::Dynamic(object), type_info));
                }
                self.ignored(operand)?;
                ty
            }
            (None, None) => return error(e, "typeid without an operand"),
        };
        let static_type = match static_type {
            CType::Reference(inner) => *inner,
            other => other,
        };
        Ok((TypeidOperand::Static(static_type), type_info))
    }

    /// `typeid(T)` or `typeid(e)`: the address of a typeinfo object; that of the dynamic
    /// type (from the vtable, before its offset to top) for a glvalue of a dynamic class.
    pub fn typeid(&mut self, e: &'ast Node) -> R<Value> {
        if self.st.abi == EhAbi::Msvc {
            return self.typeid_msvc(e);
        }
        let (operand, type_info) = self.typeid_operand(e)?;
        let type_info_ptr = self.b.ctx.types.ptr(type_info);
        let static_type = match operand {
            TypeidOperand::Dynamic(object) => {
                // The typeinfo pointer sits just before the first function slot.
                let info = self.virtual_function(object, usize::MAX);
                return Ok(self.b.cast(CastKind::Bitcast, info, type_info_ptr));
            }
            TypeidOperand::Static(t) => t,
        };
        if let CType::Named(class) = static_type.unqualified() {
            let info = self.dynamic_class_typeinfo(e, class)?;
            return Ok(self.b.cast(CastKind::Bitcast, info, type_info_ptr));
        }
        let symbol = self.st.typeinfo(self.b.ctx, e, static_type.unqualified())?;
        let name = self.b.ctx.name(symbol).to_string();
        if !self.st.typeinfos.contains_key(&name)
            && !self.st.rtti_globals.iter().any(|g| g.name == symbol)
        {
            // A fundamental type's typeinfo object, defined in the C++ runtime.
            self.st.rtti_globals.push(Global {
                name: symbol,
                ty: type_info,
                init: None,
                constant: true,
                linkage: Linkage::External,
                private_visibility: false,
                align: Some(8),
                loc: Loc::NONE,
            });
        }
        Ok(self.b.get_global(symbol, type_info))
    }

    /// The address (`!cir.ptr<!void>`) of a dynamic class's typeinfo object, read from
    /// its vtable (a class's typeinfo object is no global of the module).
    fn dynamic_class_typeinfo(&mut self, e: &Node, class: &str) -> R<Value> {
        let layout = self.st.layout(self.b.ctx, e, class)?;
        let Some(slots) = &layout.virtual_slots else {
            return unsupported(e, format!("RTTI of the non-dynamic class '{class}'"));
        };
        let symbol = self.st.vtable(self.b.ctx, e, class)?;
        let symbol = self.b.ctx.sym(&symbol);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let array = self.b.ctx.types.array(void_ptr, 2 + slots.len() as u64);
        let table = self.b.get_global(symbol, array);
        let entry_ptr = self.b.ctx.types.ptr(void_ptr);
        let first = self.b.cast(CastKind::ArrayToPtrDecay, table, entry_ptr);
        let s64 = self.b.ctx.types.common().s64;
        let one = self.b.const_int(s64, 1);
        let entry = self.b.ptr_stride(first, one);
        Ok(self.b.load(entry, 8))
    }

    /// `dynamic_cast<T *>(p)` (null stays null) or `dynamic_cast<T &>(r)` (failure
    /// throws `std::bad_cast`), through the C++ runtime's `__dynamic_cast`.
    pub fn dynamic_cast(&mut self, e: &'ast Node, reference: bool) -> R<Value> {
        if self.st.abi == EhAbi::Msvc {
            return self.dynamic_cast_msvc(e, reference);
        }
        let DynamicCast {
            object: raw,
            source,
            target,
        } = self.dynamic_cast_operands(e, reference)?;
        let Some(target) = target else {
            return unsupported(e, "dynamic_cast to 'void *'");
        };
        let common = *self.b.ctx.types.common();
        let target_cir = self.cir(e, &CType::Named(target.clone()))?;
        let target_ptr = self.b.ctx.types.ptr(target_cir);
        let slot = self.b.alloca(common.void_ptr, "dynamic_cast", true, 8);
        let null = self.b.const_null(common.void_ptr);
        self.b.store(null, slot, 8);
        let not_null = self.b.cmp(ehir_core::CmpPredicate::Ne, raw, null);
        self.b.begin_if(not_null, false);
        let source_info = self.dynamic_class_typeinfo(e, &source)?;
        let target_info = self.dynamic_class_typeinfo(e, &target)?;
        // No hint of where the source sits in the target (-1).
        let hint = self.b.const_int(common.s64, -1);
        let sig = self.b.ctx.types.func(
            vec![
                common.void_ptr,
                common.void_ptr,
                common.void_ptr,
                common.s64,
            ],
            Some(common.void_ptr),
            false,
        );
        let flags = super::expr::call_flags(true);
        let args = [raw, source_info, target_info, hint];
        if let Some(result) = self.b.call_named("__dynamic_cast", sig, &args, flags) {
            self.b.store(result, slot, 8);
        }
        self.b.end_if();
        let result = self.b.load(slot, 8);
        if reference {
            let failed = self.b.cmp(ehir_core::CmpPredicate::Eq, result, null);
            self.b.begin_if(failed, false);
            let sig = self.b.ctx.types.func(vec![], None, false);
            self.b
                .call_named("__cxa_bad_cast", sig, &[], super::expr::call_flags(false));
            self.b.end_if();
        }
        Ok(self.b.cast(CastKind::Bitcast, result, target_ptr))
    }

    /// The operands of `dynamic_cast<T *>(p)` or `dynamic_cast<T &>(r)` (the operand
    /// evaluated): unsupported unless both are classes, or `T` is `void`.
    pub fn dynamic_cast_operands(&mut self, e: &'ast Node, reference: bool) -> R<DynamicCast> {
        let operand = self.operand(e, 0)?;
        let to = self.ty(e)?;
        let from = self.ty(operand)?;
        let class_of = |t: &CType| match t.unqualified() {
            CType::Named(name) => Some(name.clone()),
            CType::Reference(inner) => inner.unqualified().name().map(str::to_string),
            _ => None,
        };
        let (source, target) = if reference {
            (class_of(&from), class_of(&to))
        } else {
            (
                from.pointee().and_then(class_of),
                to.pointee().and_then(class_of),
            )
        };
        let to_void = !reference && to.pointee().is_some_and(CType::is_void);
        let Some(source) = source.filter(|_| target.is_some() || to_void) else {
            return unsupported(e, format!("dynamic_cast from '{from}' to '{to}'"));
        };
        let object = if reference {
            self.lvalue(operand)?
        } else {
            self.scalar(operand)?
        };
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let object = self.b.cast(CastKind::Bitcast, object, void_ptr);
        Ok(DynamicCast {
            object,
            source,
            target,
        })
    }

    /// Loads the function pointer in slot `index` of the vtable of the object at
    /// `object` (`usize::MAX`: the typeinfo pointer before the first slot).
    pub fn virtual_function(&mut self, object: Value, index: usize) -> Value {
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let slot_ptr = self.b.ctx.types.ptr(void_ptr);
        let vptr_slot_ty = self.b.ctx.types.ptr(slot_ptr);
        let vptr_slot = self.b.cast(CastKind::Bitcast, object, vptr_slot_ty);
        let vptr = self.b.load(vptr_slot, 8);
        let s64 = self.b.ctx.types.common().s64;
        // `usize::MAX`: the slot before the first, the typeinfo pointer.
        let offset = if index == usize::MAX {
            -1
        } else {
            index as i128
        };
        let offset = self.b.const_int(s64, offset);
        let slot = self.b.ptr_stride(vptr, offset);
        self.b.load(slot, 8)
    }
}

/// Generates a deleting destructor (D0) of a complete-object destructor declaration:
/// destroys the object, then releases its storage with `operator delete(void *, size_t)`.
pub fn generate_deleting_destructor<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    decl: &'ast Node,
) -> R<()> {
    if state.abi == EhAbi::Msvc {
        return super::vtable_msvc::generate_scalar_deleting_destructor(state, mb, decl);
    }
    let Some(class) = state.class_of(decl) else {
        return error(decl, "a destructor outside a class");
    };
    let complete: Callee = state.callee(mb.ctx(), decl)?;
    let complete_name = mb.ctx().name(complete.symbol).to_string();
    let Some(name) = deleting_symbol(&complete_name) else {
        return unsupported(decl, format!("deleting destructor of '{complete_name}'"));
    };
    let size = state.layout(mb.ctx(), decl, &class)?.size;
    let params: Vec<ehir_core::Type> = mb
        .ctx()
        .types
        .func_info(complete.sig)
        .map(|(params, _, _)| params.to_vec())
        .unwrap_or_default();
    let mut b = mb.function(&name, complete.sig, &params);
    // Only this module's vtables (internal) point to it; for a class of the C++ runtime
    // (`std::exception`) it must not take the place of the runtime's own.
    b.func_mut().linkage = Linkage::Internal;
    b.set_loc(super::loc_of(decl));
    let Some(&this) = b.params().first() else {
        return error(decl, "a destructor without 'this'");
    };
    let common = *b.ctx.types.common();
    let delete_sig = b
        .ctx
        .types
        .func(vec![common.void_ptr, common.u64], None, false);
    let delete = Callee {
        symbol: b.ctx.sym("_ZdlPvm"),
        sig: delete_sig,
        nothrow: true,
    };
    let raw = b.cast(CastKind::Bitcast, this, common.void_ptr);
    let size = b.const_int(common.u64, size as i128);
    let delete_args = [raw, size];
    b.push_cleanup(ehir_core::CleanupKind::All, move |b| {
        call_function(b, delete, &delete_args);
    });
    call_function(&mut b, complete, &[this]);
    b.pop_cleanup();
    b.emit_return(None);
    b.check().map_err(|e| e.to_diagnostic())?;
    b.define().map_err(|e| e.to_diagnostics().0.remove(0))?;
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::{SlotKind, virtual_slots};
    use crate::ast::Node;

    /// A class node from its JSON.
    pub(in crate::cirgen) fn class(json: &str) -> Node {
        serde_json::from_str(json).expect("a class node")
    }

    #[test]
    fn overriders_take_the_slots_of_the_primary_base_and_new_virtuals_follow() {
        let base = class(
            r#"{"id": "1", "kind": "CXXRecordDecl", "inner": [
                {"id": "2", "kind": "CXXDestructorDecl", "name": "~B", "virtual": true,
                 "type": {"qualType": "void () noexcept"}},
                {"id": "3", "kind": "CXXMethodDecl", "name": "f", "virtual": true,
                 "pure": true, "type": {"qualType": "int () const"}},
                {"id": "4", "kind": "CXXMethodDecl", "name": "g",
                 "type": {"qualType": "int ()"}}
            ]}"#,
        );
        let base_slots = virtual_slots(&base, Vec::new());
        let kinds: Vec<SlotKind> = base_slots.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                SlotKind::CompleteDestructor,
                SlotKind::DeletingDestructor,
                SlotKind::Method
            ]
        );
        assert!(base_slots[2].pure);
        // `f` overrides without `virtual`; an `f` of another type and `h` are new.
        let derived = class(
            r#"{"id": "5", "kind": "CXXRecordDecl", "inner": [
                {"id": "6", "kind": "CXXMethodDecl", "name": "f",
                 "type": {"qualType": "int () const"}},
                {"id": "7", "kind": "CXXMethodDecl", "name": "f",
                 "type": {"qualType": "int (int) const"}},
                {"id": "8", "kind": "CXXMethodDecl", "name": "h", "virtual": true,
                 "type": {"qualType": "void ()"}},
                {"id": "9", "kind": "CXXDestructorDecl", "name": "~D",
                 "type": {"qualType": "void () noexcept"}}
            ]}"#,
        );
        let slots = virtual_slots(&derived, base_slots);
        let ids: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["9", "9", "6", "8"]);
        assert!(slots.iter().all(|s| !s.pure));
    }
}
