//! Virtual bases on the Microsoft C++ ABI, as Clang for `x86_64-pc-windows-msvc`
//! generates them (an empty virtual base is diagnosed, `State::check_msvc_virtual_bases`):
//!
//! - a class with virtual bases has a vbtable pointer (`ClassLayout::vbptr_offset`): its
//!   own, or the one of its first non-virtual base that has one;
//! - each vbtable pointer of a complete object points to a vbtable `??_8<class>7B<path>@`
//!   ([`State::msvc_vbtables`]) of 32-bit entries: the offset from the pointer back to
//!   the subobject it belongs to (negated), then the offset from the pointer to each
//!   virtual base of that subobject's class, in that class's vbtable order
//!   ([`State::virtual_base_table_order`]: the bases of the base it shares its pointer
//!   with, then its other virtual bases in construction order);
//! - a constructor of a class with virtual bases takes a last `i32` parameter, "most
//!   derived": when it is not 0, the constructor stores the vbtable pointers and
//!   constructs the virtual bases before the rest ([`FnGen::complete_object_part`]); a
//!   base subobject's constructor is called with 0, a complete object's with 1; the
//!   virtual bases it built are destroyed if what follows throws, when the flag is set;
//! - the destructor `??1` of such a class destroys its members and non-virtual bases,
//!   its `this` where its slot is when that is in a virtual base; the destruction of a
//!   complete object is the vbase destructor `??_D` ([`generate_vbase_destructor`]):
//!   `??1`, then the virtual bases;
//! - the address of a virtual base of an object is read from its vbtable
//!   ([`FnGen::virtual_base_offset`]).
//!
//! Names come from `ehir_core::abi::type_names`.

use super::class::{Callee, call_function};
use super::function::FnGen;
use super::{R, State, error, unsupported};
use crate::ast::Node;
use ehir_builder::{FunctionBuilder, ModuleBuilder, Value};
use ehir_core::abi::type_names::vbtable_symbol;
use ehir_core::{
    AttrData, CastKind, CleanupKind, CmpPredicate, ConstArrayElements, Linkage, ModuleCtx, Symbol,
    Type,
};

/// One vbtable pointer of a complete object.
#[derive(Clone, Debug)]
pub struct VbtablePointer {
    /// Its offset in the complete object.
    pub offset: u64,
    /// Its vbtable.
    pub table: Symbol,
    /// The vbtable's CIR type.
    pub ty: Type,
}

