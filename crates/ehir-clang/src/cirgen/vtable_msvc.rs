//! Virtual functions on the Microsoft C++ ABI, as Clang for `x86_64-pc-windows-msvc`
//! generates them:
//!
//! - the vftable slots of the vftable pointer a class shares with its primary base (the
//!   first base with one; `-fdump-record-layouts`' "primary base") or has of its own
//!   ([`virtual_slots`]): the base's, overridden in place, then the class's new virtual
//!   functions grouped by name in the order of each name's first declaration, overloads
//!   of one name in reverse declaration order; a virtual destructor takes one slot, the
//!   scalar deleting destructor;
//! - one vftable per vftable pointer ([`State::msvc_vftables`]): the primary one, then
//!   those of the other bases with one, then those of the virtual bases, their slots
//!   overridden by the class's methods. A method's `this` points to the vftable pointer
//!   of the first vftable it has a slot in, where the class's own layout puts it
//!   (callers move it there: a virtual call through the vbtable when it is in a virtual
//!   base; its body moves it back); where another vftable reaches it, the slot holds a
//!   this-adjusting thunk (`?f@D@@W7EAAXXZ`);
//! - a virtual base with a vtordisp (`ClassLayout::vtordisp_bases`): constructors and
//!   destructors store in it how far the virtual base is from where their class puts it,
//!   and the slots of its vftables whose overrider is outside it hold vtordisp thunks
//!   (`?f@D@@$4PPPPPPPM@A@EAAXXZ`) that subtract it first ([`FnGen::store_vfptr`]);
//! - each vftable is an internal CIR global `??_7<class>6B@` (`??_7<class>6B<path>@` for
//!   a class with several: the bases that tell them apart) of `1 + slots` pointers: its
//!   Complete Object Locator `??_R4<class>6B<path>@`, then the functions (`_purecall` for
//!   a pure one). The vftable pointer holds the address of element 1, where Clang's
//!   `??_7…` alias points;
//! - the RTTI objects the code and vftables refer to are declared as module globals
//!   without an initializer under their Microsoft names (the Complete Object Locator — with
//!   one giving its vftable pointer's offset when that is not 0 — and
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
use super::vtable::{DynamicCast, SlotKind, ThisAdjustment, TypeidOperand, VirtualSlot, slot_key};
use super::{R, State, error, unsupported};
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
    AttrData, BinaryOp, CastKind, CleanupKind, CmpPredicate, ConstArrayElements, Linkage,
    ModuleCtx, Symbol, Type,
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
///
/// A method that overrides a slot of another base's vftable (`secondary`: their kinds and
/// keys) and none of these takes no new slot.
pub fn virtual_slots(
    class: &Node,
    inherited: Vec<VirtualSlot>,
    secondary: &[(SlotKind, String)],
) -> Vec<VirtualSlot> {
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
        } else if member.is_virtual && !secondary.iter().any(|(k, s)| *k == kind && *s == key) {
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

/// A slot of a vftable and where its final overrider's `this` points.
#[derive(Clone, Debug)]
pub struct VftableSlot {
    /// The slot.
    pub slot: VirtualSlot,
    /// The offset, in the class whose vftable it is, of the subobject the final
    /// overrider's `this` points to: the vftable pointer of the first of its own class's
    /// vftables in which the overrider has a slot, where its own class's layout puts it
    /// (a virtual base at its offset in that class, not where it is in this one).
    pub this_offset: u64,
    /// The virtual base (of the class whose vftable it is) the final overrider's class
    /// is, or is a non-virtual base of; `None` for the class and its non-virtual bases.
    pub overrider_vbase: Option<String>,
}

/// One vftable of a class: a class has one per vftable pointer, its own or shared with
/// its primary base (at offset 0), those of its other bases with one, and those of its
/// virtual bases.
#[derive(Clone, Debug)]
pub struct Vftable {
    /// The offset of its vftable pointer in the class as a complete object.
    pub offset: u64,
    /// The virtual base its vftable pointer is in (`None`: the non-virtual part).
    pub vbase: Option<String>,
    /// The bases (qualified names) that tell it apart from the class's other vftables in
    /// its symbol (`??_7D@@6BBase@@@`); empty when it needs none.
    pub path: Vec<String>,
    /// Its function slots.
    pub slots: Vec<VftableSlot>,
}

impl Vftable {
    /// The table moved `offset` bytes into a class that contains its class at `offset`,
    /// the overriders of a base's table found in `vbase` (when the base is a virtual one).
    fn moved(mut self, offset: u64, vbase: Option<&str>) -> Vftable {
        self.offset += offset;
        for slot in &mut self.slots {
            slot.this_offset += offset;
            if slot.overrider_vbase.is_none() {
                slot.overrider_vbase = vbase.map(str::to_string);
            }
        }
        self
    }
}

/// Where a virtual function's slot is in a class's vftables ([`State::msvc_slot_location`]).
#[derive(Clone, Debug)]
pub struct SlotLocation {
    /// The offset of the vftable pointer in the class as a complete object.
    pub offset: u64,
    /// The virtual base the vftable pointer is in, and the pointer's offset in it.
    pub vbase: Option<(String, u64)>,
    /// The slot's index.
    pub index: usize,
}

impl<'ast> State<'ast> {
    /// The vftables of a class on the Microsoft ABI, as Clang for Windows builds them:
    /// those of the non-virtual part in the order of their vftable pointers' subobjects
    /// (the primary one first), then those of the virtual bases, in construction order.
    /// Each base's vftables have their slots overridden by the class's methods of the
    /// same kind and key (a virtual base's, also by the overriders the class's other
    /// bases put in their copies of it); the primary one is extended by the class's new
    /// virtual functions. A method's `this` points to the vftable pointer of the first
    /// vftable it has a slot in. Paths that would name two vftables alike are extended
    /// by the direct base each comes from. Empty for a class without virtual functions.
    pub fn msvc_vftables(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<Vec<Vftable>> {
        let layout = self.layout(ctx, node, class)?;
        if !layout.dynamic {
            return Ok(Vec::new());
        }
        // (the vftable, the direct base it comes from).
        let mut tables: Vec<(Vftable, Option<String>)> = Vec::new();
        let mut dynamic_bases = Vec::new();
        for base in &layout.bases {
            if self.layout(ctx, node, &base.name)?.virtual_slots.is_some() {
                dynamic_bases.push(base.clone());
            }
        }
        if dynamic_bases.is_empty() && layout.virtual_slots.is_some() {
            let own = Vftable {
                offset: 0,
                vbase: None,
                path: Vec::new(),
                slots: Vec::new(),
            };
            tables.push((own, None));
        }
        // The copies of the virtual bases' vftables in the direct bases: (virtual base,
        // offset of the pointer in it, the copy).
        let mut copies: Vec<(String, u64, Vftable)> = Vec::new();
        for declared in &layout.declared_bases {
            let (offset, vbase) = if declared.is_virtual {
                let Some(offset) = layout.virtual_base_offset(&declared.name) else {
                    return error(node, format!("virtual base '{}' not placed", declared.name));
                };
                (offset, Some(declared.name.as_str()))
            } else {
                match layout.bases.iter().find(|b| b.name == declared.name) {
                    Some(base) => (base.offset, None),
                    None => continue,
                }
            };
            let base_layout = self.layout(ctx, node, &declared.name)?;
            for table in self.msvc_vftables(ctx, node, &declared.name)? {
                match table.vbase.clone() {
                    None if vbase.is_none() => {
                        tables.push((table.moved(offset, None), Some(declared.name.clone())));
                    }
                    None => {}
                    Some(inner) => {
                        let Some(at) = base_layout.virtual_base_offset(&inner) else {
                            return error(node, format!("virtual base '{inner}' not placed"));
                        };
                        let within = table.offset - at;
                        copies.push((inner, within, table.moved(offset, vbase)));
                    }
                }
            }
        }
        let nv_tables = tables.len();
        for virtual_base in &layout.virtual_bases {
            for table in self.msvc_vftables(ctx, node, &virtual_base.name)? {
                if table.vbase.is_some() {
                    continue;
                }
                let within = table.offset;
                let mut table = table.moved(virtual_base.offset, Some(&virtual_base.name));
                table.vbase = Some(virtual_base.name.clone());
                // The overriders the bases put in their copies of it.
                for (inner, copy_within, copy) in &copies {
                    if *inner != virtual_base.name || *copy_within != within {
                        continue;
                    }
                    let original = table.slots.clone();
                    for ((slot, copied), first) in
                        table.slots.iter_mut().zip(&copy.slots).zip(&original)
                    {
                        if copied.slot.id != first.slot.id {
                            *slot = copied.clone();
                        }
                    }
                }
                tables.push((table, Some(virtual_base.name.clone())));
            }
        }
        let class_node = self.class_node(node, class)?;
        for member in class_node.children() {
            let (kind, key) = match member.kind.as_str() {
                "CXXDestructorDecl" => (SlotKind::DeletingDestructor, "~".to_string()),
                "CXXMethodDecl" | "CXXConversionDecl" => (SlotKind::Method, slot_key(member)),
                _ => continue,
            };
            let overrides = |table: &Vftable| {
                table
                    .slots
                    .iter()
                    .any(|s| s.slot.kind == kind && s.slot.key == key)
            };
            let Some(first) = tables.iter().position(|(table, _)| overrides(table)) else {
                continue;
            };
            let this_offset = tables[first].0.offset;
            for (table, _) in &mut tables {
                for slot in &mut table.slots {
                    if slot.slot.kind == kind && slot.slot.key == key {
                        slot.slot.id = member.id.clone();
                        slot.slot.pure = member.pure;
                        slot.this_offset = this_offset;
                        slot.overrider_vbase = None;
                    }
                }
            }
        }
        if let Some(primary_slots) = layout.virtual_slots.clone() {
            // The class's new virtual functions follow the primary base's slots.
            let primary = &mut tables[0].0;
            let inherited = primary.slots.len();
            if nv_tables == 0
                || primary.offset != 0
                || primary_slots.len() < inherited
                || primary
                    .slots
                    .iter()
                    .zip(&primary_slots)
                    .any(|(a, b)| a.slot.id != b.id)
            {
                return error(node, format!("the vftable slots of '{class}' disagree"));
            }
            primary
                .slots
                .extend(primary_slots[inherited..].iter().map(|slot| VftableSlot {
                    slot: slot.clone(),
                    this_offset: 0,
                    overrider_vbase: None,
                }));
        }
        // Vftables whose paths are alike are told apart by the base each comes from.
        let mut alike = Vec::new();
        for (i, (table, _)) in tables.iter().enumerate() {
            if tables
                .iter()
                .enumerate()
                .any(|(j, (other, _))| i != j && other.path == table.path)
            {
                alike.push(i);
            }
        }
        for i in alike {
            if let Some(base) = tables[i].1.clone() {
                tables[i].0.path.push(base);
            }
        }
        let tables: Vec<Vftable> = tables.into_iter().map(|(table, _)| table).collect();
        for (i, table) in tables.iter().enumerate() {
            if tables[..i].iter().any(|other| other.path == table.path) {
                return unsupported(
                    node,
                    format!("vftables of '{class}' that one base path does not tell apart"),
                );
            }
        }
        Ok(tables)
    }

    /// Where a virtual function of a class is: in the first vftable of `class` that has
    /// a slot of kind `kind` held by `id` (any when `None`).
    pub fn msvc_slot_location(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
        kind: SlotKind,
        id: Option<&str>,
    ) -> R<Option<SlotLocation>> {
        for table in self.msvc_vftables(ctx, node, class)? {
            if let Some(index) = table
                .slots
                .iter()
                .position(|s| s.slot.kind == kind && id.is_none_or(|id| s.slot.id == id))
            {
                return self
                    .msvc_table_location(ctx, node, class, &table, index)
                    .map(Some);
            }
        }
        Ok(None)
    }

    /// Slot `index` of vftable `table` of class `class`.
    pub fn msvc_table_location(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
        table: &Vftable,
        index: usize,
    ) -> R<SlotLocation> {
        let vbase = match &table.vbase {
            Some(vbase) => {
                let layout = self.layout(ctx, node, class)?;
                let Some(at) = layout.virtual_base_offset(vbase) else {
                    return error(node, format!("virtual base '{vbase}' not placed"));
                };
                Some((vbase.clone(), table.offset - at))
            }
            None => None,
        };
        Ok(SlotLocation {
            offset: table.offset,
            vbase,
            index,
        })
    }

    /// The offset of the vftable pointer a virtual member function's `this` points to,
    /// in its class as a complete object: for a destructor, where its slot is when that
    /// is in a virtual base (else 0, its object); 0 for any other member function.
    pub fn msvc_this_offset(&mut self, ctx: &mut ModuleCtx, method: &Node) -> R<u64> {
        let kind = match method.kind.as_str() {
            "CXXMethodDecl" | "CXXConversionDecl" => SlotKind::Method,
            "CXXDestructorDecl" => SlotKind::DeletingDestructor,
            _ => return Ok(0),
        };
        let Some(class) = self.class_of(method) else {
            return Ok(0);
        };
        let location = self.msvc_slot_location(ctx, method, &class, kind, Some(&method.id))?;
        Ok(match location {
            Some(location) if kind == SlotKind::Method || location.vbase.is_some() => {
                location.offset
            }
            _ => 0,
        })
    }

    /// The name of a class in its RTTI symbols (`In@ns@@`); declares its typeinfo (with
    /// its bases), from which the emitter builds the class hierarchy.
    pub(super) fn msvc_rtti_class(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<String> {
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

    /// The vftable `index` (of [`State::msvc_vftables`]) of a dynamic class on the
    /// Microsoft ABI (defined, with the functions it points to queued, on first use): its
    /// symbol and its CIR type.
    pub fn vftable(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
        index: usize,
    ) -> R<(Symbol, Type)> {
        let tables = self.msvc_vftables(ctx, node, class)?;
        let Some(table) = tables.get(index) else {
            return error(node, format!("vftable of '{class}', which is not dynamic"));
        };
        let class_name = self.msvc_rtti_class(ctx, node, class)?;
        let mut path = String::new();
        for base in &table.path {
            path.push_str(&self.msvc_rtti_class(ctx, node, base)?);
        }
        // The dynamic type `__RTtypeid` answers with (the locator points to it too).
        self.type_descriptor(ctx, node, &CType::Named(class.to_string()))?;
        let void_ptr = ctx.types.common().void_ptr;
        let ty = ctx.types.array(void_ptr, 1 + table.slots.len() as u64);
        let symbol = ctx.sym(&vftable_symbol(&class_name, &path));
        if self.rtti_globals.iter().any(|g| g.name == symbol) {
            return Ok((symbol, ty));
        }
        // A vftable in a virtual base with a vtordisp: its thunks subtract it, and the
        // locator says where it is (before the virtual base, from the vftable pointer).
        let layout = self.layout(ctx, node, class)?;
        let vtordisp = match &table.vbase {
            Some(vbase) if layout.vtordisp_bases.contains(vbase) => {
                let Some(at) = layout.virtual_base_offset(vbase) else {
                    return error(node, format!("virtual base '{vbase}' not placed"));
                };
                Some(at as i64 - table.offset as i64 - 4)
            }
            _ => None,
        };
        let locator = self.complete_object_locator(
            ctx,
            &complete_object_locator_symbol(&class_name, &path),
            table.offset,
            vtordisp.map_or(0, |v| -v as u64),
        );
        let mut entries = vec![AttrData::GlobalView {
            symbol: locator,
            indices: vec![],
            ty: Some(void_ptr),
        }];
        for slot in &table.slots {
            let function = if slot.slot.pure {
                let sig = ctx.types.func(vec![], None, false);
                self.address_taken
                    .push((MSVC_PURECALL.to_string(), sig, false));
                MSVC_PURECALL.to_string()
            } else {
                let Some(decl) = self.index.by_id.get(slot.slot.id.as_str()).copied() else {
                    return error(node, format!("a virtual function of '{class}' not found"));
                };
                // The overrider's `this` is elsewhere in the object: a thunk moves it,
                // by the vtordisp first when the overrider is outside the virtual base.
                let offset = slot.this_offset as i64 - table.offset as i64;
                let adjustment = match vtordisp {
                    Some(vtordisp) if slot.overrider_vbase != table.vbase => {
                        if slot.overrider_vbase.is_some() {
                            return unsupported(
                                node,
                                format!(
                                    "a vtordispex thunk in a vftable of '{class}' (an overrider in another virtual base)"
                                ),
                            );
                        }
                        ThisAdjustment {
                            vtordisp: Some(vtordisp),
                            offset,
                        }
                    }
                    _ => ThisAdjustment::fixed(offset),
                };
                self.slot_symbol(ctx, decl, slot.slot.kind, adjustment)?
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

    /// Declares the Complete Object Locator `name` of a vftable whose pointer is at
    /// `vfptr_offset` in the complete object, its vtordisp (if any) `vtordisp_distance`
    /// bytes before the pointer: without an initializer when both are 0, else with one
    /// whose second and third fields are them (the emitter defines the rest).
    fn complete_object_locator(
        &mut self,
        ctx: &mut ModuleCtx,
        name: &str,
        vfptr_offset: u64,
        vtordisp_distance: u64,
    ) -> Symbol {
        let s32 = ctx.types.common().s32;
        let locator_ty = ctx.types.array(s32, LOCATOR_FIELDS);
        let symbol = self.declare_rtti_object(ctx, name, locator_ty);
        if (vfptr_offset != 0 || vtordisp_distance != 0)
            && let Some(global) = self.rtti_globals.iter_mut().find(|g| g.name == symbol)
            && global.init.is_none()
        {
            let fields = [
                1,
                i128::from(vfptr_offset),
                i128::from(vtordisp_distance),
                0,
                0,
                0,
            ]
            .into_iter()
            .map(|value| ctx.attrs.intern(AttrData::Int { value, ty: s32 }))
            .collect();
            global.init = Some(ctx.attrs.intern(AttrData::ConstArray {
                elements: ConstArrayElements::Attrs(fields),
                ty: locator_ty,
                trailing_zeros: false,
            }));
        }
        symbol
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
    // Its `this` points to the vftable pointer of the first vftable it has a slot in.
    let this_offset = state
        .msvc_slot_location(
            mb.ctx(),
            decl,
            &class,
            SlotKind::DeletingDestructor,
            Some(&decl.id),
        )?
        .map_or(0, |location| location.offset);
    let (sig, params) = deleting_destructor_signature(mb.ctx(), destructor.sig);
    let mut b = mb.function(&name, sig, &params);
    // Only this module's vftables point to it.
    b.func_mut().linkage = Linkage::Internal;
    b.set_loc(super::loc_of(decl));
    let [this, flags] = b.params()[..] else {
        return error(decl, "a deleting destructor without 'this' and flags");
    };
    let common = *b.ctx.types.common();
    let this = super::vtable::byte_offset(&mut b, this, -(this_offset as i64));
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
pub(super) fn deleting_destructor_signature(
    ctx: &mut ModuleCtx,
    destructor: Type,
) -> (Type, Vec<Type>) {
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
    /// Stores the address of each of `class`'s vftables (its first function slot) in its
    /// vftable pointer in the object at `object`, when the class is dynamic.
    ///
    /// A vftable pointer in a virtual base is found through the vbtable; each virtual
    /// base with a vtordisp gets it: how far the virtual base is from where the class's
    /// layout puts it (not 0 while the object is a base subobject of a class that puts
    /// it elsewhere), which the vtordisp thunks in the class's vftables subtract.
    pub fn store_vfptr(&mut self, node: &Node, class: &str, object: Value) -> R<()> {
        let tables = self.st.msvc_vftables(self.b.ctx, node, class)?;
        for (index, table) in tables.iter().enumerate() {
            let (symbol, ty) = self.st.vftable(self.b.ctx, node, class, index)?;
            let location = self
                .st
                .msvc_table_location(self.b.ctx, node, class, table, 0)?;
            let address = self.msvc_vfptr_address(node, class, object, &location)?;
            // The locator's slot comes first.
            self.store_table_entry_address(symbol, ty, 1, address);
        }
        let layout = self.st.layout(self.b.ctx, node, class)?;
        let common = *self.b.ctx.types.common();
        for vbase in &layout.vtordisp_bases {
            let Some(static_offset) = layout.virtual_base_offset(vbase) else {
                return error(node, format!("virtual base '{vbase}' not placed"));
            };
            let offset = self.virtual_base_offset(node, object, class, vbase)?;
            let expected = self.b.const_int(common.s64, i128::from(static_offset));
            let displacement = self.b.binop(BinaryOp::Sub, offset, expected);
            let displacement = self.b.cast(CastKind::Integral, displacement, common.s32);
            let base = super::vtable::byte_offset_by(&mut self.b, object, offset);
            let at = self.byte_offset(base, -4);
            let s32_ptr = self.b.ctx.types.ptr(common.s32);
            let at = self.b.cast(CastKind::Bitcast, at, s32_ptr);
            self.b.store(displacement, at, 4);
        }
        Ok(())
    }

    /// The address of the vftable pointer of a slot location of class `class` in the
    /// object at `object`: at its offset, or in its virtual base, found through the
    /// vbtable.
    pub fn msvc_vfptr_address(
        &mut self,
        node: &Node,
        class: &str,
        object: Value,
        location: &SlotLocation,
    ) -> R<Value> {
        Ok(match &location.vbase {
            Some((vbase, within)) => {
                let offset = self.virtual_base_offset(node, object, class, vbase)?;
                let base = super::vtable::byte_offset_by(&mut self.b, object, offset);
                self.byte_offset(base, *within as i64)
            }
            None => self.byte_offset(object, location.offset as i64),
        })
    }

    /// The address of the first vftable pointer of the object of class `class` at
    /// `object` (what msvcrt's RTTI functions read).
    fn msvc_first_vfptr(&mut self, node: &Node, class: &str, object: Value) -> R<Value> {
        let tables = self.st.msvc_vftables(self.b.ctx, node, class)?;
        let Some(first) = tables.first() else {
            return error(node, format!("'{class}' has no vftable"));
        };
        let location = self
            .st
            .msvc_table_location(self.b.ctx, node, class, first, 0)?;
        self.msvc_vfptr_address(node, class, object, &location)
    }

    /// `delete p` of an object with a virtual destructor at vftable slot `index`: the
    /// dynamic type's scalar deleting destructor, with flags 1 (release the storage), or
    /// 5 for `::delete p` (`global`: with the global `operator delete`).
    pub fn delete_through_vftable(
        &mut self,
        node: &Node,
        class: &str,
        pointer: Value,
        destructor: Callee,
        global: bool,
    ) -> R<()> {
        let Some(location) = self.st.msvc_slot_location(
            self.b.ctx,
            node,
            class,
            SlotKind::DeletingDestructor,
            None,
        )?
        else {
            return error(node, format!("'{class}' has no virtual destructor"));
        };
        let (sig, _) = deleting_destructor_signature(self.b.ctx, destructor.sig);
        let pointer = self.msvc_vfptr_address(node, class, pointer, &location)?;
        let function = self.virtual_function(pointer, location.index);
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
        Ok(())
    }

    /// The `this` a call of `method` passes for the object at `object`: on the Microsoft
    /// ABI, a virtual function's `this` points to the vftable pointer of the first of
    /// its class's vftables it has a slot in: found through the vbtable for a virtual
    /// call when that is in a virtual base, else where the class's layout puts it
    /// ([`State::msvc_this_offset`], what the function's prologue undoes).
    pub fn msvc_adjusted_this(
        &mut self,
        method: &Node,
        object: Value,
        virtual_call: bool,
    ) -> R<Value> {
        if self.st.abi != ehir_core::abi::EhAbi::Msvc {
            return Ok(object);
        }
        if virtual_call && let Some(class) = self.st.class_of(method) {
            let location = self.st.msvc_slot_location(
                self.b.ctx,
                method,
                &class,
                SlotKind::Method,
                Some(&method.id),
            )?;
            if let Some(location) = location {
                return self.msvc_vfptr_address(method, &class, object, &location);
            }
        }
        let offset = self.st.msvc_this_offset(self.b.ctx, method)?;
        Ok(self.byte_offset(object, offset as i64))
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
            TypeidOperand::Dynamic(object, class) => {
                let object = self.msvc_first_vfptr(e, &class, object)?;
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
        // The object's first vftable pointer (in a virtual base, maybe).
        let raw = self.msvc_first_vfptr(e, &source, raw)?;
        let source_descriptor = self.type_descriptor_address(e, &CType::Named(source))?;
        let target_descriptor = self.type_descriptor_address(e, &CType::Named(target.clone()))?;
        // The source object is the one the vftable's locator names.
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
        let slots = virtual_slots(&base, Vec::new(), &[]);
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
        let slots = virtual_slots(&derived, slots, &[]);
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
        let slots = virtual_slots(&derived, virtual_slots(&base, Vec::new(), &[]), &[]);
        let ids: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["6", "5"]);
    }
}