impl<'ast> State<'ast> {
    /// Whether constructors of `class` take the Microsoft "most derived" flag: the class
    /// has virtual bases.
    pub fn takes_most_derived_flag(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<bool> {
        Ok(self.abi == ehir_core::abi::EhAbi::Msvc && self.has_virtual_bases(ctx, node, class)?)
    }

    /// Whether the complete-object destruction of `class` is its vbase destructor
    /// `??_D` (Microsoft, a class with virtual bases).
    pub fn takes_virtual_base_destructor(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<bool> {
        self.takes_most_derived_flag(ctx, node, class)
    }

    /// How a base subobject of class `base` is destroyed on the Microsoft ABI, without
    /// its virtual bases: its destructor (`??1`), and how far from the subobject the
    /// destructor's `this` is ([`State::msvc_this_offset`]); `None` for a trivial one.
    pub fn msvc_base_destructor(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        base: &str,
    ) -> R<Option<(Callee, u64)>> {
        let Some(dtor) = self.nontrivial_destructor_decl(ctx, node, base)? else {
            return Ok(None);
        };
        let callee = if !self.has_virtual_bases(ctx, node, base)? {
            self.callee(ctx, dtor)?
        } else {
            self.base_variant_callee(ctx, dtor)?
        };
        let offset = self.msvc_this_offset(ctx, dtor)?;
        Ok(Some((callee, offset)))
    }

    /// The vbtable pointers of a complete object of class `class` and their vbtables
    /// (defined on first use).
    pub fn msvc_vbtables(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<Vec<VbtablePointer>> {
        let layout = self.layout(ctx, node, class)?;
        let walk = self.subobjects(ctx, node, class, 0, class)?;
        // (offset of the pointer, the subobject it belongs to: class, offset, the direct
        // base of `class` it is reached through).
        let mut pointers: Vec<(u64, String, u64, Option<String>)> = Vec::new();
        for subobject in &walk.all {
            let sub_layout = self.layout(ctx, node, &subobject.class)?;
            let Some(inner) = sub_layout.vbptr_offset else {
                continue;
            };
            let at = subobject.offset + inner;
            // The first subobject met (the largest) owns a shared pointer.
            if pointers.iter().any(|p| p.0 == at) {
                continue;
            }
            // The direct base it is reached through (for the class's own pointer when
            // shared: the base it shares it with).
            let index = walk.find(&subobject.class, subobject.offset);
            let through = walk.all[0]
                .bases
                .iter()
                .find(|&&direct| {
                    let direct_layout = self.layouts.get(&walk.all[direct].class);
                    let shares = index == Some(0)
                        && !walk.all[direct].is_virtual
                        && direct_layout.and_then(|l| l.vbptr_offset)
                            == Some(at - walk.all[direct].offset.min(at));
                    shares || index.is_some_and(|i| i != 0 && walk.contains(direct, i))
                })
                .map(|&direct| walk.all[direct].class.clone());
            pointers.push((at, subobject.class.clone(), subobject.offset, through));
        }
        let class_name = self.msvc_rtti_class(ctx, node, class)?;
        let s32 = ctx.types.common().s32;
        let mut result = Vec::new();
        for (at, owner, owner_offset, through) in &pointers {
            let mut entries = vec![*owner_offset as i64 - *at as i64];
            for virtual_base in self.virtual_base_table_order(ctx, node, owner)? {
                let Some(offset) = layout.virtual_base_offset(&virtual_base) else {
                    return error(node, format!("virtual base '{virtual_base}' not placed"));
                };
                entries.push(offset as i64 - *at as i64);
            }
            let path = if pointers.len() == 1 {
                String::new()
            } else {
                match through {
                    // The class's own pointer: named by the class (a back reference).
                    None => "0@".to_string(),
                    Some(base) => self.msvc_rtti_class(ctx, node, base)?,
                }
            };
            if pointers.iter().filter(|p| &p.3 == through).count() > 1 {
                return unsupported(
                    node,
                    format!("vbtables of '{class}' that one base does not tell apart"),
                );
            }
            let symbol = ctx.sym(&vbtable_symbol(&class_name, &path));
            let ty = ctx.types.array(s32, entries.len() as u64);
            if !self.rtti_globals.iter().any(|g| g.name == symbol) {
                let elements = entries
                    .iter()
                    .map(|&value| {
                        ctx.attrs.intern(AttrData::Int {
                            value: value as i128,
                            ty: s32,
                        })
                    })
                    .collect();
                let init = ctx.attrs.intern(AttrData::ConstArray {
                    elements: ConstArrayElements::Attrs(elements),
                    ty,
                    trailing_zeros: false,
                });
                self.rtti_globals.push(ehir_core::Global {
                    name: symbol,
                    ty,
                    init: Some(init),
                    constant: true,
                    linkage: ehir_core::Linkage::Internal,
                    private_visibility: false,
                    align: Some(4),
                    loc: ehir_core::Loc::NONE,
                });
            }
            result.push(VbtablePointer {
                offset: *at,
                table: symbol,
                ty,
            });
        }
        Ok(result)
    }
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// The Microsoft "most derived" argument of a constructor call: 1 for a complete
    /// object, 0 for a base subobject.
    pub fn most_derived_flag(&mut self, complete: bool) -> Value {
        let s32 = self.b.ctx.types.common().s32;
        self.b.const_int(s32, i128::from(complete))
    }

    /// What only the constructor of a complete object does (`part`: construct the
    /// virtual bases): on Microsoft, when the "most derived" flag is set, after storing
    /// the vbtable pointers; on Itanium, in the complete-object variant.
    pub fn complete_object_part(
        &mut self,
        node: &'ast Node,
        class: &str,
        part: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<()> {
        if self.st.abi != ehir_core::abi::EhAbi::Msvc {
            return if self.base_variant {
                Ok(())
            } else {
                part(self)
            };
        }
        let Some(flag) = self.vtt else {
            return Ok(());
        };
        let this = self.this_value(node)?;
        let s32 = self.b.ctx.types.common().s32;
        let zero = self.b.const_int(s32, 0);
        let most_derived = self.b.cmp(CmpPredicate::Ne, flag, zero);
        self.b.begin_if(most_derived, false);
        let depth = self.b.cleanup_depth();
        let outer = self.deferred_virtual_bases.replace(Vec::new());
        for pointer in self.st.msvc_vbtables(self.b.ctx, node, class)? {
            let table = self.b.get_global(pointer.table, pointer.ty);
            let table_ptr = self.b.ctx.types.ptr(s32);
            let table = self.b.cast(CastKind::ArrayToPtrDecay, table, table_ptr);
            let address = self.byte_offset(this, pointer.offset as i64);
            let slot_ty = self.b.ctx.types.ptr(table_ptr);
            let slot = self.b.cast(CastKind::Bitcast, address, slot_ty);
            self.b.store(table, slot, 8);
        }
        part(self)?;
        let built = std::mem::replace(&mut self.deferred_virtual_bases, outer).unwrap_or_default();
        if self.b.cleanup_depth() != depth {
            return error(
                node,
                format!("cleanups left inside the virtual bases of '{class}'"),
            );
        }
        self.b.end_if();
        // Each virtual base built is destroyed if what follows throws, when it was built
        // here (the flag is set).
        for (base, offset) in built {
            let Some((callee, this_offset)) =
                self.st.msvc_base_destructor(self.b.ctx, node, &base)?
            else {
                continue;
            };
            let address = self.byte_offset(this, offset as i64);
            self.b.push_cleanup(CleanupKind::Eh, move |b| {
                let zero = b.const_int(s32, 0);
                let built_here = b.cmp(CmpPredicate::Ne, flag, zero);
                b.begin_if(built_here, false);
                call_at(b, callee, address, this_offset);
                b.end_if();
            });
        }
        Ok(())
    }
}

/// Calls `callee`, a function taking `this` first, for the object `offset` bytes from
/// `object` (cast to the type its `this` has).
pub fn call_at(b: &mut FunctionBuilder<'_>, callee: Callee, object: Value, offset: u64) {
    let this = super::vtable::byte_offset(b, object, offset as i64);
    let this_ty = b
        .ctx
        .types
        .func_info(callee.sig)
        .and_then(|(params, _, _)| params.first().copied());
    let this = match this_ty {
        Some(ty) if ty != b.value_type(this) => b.cast(CastKind::Bitcast, this, ty),
        _ => this,
    };
    call_function(b, callee, &[this]);
}

/// Generates the vbase destructor `??_D` of a destructor of a class with virtual bases
/// on the Microsoft ABI: the destruction of a complete object (`this` at its start):
/// `??1` (which destroys the members and non-virtual bases), then the virtual bases in
/// reverse construction order, also when what runs before them throws.
pub fn generate_vbase_destructor<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    decl: &'ast Node,
    linkage: Linkage,
) -> R<()> {
    let Some(class) = state.class_of(decl) else {
        return error(decl, "a destructor outside a class");
    };
    let complete = state.callee(mb.ctx(), decl)?;
    let name = mb.ctx().name(complete.symbol).to_string();
    let Some(own) = state.msvc_base_destructor(mb.ctx(), decl, &class)? else {
        return error(
            decl,
            format!("the trivial destructor of '{class}' generated"),
        );
    };
    let layout = state.layout(mb.ctx(), decl, &class)?;
    let mut virtual_bases = Vec::new();
    for virtual_base in &layout.virtual_bases {
        if let Some(destructor) = state.msvc_base_destructor(mb.ctx(), decl, &virtual_base.name)? {
            virtual_bases.push((destructor, virtual_base.offset));
        }
    }
    let mut b = mb.function_of_type(&name, complete.sig);
    b.func_mut().linkage = linkage;
    b.func_mut().nothrow = complete.nothrow;
    b.set_loc(super::loc_of(decl));
    let Some(&this) = b.params().first() else {
        return error(decl, "a destructor without 'this'");
    };
    let depth = b.cleanup_depth();
    for ((callee, this_offset), offset) in virtual_bases {
        b.push_cleanup(CleanupKind::All, move |b| {
            call_at(b, callee, this, offset + this_offset);
        });
    }
    call_at(&mut b, own.0, this, own.1);
    b.pop_cleanups_to(depth);
    b.emit_return(None);
    super::function::define_function(b, decl)
}
