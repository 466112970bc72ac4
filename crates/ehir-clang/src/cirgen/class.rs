//! Classes: the Itanium layout (computed from the AST: bases, fields, empty classes, tail
//! padding of POD bases), the CIR record of each class, typeinfo objects, and finding
//! the special members that construction and destruction call.

use super::vtable::{VirtualSlot, virtual_slots};
use super::{Pending, R, State, error, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_core::abi::EhAbi;
use ehir_core::abi::records::padding_type;
use ehir_core::{AttrData, Loc, ModuleCtx, RecordDecl, RecordKind, Symbol, Type, TypeInfoDecl};
use std::rc::Rc;

/// A field of a class layout.
#[derive(Clone, Debug)]
pub struct FieldLayout {
    /// The `FieldDecl` id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: CType,
    /// Its byte offset.
    pub offset: u64,
    /// Its index among the CIR record's fields.
    pub index: u32,
}

/// A non-virtual base class of a class layout.
#[derive(Clone, Debug)]
pub struct BaseLayout {
    /// The base class's qualified name.
    pub name: String,
    /// Its byte offset in the derived class.
    pub offset: u64,
    /// Whether it is a public base (catch-by-base matches it).
    pub public: bool,
}

/// A direct base class as the class declares it (RTTI lists them all, in this order).
#[derive(Clone, Debug)]
pub struct DeclaredBase {
    /// The base class's qualified name.
    pub name: String,
    /// A virtual base.
    pub is_virtual: bool,
    /// A public base.
    pub public: bool,
}

/// A virtual base class and its offset in an object whose complete type is the class.
#[derive(Clone, Debug)]
pub struct VirtualBaseLayout {
    /// The base class's qualified name.
    pub name: String,
    /// Its byte offset in the complete object.
    pub offset: u64,
}

/// Something placed in a class layout: its offset, CIR type, size and alignment.
#[derive(Clone, Copy, Debug)]
pub struct PlacedItem {
    /// Byte offset in the class.
    pub offset: u64,
    /// The CIR type.
    pub ty: Type,
    /// Its size.
    pub size: u64,
    /// Its alignment.
    pub align: u64,
}

/// The layout of a class: the x86-64 Itanium C++ ABI, or on the Microsoft target
/// Microsoft's rules for classes without virtual functions or bases (an empty base takes
/// no room, one following a base that ends in a zero-sized subobject is moved one byte
/// on; no base's tail padding is reused; an empty member takes its byte, beside another
/// of its type).
#[derive(Clone, Debug)]
pub struct ClassLayout {
    /// The qualified name.
    pub name: String,
    /// The CIR record type.
    pub cir: Type,
    /// `sizeof`.
    pub size: u64,
    /// `alignof`.
    pub align: u64,
    /// The data size (Itanium `dsize`: the size without tail padding, all of it for a
    /// POD or an empty class).
    pub dsize: u64,
    /// The size the class takes as a base subobject: its non-virtual part without tail
    /// padding (Itanium `nvsize`), or all of it for a POD.
    pub nv_size: u64,
    /// The alignment of the class as a base subobject (without its virtual bases).
    pub nv_align: u64,
    /// What the non-virtual part holds, for a class that embeds this one as a base where
    /// its whole record does not fit (virtual bases, tail padding reused).
    pub nv_items: Vec<PlacedItem>,
    /// POD for the purpose of layout.
    pub pod: bool,
    /// An empty class.
    pub empty: bool,
    /// Non-static data members, in order.
    pub fields: Vec<FieldLayout>,
    /// Non-virtual bases, in declaration order.
    pub bases: Vec<BaseLayout>,
    /// Every direct base, in declaration order.
    pub declared_bases: Vec<DeclaredBase>,
    /// Every virtual base (direct or not), in the order they are constructed, with their
    /// offsets when this class is the complete object.
    pub virtual_bases: Vec<VirtualBaseLayout>,
    /// The Itanium primary base (it shares the vptr at offset 0) and whether it is
    /// virtual.
    pub primary_base: Option<(String, bool)>,
    /// A dynamic class: it has a vptr (virtual functions or virtual bases).
    pub dynamic: bool,
    /// The slot keys of the virtual functions of the class and of all its bases (a
    /// method with one of them is virtual, declared so or not).
    pub virtual_keys: std::collections::BTreeSet<String>,
    /// The destructor is trivial.
    pub trivial_dtor: bool,
    /// Passed and returned in registers by the C ABI (trivial copy constructor and
    /// destructor).
    pub by_value: bool,
    /// For an empty class: the empty subobjects at each offset (itself included), which
    /// another empty subobject of the same type may not share.
    pub empty_subobjects: Vec<(u64, String)>,
    /// For a dynamic class: the function slots of its primary vtable (its vptr is at
    /// offset 0, its own or its primary base's).
    pub virtual_slots: Option<Vec<VirtualSlot>>,
    /// Microsoft layout: the class is empty or its first base leads with a zero-sized
    /// base.
    pub leads_with_zero_sized_base: bool,
    /// Microsoft layout: the class is empty or its last subobject is a zero-sized base.
    pub ends_with_zero_sized: bool,
    /// Microsoft layout of a class with virtual bases: the offset of its vbtable
    /// pointer (its own, or the one it shares with its first non-virtual base that has
    /// one).
    pub vbptr_offset: Option<u64>,
    /// Microsoft layout: the virtual bases with a vtordisp (a 32-bit displacement just
    /// before them, which constructors and destructors set to how far the virtual base
    /// is from where this class's layout puts it), in construction order.
    pub vtordisp_bases: Vec<String>,
}

impl ClassLayout {
    /// The offset of virtual base `name` when this class is the complete object.
    pub fn virtual_base_offset(&self, name: &str) -> Option<u64> {
        self.virtual_bases
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.offset)
    }
}

fn align_up(x: u64, a: u64) -> u64 {
    if a <= 1 { x } else { x.div_ceil(a) * a }
}

/// The subobjects placed so far while laying out a class.
#[derive(Default)]
struct Placement {
    items: Vec<PlacedItem>,
    dsize: u64,
    align: u64,
    /// Empty subobjects placed so far: (offset, class).
    empty_at: Vec<(u64, String)>,
    /// Virtual bases placed so far, with their offsets.
    virtual_bases: Vec<(String, u64)>,
}

impl Placement {
    /// Places the non-virtual part of a class (what its `nv_items` hold) at `offset`.
    fn place_non_virtual_part(&mut self, layout: &ClassLayout, offset: u64) {
        self.items
            .extend(layout.nv_items.iter().map(|item| PlacedItem {
                offset: offset + item.offset,
                ..*item
            }));
        self.dsize = offset + layout.nv_size;
    }

    /// Places a base subobject (the non-virtual part of `base`) by the Itanium rules: an
    /// empty one at the first offset from 0 where no other empty subobject of its type
    /// is, another one at the data size so far, aligned, not reusing a POD's tail padding.
    fn place_base(&mut self, name: &str, base: &ClassLayout) -> u64 {
        self.align = self.align.max(base.nv_align);
        if base.empty {
            // Two empty subobjects of one type never share an address.
            let mut offset = 0;
            while self.empty_at.contains(&(offset, name.to_string())) {
                offset += 1;
            }
            self.empty_at.push((offset, name.to_string()));
            for inner in &base.empty_subobjects {
                self.empty_at.push((offset + inner.0, inner.1.clone()));
            }
            if offset > 0 {
                self.dsize = self.dsize.max(offset + 1);
            }
            return offset;
        }
        let offset = align_up(self.dsize, base.nv_align);
        if base.nv_size == base.size {
            self.items.push(PlacedItem {
                offset,
                ty: base.cir,
                size: base.size,
                align: base.align,
            });
        } else {
            // Only its non-virtual part, item by item: what follows may use its tail.
            for item in &base.nv_items {
                self.items.push(PlacedItem {
                    offset: offset + item.offset,
                    ..*item
                });
            }
        }
        self.dsize = offset + base.nv_size;
        offset
    }

    /// Records where the virtual bases that are primary bases of the subobject of class
    /// `layout` at `offset` (and of its non-virtual bases) are: with that subobject,
    /// sharing its vptr, unless placed already.
    fn add_primary_virtual_bases(
        &mut self,
        layouts: &std::collections::HashMap<String, Rc<ClassLayout>>,
        layout: &ClassLayout,
        offset: u64,
    ) {
        if let Some((primary, true)) = &layout.primary_base
            && !self.virtual_bases.iter().any(|(v, _)| v == primary)
        {
            self.virtual_bases.push((primary.clone(), offset));
            if let Some(primary_layout) = layouts.get(primary) {
                self.add_primary_virtual_bases(layouts, primary_layout, offset);
            }
        }
        for base in &layout.bases {
            if let Some(base_layout) = layouts.get(&base.name) {
                self.add_primary_virtual_bases(layouts, base_layout, offset + base.offset);
            }
        }
    }
}

impl<'ast> State<'ast> {
    /// The class definition of a qualified name.
    pub fn class_node(&self, node: &Node, name: &str) -> R<&'ast Node> {
        match self.index.classes.get(name).or_else(|| {
            self.index
                .classes
                .get(&self.qualified(name, &self.index.classes)?)
        }) {
            Some(class) => Ok(class),
            None => unsupported(node, format!("incomplete or unknown class '{name}'")),
        }
    }

    /// The qualified name a name Clang printed partly qualified stands for (a name used
    /// inside an enclosing namespace: `Error`, `storage::Error` in `app`): the first, in
    /// name order, of the names ending in `::name`.
    pub fn qualified<V>(
        &self,
        name: &str,
        table: &std::collections::HashMap<String, V>,
    ) -> Option<String> {
        if table.contains_key(name) {
            return None;
        }
        // A namespace alias (`st::NotFound`, `namespace st = app::storage`).
        if let Some((first, rest)) = name.split_once("::") {
            let mut aliases: Vec<(&String, &String)> = self
                .index
                .namespace_aliases
                .iter()
                .filter(|(alias, _)| *alias == first || alias.ends_with(&format!("::{first}")))
                .collect();
            aliases.sort();
            if let Some((_, id)) = aliases.first()
                && let Some(namespace) = self.index.namespaces.get(id.as_str())
            {
                let resolved = format!("{namespace}::{rest}");
                if table.contains_key(&resolved) {
                    return Some(resolved);
                }
            }
        }
        let suffix = format!("::{name}");
        let mut found: Vec<&String> = table.keys().filter(|k| k.ends_with(&suffix)).collect();
        found.sort();
        found.first().map(|k| k.to_string())
    }

    /// The layout of a class (computed and its record declared on first use).
    pub fn layout(&mut self, ctx: &mut ModuleCtx, node: &Node, name: &str) -> R<Rc<ClassLayout>> {
        if let Some(layout) = self.layouts.get(name) {
            return Ok(layout.clone());
        }
        if !self.index.classes.contains_key(name)
            && let Some(qualified) = self.qualified(name, &self.index.classes)
        {
            // A name Clang printed unqualified: one layout (and record) per class.
            let layout = self.layout(ctx, node, &qualified)?;
            self.layouts.insert(name.to_string(), layout.clone());
            return Ok(layout);
        }
        let class = self.class_node(node, name)?;
        if !self.laying_out.insert(name.to_string()) {
            return unsupported(node, format!("class '{name}' contains itself"));
        }
        let layout = self.compute_layout(ctx, class, name);
        self.laying_out.remove(name);
        let layout = Rc::new(layout?);
        self.layouts.insert(name.to_string(), layout.clone());
        Ok(layout)
    }

    /// The direct bases of a class with their layouts, in declaration order.
    fn base_layouts(
        &mut self,
        ctx: &mut ModuleCtx,
        class: &'ast Node,
    ) -> R<Vec<(DeclaredBase, Rc<ClassLayout>)>> {
        let mut bases = Vec::new();
        for base in &class.bases {
            let base_name = self.parse(class, base.ty.canonical())?;
            let Some(base_name) = base_name.name().map(str::to_string) else {
                return error(class, "a base class that is not a class");
            };
            let layout = self.layout(ctx, class, &base_name)?;
            bases.push((
                DeclaredBase {
                    name: layout.name.clone(),
                    is_virtual: base.is_virtual,
                    public: base.access == "public",
                },
                layout,
            ));
        }
        Ok(bases)
    }

    /// The Itanium primary base of a dynamic class: its first non-virtual dynamic base;
    /// else its first nearly empty virtual base (a vptr and nothing else) in inheritance
    /// graph order that is not the primary base of another base, or failing that the
    /// first nearly empty virtual base.
    fn itanium_primary_base(
        &self,
        bases: &[(DeclaredBase, Rc<ClassLayout>)],
    ) -> Option<(String, bool)> {
        if let Some((base, _)) = bases
            .iter()
            .find(|(base, layout)| !base.is_virtual && layout.dynamic)
        {
            return Some((base.name.clone(), false));
        }
        let indirect_primary = self.primary_virtual_bases_in(bases);
        let nearly_empty = |layout: &ClassLayout| layout.dynamic && layout.nv_size == 8;
        let mut first_nearly_empty: Option<String> = None;
        let declared: Vec<DeclaredBase> = bases.iter().map(|(b, _)| b.clone()).collect();
        for (name, is_virtual) in self.inheritance_preorder(&declared) {
            let Some(layout) = self.layouts.get(&name) else {
                continue;
            };
            if is_virtual && nearly_empty(layout) {
                if !indirect_primary.contains(&name) {
                    return Some((name, true));
                }
                first_nearly_empty.get_or_insert(name.clone());
            }
        }
        first_nearly_empty.map(|name| (name, true))
    }

    /// The non-static data members of `class`, in declaration order, with their C++ and
    /// CIR types, size and alignment (bit fields are not supported).
    fn data_members<'n>(&mut self, ctx: &mut ModuleCtx, class: &'n Node) -> R<Vec<DataMember<'n>>> {
        let mut members = Vec::new();
        for node in class.children().filter(|c| c.kind == "FieldDecl") {
            if node.is_bitfield {
                return unsupported(node, "bit fields");
            }
            let ty = self.node_type(node)?;
            let (size, align) = self.size_align(ctx, node, &ty)?;
            let cir = self.cir_type(ctx, node, &ty)?;
            members.push(DataMember {
                node,
                ty,
                cir,
                size,
                align,
            });
        }
        Ok(members)
    }

    /// Computes the layout of a class and declares its record.
    fn compute_layout(
        &mut self,
        ctx: &mut ModuleCtx,
        class: &'ast Node,
        name: &str,
    ) -> R<ClassLayout> {
        let data = class.definition_data.clone().unwrap_or_default();
        let msvc = self.abi == EhAbi::Msvc;
        if class.tag_used.as_deref() == Some("union") {
            return self.union_layout(ctx, class, name, &data);
        }
        let bases = self.base_layouts(ctx, class)?;
        // Every virtual base, in construction order: those of each base, then the base
        // itself when it is virtual.
        let mut virtual_order: Vec<String> = Vec::new();
        for (base, layout) in &bases {
            for inner in &layout.virtual_bases {
                if !virtual_order.contains(&inner.name) {
                    virtual_order.push(inner.name.clone());
                }
            }
            if base.is_virtual && !virtual_order.contains(&base.name) {
                virtual_order.push(base.name.clone());
            }
        }
        if msvc {
            self.check_msvc_virtual_bases(ctx, class, name, &virtual_order)?;
        }
        // A Microsoft class has a vbtable pointer for its virtual bases, not a vfptr.
        let dynamic = data.is_polymorphic || (!msvc && !virtual_order.is_empty());
        let mut virtual_keys = std::collections::BTreeSet::new();
        for (_, layout) in &bases {
            virtual_keys.extend(layout.virtual_keys.iter().cloned());
        }
        let primary_base = if msvc || !dynamic {
            None
        } else {
            self.itanium_primary_base(&bases)
        };
        let mut placement = Placement {
            align: 1,
            ..Placement::default()
        };
        let mut base_offsets: Vec<Option<u64>> = vec![None; bases.len()];
        // The vtable slots inherited from the primary base.
        let mut inherited: Option<Vec<VirtualSlot>> = None;
        // Microsoft layout: whether the first base leads with a zero-sized base, and the
        // last one ends with a zero-sized object.
        let mut leads_with_zero_sized_base = false;
        let mut previous_ends_with_zero_sized = false;
        let vptr_item = |ctx: &mut ModuleCtx| {
            let void_ptr = ctx.types.common().void_ptr;
            PlacedItem {
                offset: 0,
                ty: ctx.types.ptr(void_ptr),
                size: 8,
                align: 8,
            }
        };
        if dynamic && !msvc {
            // The vptr comes first: the class's own, or its primary base's.
            match &primary_base {
                None => {
                    placement.items.push(vptr_item(ctx));
                    placement.dsize = 8;
                    placement.align = 8;
                }
                Some((primary, is_virtual)) => {
                    let index = bases
                        .iter()
                        .position(|(b, _)| &b.name == primary && b.is_virtual == *is_virtual);
                    let primary_layout = match index {
                        Some(i) => bases[i].1.clone(),
                        None => self.layout(ctx, class, primary)?,
                    };
                    let offset = placement.place_base(primary, &primary_layout);
                    if *is_virtual {
                        placement.virtual_bases.push((primary.clone(), offset));
                    } else if let Some(i) = index {
                        base_offsets[i] = Some(offset);
                    }
                    placement.add_primary_virtual_bases(&self.layouts, &primary_layout, offset);
                    inherited = primary_layout.virtual_slots.clone();
                }
            }
        }
        // The order the non-virtual bases are placed in: Microsoft places those with a
        // vfptr first (in declaration order), the first of them the primary base whose
        // vfptr the class shares; a dynamic class without one gets its own at offset 0,
        // before its bases.
        let mut order: Vec<usize> = (0..bases.len()).collect();
        // The slot keys of the vftables of the other bases with a vfptr (a method
        // overriding one of them has no slot of its own).
        let mut secondary_keys = Vec::new();
        // Microsoft: the slots of the vftable at offset 0, when there is one.
        let mut msvc_slots: Option<Vec<VirtualSlot>> = None;
        if msvc {
            order.sort_by_key(|&i| bases[i].1.virtual_slots.is_none());
            // Only a non-virtual base's vftable pointer can be shared (and extended).
            let mut dynamic_bases = order
                .iter()
                .map(|&i| &bases[i])
                .filter(|(base, layout)| !base.is_virtual && layout.virtual_slots.is_some());
            inherited = dynamic_bases
                .next()
                .and_then(|(_, layout)| layout.virtual_slots.clone());
            let mut secondary: Vec<String> = dynamic_bases.map(|(b, _)| b.name.clone()).collect();
            secondary.extend(virtual_order.iter().cloned());
            for base in secondary {
                for table in self.msvc_vftables(ctx, class, &base)? {
                    secondary_keys
                        .extend(table.slots.into_iter().map(|s| (s.slot.kind, s.slot.key)));
                }
            }
            if dynamic {
                // The vftable at offset 0: the primary base's extended, or the class's
                // own when it adds virtual functions and has no primary base.
                let slots = super::vtable_msvc::virtual_slots(
                    class,
                    inherited.clone().unwrap_or_default(),
                    &secondary_keys,
                );
                if inherited.is_none() && !slots.is_empty() {
                    placement.items.push(vptr_item(ctx));
                    placement.dsize = 8;
                    placement.align = 8;
                }
                if inherited.is_some() || !slots.is_empty() {
                    msvc_slots = Some(slots);
                }
                // A method is virtual when it overrides one of a base's.
                for member in class.children() {
                    if matches!(member.kind.as_str(), "CXXMethodDecl" | "CXXConversionDecl") {
                        let key = super::vtable::slot_key(member);
                        if member.is_virtual || virtual_keys.contains(&key) {
                            virtual_keys.insert(key);
                        }
                    }
                }
            }
        }
        for (placed, &position) in order.iter().enumerate() {
            let (base, base_layout) = &bases[position];
            if base.is_virtual || base_offsets[position].is_some() {
                continue;
            }
            let offset = if msvc {
                // Microsoft: an empty base takes no room; two zero-sized objects in a
                // row are a byte apart; a base's tail padding is never reused.
                if previous_ends_with_zero_sized && base_layout.leads_with_zero_sized_base {
                    placement.dsize += 1;
                }
                let offset = align_up(placement.dsize, base_layout.align);
                if !base_layout.virtual_bases.is_empty() {
                    // Only its non-virtual part: its virtual bases are the class's.
                    placement.place_non_virtual_part(base_layout, offset);
                } else if !base_layout.empty {
                    placement.items.push(PlacedItem {
                        offset,
                        ty: base_layout.cir,
                        size: base_layout.size,
                        align: base_layout.align,
                    });
                    placement.dsize = offset + base_layout.size;
                } else {
                    placement.dsize = offset;
                }
                if placed == 0 {
                    leads_with_zero_sized_base = base_layout.leads_with_zero_sized_base;
                }
                previous_ends_with_zero_sized = base_layout.ends_with_zero_sized;
                placement.align = placement.align.max(base_layout.align);
                offset
            } else {
                let offset = placement.place_base(&base.name, base_layout);
                placement.add_primary_virtual_bases(&self.layouts, base_layout, offset);
                offset
            };
            base_offsets[position] = Some(offset);
        }
        // Microsoft: the vbtable pointer of a class with virtual bases is shared with its
        // first non-virtual base (in declaration order) that has one, or is its own, after
        // the non-virtual bases.
        let mut vbptr_offset = None;
        if msvc && !virtual_order.is_empty() {
            vbptr_offset = bases
                .iter()
                .zip(&base_offsets)
                .find_map(|((_, layout), offset)| Some((*offset)? + layout.vbptr_offset?));
            if vbptr_offset.is_none() {
                let offset = align_up(placement.dsize, 8);
                placement.items.push(PlacedItem {
                    offset,
                    ..vptr_item(ctx)
                });
                placement.dsize = offset + 8;
                placement.align = placement.align.max(8);
                vbptr_offset = Some(offset);
            }
        }
        let virtual_slots = if msvc {
            msvc_slots
        } else {
            dynamic.then(|| virtual_slots(class, inherited.unwrap_or_default(), &mut virtual_keys))
        };
        let mut fields = Vec::new();
        for member in self.data_members(ctx, class)? {
            let DataMember {
                node: field,
                ty,
                cir,
                size,
                align: field_align,
            } = member;
            let mut offset = align_up(placement.dsize, field_align);
            if !msvc
                && let CType::Named(field_class) = ty.unqualified()
                && self.layout(ctx, field, field_class)?.empty
            {
                while placement.empty_at.contains(&(offset, field_class.clone())) {
                    offset += field_align;
                }
                placement.empty_at.push((offset, field_class.clone()));
            }
            placement.items.push(PlacedItem {
                offset,
                ty: cir,
                size,
                align: field_align,
            });
            placement.dsize = offset + size;
            placement.align = placement.align.max(field_align);
            fields.push(FieldLayout {
                id: field.id.clone(),
                name: field.name.clone().unwrap_or_default(),
                ty,
                offset,
                index: 0,
            });
        }
        // The non-virtual part ends here (on Microsoft, aligned, for a class with
        // virtual bases).
        if msvc && vbptr_offset.is_some() {
            placement.dsize = align_up(placement.dsize, placement.align);
        }
        let nv_dsize = placement.dsize;
        let nv_align = placement.align;
        let nv_items = placement.items.clone();
        let mut vtordisp_bases = Vec::new();
        if msvc {
            // Microsoft: the virtual bases follow, in construction order, a 4-byte
            // vtordisp before each that needs one, the class aligned for all of them.
            vtordisp_bases = self.msvc_vtordisp_set(class, &bases, &virtual_order);
            for virtual_base in &virtual_order {
                let base_layout = self.layout(ctx, class, virtual_base)?;
                placement.align = placement.align.max(base_layout.align);
            }
            for virtual_base in &virtual_order {
                let base_layout = self.layout(ctx, class, virtual_base)?;
                if vtordisp_bases.contains(virtual_base) {
                    placement.dsize = align_up(placement.dsize, placement.align) + 4;
                }
                let offset = align_up(placement.dsize, base_layout.nv_align);
                placement.place_non_virtual_part(&base_layout, offset);
                placement.align = placement.align.max(base_layout.align);
                placement.virtual_bases.push((virtual_base.clone(), offset));
            }
        } else if !virtual_order.is_empty() {
            // The virtual bases, in inheritance graph order (each where it is first met,
            // before its own bases), except those placed with a subobject whose primary
            // base they are.
            let indirect_primary = self.primary_virtual_bases_in(&bases);
            let declared: Vec<DeclaredBase> = bases.iter().map(|(b, _)| b.clone()).collect();
            for (base, is_virtual) in self.inheritance_preorder(&declared) {
                if is_virtual
                    && !placement.virtual_bases.iter().any(|(v, _)| *v == base)
                    && !indirect_primary.contains(&base)
                {
                    let base_layout = self.layout(ctx, class, &base)?;
                    let offset = placement.place_base(&base, &base_layout);
                    placement.virtual_bases.push((base.clone(), offset));
                    placement.add_primary_virtual_bases(&self.layouts, &base_layout, offset);
                }
            }
        }
        let mut virtual_bases = Vec::new();
        for v in &virtual_order {
            let Some((_, offset)) = placement.virtual_bases.iter().find(|(p, _)| p == v) else {
                return error(class, format!("virtual base '{v}' of '{name}' not placed"));
            };
            virtual_bases.push(VirtualBaseLayout {
                name: v.clone(),
                offset: *offset,
            });
        }
        let align = placement.align;
        let size = align_up(placement.dsize.max(1), align);
        // A POD's tail padding is its data (never reused); an empty class's byte too.
        let dsize = if data.is_pod || placement.dsize == 0 {
            size
        } else {
            placement.dsize
        };
        let alias = self.record_alias(ctx, name);
        let record_name = ctx.sym(&self.output_name(name));
        let index_of = declare_record(
            ctx,
            class,
            (alias, record_name),
            &placement.items,
            size,
            align,
        )?;
        // The fields are the last items of the non-virtual part.
        let first_field = nv_items.len() - fields.len();
        for (field, index) in fields.iter_mut().zip(&index_of[first_field..]) {
            field.index = *index;
        }
        let ends_with_zero_sized =
            data.is_empty || (fields.is_empty() && previous_ends_with_zero_sized);
        let nv_size = if data.is_pod { size } else { nv_dsize };
        let mut base_layouts_out = Vec::new();
        for ((base, _), offset) in bases.iter().zip(&base_offsets) {
            if let Some(offset) = offset {
                base_layouts_out.push(BaseLayout {
                    name: base.name.clone(),
                    offset: *offset,
                    public: base.public,
                });
            }
        }
        Ok(ClassLayout {
            name: name.to_string(),
            cir: ctx.types.record(alias),
            size,
            align,
            dsize,
            nv_size,
            nv_align,
            nv_items,
            pod: data.is_pod,
            empty: data.is_empty,
            fields,
            bases: base_layouts_out,
            declared_bases: bases.iter().map(|(b, _)| b.clone()).collect(),
            virtual_bases,
            primary_base,
            dynamic,
            virtual_keys,
            trivial_dtor: data.dtor.trivial,
            by_value: data.dtor.trivial && data.copy_ctor.trivial,
            empty_subobjects: if data.is_empty {
                let mut own = placement.empty_at.clone();
                own.push((0, name.to_string()));
                own
            } else {
                Vec::new()
            },
            virtual_slots,
            leads_with_zero_sized_base: data.is_empty || leads_with_zero_sized_base,
            ends_with_zero_sized,
            vbptr_offset,
            vtordisp_bases,
        })
    }

    /// What virtual bases on the Microsoft ABI do not support yet: an empty virtual base.
    fn check_msvc_virtual_bases(
        &mut self,
        ctx: &mut ModuleCtx,
        class: &'ast Node,
        name: &str,
        virtual_bases: &[String],
    ) -> R<()> {
        for base in virtual_bases {
            if self.layout(ctx, class, base)?.empty {
                return unsupported(
                    class,
                    format!(
                        "an empty virtual base class on the Microsoft ABI (class '{name}', base '{base}')"
                    ),
                );
            }
        }
        Ok(())
    }

    /// The virtual bases of a class that get a vtordisp on the Microsoft ABI (Clang's
    /// default `/vd1`): those that have one in a direct base; and, when the class
    /// declares a constructor or destructor, each virtual base that is (or has as a
    /// non-virtual base, recursively) a class introducing a virtual function the class
    /// overrides (a destructor or pure function does not count).
    fn msvc_vtordisp_set(
        &self,
        class: &'ast Node,
        bases: &[(DeclaredBase, Rc<ClassLayout>)],
        virtual_bases: &[String],
    ) -> Vec<String> {
        let mut set: Vec<String> = Vec::new();
        for (_, layout) in bases {
            for base in &layout.vtordisp_bases {
                if !set.contains(base) {
                    set.push(base.clone());
                }
            }
        }
        let user_declared = class.children().any(|c| {
            matches!(c.kind.as_str(), "CXXConstructorDecl" | "CXXDestructorDecl") && !c.is_implicit
        });
        if user_declared {
            // The classes that introduce the virtual functions the class overrides.
            let mut introducers = std::collections::BTreeSet::new();
            for member in class.children() {
                if member.kind != "CXXMethodDecl" || member.pure {
                    continue;
                }
                let key = super::vtable::slot_key(member);
                for (_, layout) in bases {
                    if layout.virtual_keys.contains(&key) {
                        self.introducers_of(layout, &key, &mut introducers);
                    }
                }
            }
            for base in virtual_bases {
                if !set.contains(base) && self.contains_non_virtually(base, &introducers) {
                    set.push(base.clone());
                }
            }
        }
        // In construction order.
        virtual_bases
            .iter()
            .filter(|v| set.contains(v))
            .cloned()
            .collect()
    }

    /// The classes in the hierarchy of `layout` that declare the virtual function with
    /// slot key `key` without overriding a base's.
    fn introducers_of(
        &self,
        layout: &ClassLayout,
        key: &str,
        found: &mut std::collections::BTreeSet<String>,
    ) {
        let mut overrides = false;
        for base in &layout.declared_bases {
            if let Some(base_layout) = self.layouts.get(&base.name)
                && base_layout.virtual_keys.contains(key)
            {
                overrides = true;
                self.introducers_of(base_layout, key, found);
            }
        }
        if !overrides {
            found.insert(layout.name.clone());
        }
    }

    /// Whether class `class` is one of `classes` or has one as a non-virtual base
    /// (directly or not).
    fn contains_non_virtually(
        &self,
        class: &str,
        classes: &std::collections::BTreeSet<String>,
    ) -> bool {
        classes.contains(class)
            || self.layouts.get(class).is_some_and(|layout| {
                layout
                    .bases
                    .iter()
                    .any(|b| self.contains_non_virtually(&b.name, classes))
            })
    }

    /// The layout of a union (`data`: its definition data): every member at offset 0; as
    /// large and as aligned as its largest and most aligned member.
    fn union_layout(
        &mut self,
        ctx: &mut ModuleCtx,
        class: &'ast Node,
        name: &str,
        data: &crate::ast::DefinitionData,
    ) -> R<ClassLayout> {
        let (mut size, mut align) = (0u64, 1u64);
        let mut fields = Vec::new();
        let mut types = Vec::new();
        for DataMember {
            node: field,
            ty,
            cir,
            size: field_size,
            align: field_align,
        } in self.data_members(ctx, class)?
        {
            size = size.max(field_size);
            align = align.max(field_align);
            types.push(cir);
            fields.push(FieldLayout {
                id: field.id.clone(),
                name: field.name.clone().unwrap_or_default(),
                ty,
                offset: 0,
                index: fields.len() as u32,
            });
        }
        let size = align_up(size.max(1), align);
        let alias = self.record_alias(ctx, name);
        let record_name = ctx.sym(&self.output_name(name));
        ctx.declare_record(RecordDecl {
            alias,
            kind: RecordKind::Union,
            name: record_name,
            fields: Some(types),
            loc: Loc::NONE,
        });
        let cir = ctx.types.record(alias);
        Ok(ClassLayout {
            name: name.to_string(),
            cir,
            size,
            align,
            dsize: size,
            nv_size: size,
            nv_align: align,
            nv_items: vec![PlacedItem {
                offset: 0,
                ty: cir,
                size,
                align,
            }],
            pod: data.is_pod,
            empty: false,
            fields,
            bases: Vec::new(),
            declared_bases: Vec::new(),
            virtual_bases: Vec::new(),
            primary_base: None,
            dynamic: false,
            virtual_keys: std::collections::BTreeSet::new(),
            trivial_dtor: data.dtor.trivial,
            by_value: data.dtor.trivial && data.copy_ctor.trivial,
            empty_subobjects: Vec::new(),
            virtual_slots: None,
            leads_with_zero_sized_base: false,
            ends_with_zero_sized: false,
            vbptr_offset: None,
            vtordisp_bases: Vec::new(),
        })
    }

    /// The virtual bases that are the primary base of some class in the hierarchy of
    /// `bases` (they share that class's vptr, and are placed with it).
    fn primary_virtual_bases_in(
        &self,
        bases: &[(DeclaredBase, Rc<ClassLayout>)],
    ) -> std::collections::BTreeSet<String> {
        let mut found = std::collections::BTreeSet::new();
        let mut pending: Vec<&ClassLayout> = bases.iter().map(|(_, l)| l.as_ref()).collect();
        while let Some(layout) = pending.pop() {
            if let Some((primary, true)) = &layout.primary_base {
                found.insert(primary.clone());
            }
            pending.extend(
                layout
                    .declared_bases
                    .iter()
                    .filter_map(|b| self.layouts.get(&b.name))
                    .map(Rc::as_ref),
            );
        }
        found
    }

    /// The destructor of a class when it is not trivial (queued for generation).
    pub fn destructor(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        name: &str,
    ) -> R<Option<Callee>> {
        match self.nontrivial_destructor_decl(ctx, node, name)? {
            Some(dtor) => self.callee(ctx, dtor).map(Some),
            None => Ok(None),
        }
    }

    /// The declaration of the destructor of a class when it is not trivial.
    pub fn nontrivial_destructor_decl(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        name: &str,
    ) -> R<Option<&'ast Node>> {
        if self.layout(ctx, node, name)?.trivial_dtor {
            return Ok(None);
        }
        let class = self.class_node(node, name)?;
        match class.children().find(|c| c.kind == "CXXDestructorDecl") {
            Some(dtor) => Ok(Some(dtor)),
            None => unsupported(
                node,
                format!("destructor of '{name}' not declared by Clang"),
            ),
        }
    }

    /// A constructor of a class with the given function type text (`void (const A &)`).
    pub fn constructor(&self, node: &Node, name: &str, type_text: &str) -> R<&'ast Node> {
        let class = self.class_node(node, name)?;
        // A constructor template's specializations follow its pattern (the first
        // constructor under the `FunctionTemplateDecl`).
        let specializations = class
            .children()
            .filter(|c| c.kind == "FunctionTemplateDecl")
            .flat_map(|t| {
                t.children()
                    .filter(|c| c.kind == "CXXConstructorDecl")
                    .skip(1)
            });
        let found = class.children().chain(specializations).find(|c| {
            c.kind == "CXXConstructorDecl"
                && c.ty.as_ref().is_some_and(|t| t.qual_type == type_text)
        });
        match found {
            Some(ctor) => Ok(ctor),
            None => unsupported(
                node,
                format!("constructor '{type_text}' of '{name}' not found"),
            ),
        }
    }

    /// The constructor a `CXXConstructExpr` of class `name` calls (Clang's JSON names it
    /// by its type only).
    pub fn constructor_called(&self, construct: &Node, name: &str) -> R<&'ast Node> {
        let ctor_type = construct
            .ctor_type
            .as_ref()
            .map(|q| q.qual_type.as_str())
            .unwrap_or_default();
        self.constructor(construct, name, ctor_type)
    }

    /// The symbol, CIR signature and nothrow-ness of a function declaration, queued for
    /// generation when it is defined here or implicitly.
    pub fn callee(&mut self, ctx: &mut ModuleCtx, decl: &'ast Node) -> R<Callee> {
        let mangled = self.function_symbol(ctx, decl)?;
        let signature = self.signature(ctx, decl)?;
        if decl.main_offset.is_some() {
            self.callee_locs
                .entry(mangled.clone())
                .or_insert_with(|| super::loc_of(decl));
        }
        if let Some(definition) = self.index.definitions.get(decl.id.as_str()).copied() {
            self.enqueue(&mangled, Pending::Defined(definition));
        } else if (decl.is_implicit || decl.explicitly_defaulted.as_deref() == Some("default"))
            && decl.kind.starts_with("CXX")
        {
            self.enqueue(&mangled, Pending::Implicit(decl));
        }
        let symbol = ctx.sym(&mangled);
        Ok(Callee {
            symbol,
            sig: signature.cir,
            nothrow: signature.nothrow,
        })
    }

    /// The first word of an Itanium pointer to member function `&C::f`: the function's
    /// address, or for a virtual function 1 + the byte offset of its slot in the vtable
    /// (the address is odd for no function). The second word, the adjustment of `this`,
    /// is 0 for a member of the pointer's own class.
    pub fn member_function_word(&mut self, ctx: &mut ModuleCtx, method: &'ast Node) -> R<AttrData> {
        let void_ptr = ctx.types.common().void_ptr;
        if let Some(index) = self.virtual_slot(ctx, method, super::vtable::SlotKind::Method)? {
            return Ok(AttrData::IntPtr {
                value: 1 + 8 * index as i64,
                ty: void_ptr,
            });
        }
        let callee = self.callee(ctx, method)?;
        let name = ctx.name(callee.symbol).to_string();
        self.address_taken.push((name, callee.sig, callee.nothrow));
        Ok(AttrData::GlobalView {
            symbol: callee.symbol,
            indices: vec![],
            ty: Some(void_ptr),
        })
    }

    /// Records the typeinfo declaration `symbol` (named `name`) of type `t` without bases
    /// (an incomplete class, a pointer, a pointer to member) and returns its symbol.
    fn declare_typeinfo_without_bases(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        name: String,
        symbol: Symbol,
        t: &CType,
    ) -> R<Symbol> {
        let ty = self.cir_type(ctx, node, t.unqualified())?;
        self.typeinfos.insert(
            name,
            TypeInfoDecl {
                symbol,
                ty,
                bases: Vec::new(),
                loc: Loc::NONE,
            },
        );
        Ok(symbol)
    }

    /// The typeinfo symbol of a type thrown or caught (declaring class typeinfos).
    pub fn typeinfo(&mut self, ctx: &mut ModuleCtx, node: &Node, t: &CType) -> R<Symbol> {
        let mangled = self.mangle_type(node, t)?;
        let name = format!("_ZTI{mangled}");
        let symbol = ctx.sym(&name);
        if let CType::Named(class) = t.unqualified()
            && !self.typeinfos.contains_key(&name)
        {
            if self.class_node(node, class).is_err() {
                // An incomplete class (a pointer to it is thrown or caught): no bases.
                return self.declare_typeinfo_without_bases(ctx, node, name, symbol, t);
            }
            let layout = self.layout(ctx, node, class)?;
            let mut bases = Vec::new();
            let mut non_virtual = layout.bases.iter();
            for base in &layout.declared_bases {
                let base_symbol = self.typeinfo(ctx, node, &CType::Named(base.name.clone()))?;
                let mut vbptr_offset = None;
                let offset = if base.is_virtual && self.abi == EhAbi::Msvc {
                    // Microsoft: the base's entry in the class's vbtable.
                    let order = self.virtual_base_table_order(ctx, node, &layout.name)?;
                    let Some(index) = order.iter().position(|v| *v == base.name) else {
                        return error(node, format!("a virtual base of '{class}' not laid out"));
                    };
                    vbptr_offset = layout.vbptr_offset;
                    4 * (index as i64 + 1)
                } else if base.is_virtual {
                    self.virtual_base_offset_offset(ctx, node, &layout.name, &base.name)?
                } else {
                    match non_virtual.next() {
                        Some(b) => b.offset as i64,
                        None => return error(node, format!("a base of '{class}' not laid out")),
                    }
                };
                bases.push(ehir_core::TypeInfoBase {
                    symbol: base_symbol,
                    offset,
                    public: base.public,
                    is_virtual: base.is_virtual,
                    vbptr_offset,
                });
            }
            self.typeinfos.insert(
                name.clone(),
                TypeInfoDecl {
                    symbol,
                    ty: layout.cir,
                    bases,
                    loc: Loc::NONE,
                },
            );
        }
        // A function type (`__function_type_info`) and a pointer to member
        // (`__pointer_to_member_type_info`, naming its class): the program defines them.
        if matches!(
            t.unqualified(),
            CType::Function(_) | CType::MemberPointer(..)
        ) && !self.typeinfos.contains_key(&name)
        {
            if let CType::MemberPointer(member, class) = t.unqualified() {
                self.typeinfo(ctx, node, &CType::Named(class.clone()))?;
                // The member's type without its qualifiers (they are flags of the
                // pointer-to-member typeinfo): `int ()` for `int (C::*)() const`.
                let mut member = member.unqualified().clone();
                if let CType::Function(f) = &mut member {
                    f.qualifiers = (false, false);
                }
                self.typeinfo(ctx, node, &member)?;
            }
            return self.declare_typeinfo_without_bases(ctx, node, name, symbol, t);
        }
        // A pointer to a class, to another pointer or to a function: the C++ runtime has
        // typeinfo objects only for pointers to fundamental types.
        if let Some(pointee) = t.unqualified().pointee()
            && matches!(
                pointee.unqualified(),
                CType::Named(_) | CType::Pointer(_) | CType::Function(_) | CType::MemberPointer(..)
            )
            && !self.typeinfos.contains_key(&name)
        {
            self.typeinfo(ctx, node, pointee.unqualified())?;
            self.declare_typeinfo_without_bases(ctx, node, name, symbol, t)?;
        }
        Ok(symbol)
    }

    /// The Itanium mangling of a type (for typeinfo names).
    pub fn mangle_type(&self, node: &Node, t: &CType) -> R<String> {
        Ok(match t {
            CType::Builtin(b) => b.mangling(self.abi).to_string(),
            CType::Const(inner) => format!("K{}", self.mangle_type(node, inner)?),
            CType::Pointer(inner) => format!("P{}", self.mangle_type(node, inner)?),
            CType::Reference(inner) => format!("R{}", self.mangle_type(node, inner)?),
            CType::Named(name) if !self.index.classes.contains_key(name) => {
                match self.qualified(name, &self.index.classes) {
                    Some(qualified) => self.mangle_type(node, &CType::Named(qualified))?,
                    None => mangle_class_name(name)
                        .ok_or(())
                        .or_else(|_| unsupported(node, format!("typeinfo of '{name}'")))?,
                }
            }
            CType::Named(name) => mangle_class_name(name)
                .ok_or(())
                .or_else(|_| unsupported(node, format!("typeinfo of '{name}'")))?,
            CType::MemberPointer(member, class) => format!(
                "M{}{}",
                self.mangle_type(node, &CType::Named(class.clone()))?,
                self.mangle_type(node, member)?
            ),
            CType::Function(f) if !f.noexcept => {
                let mut out = String::new();
                if f.qualifiers.1 {
                    out.push('V');
                }
                if f.qualifiers.0 {
                    out.push('K');
                }
                out.push_str(&format!("F{}", self.mangle_type(node, &f.result)?));
                if f.params.is_empty() && !f.variadic {
                    out.push('v');
                }
                for param in &f.params {
                    out.push_str(&self.mangle_type(node, param)?);
                }
                if f.variadic {
                    out.push('z');
                }
                out.push('E');
                out
            }
            CType::Array(..) | CType::Function(_) => {
                return unsupported(node, format!("typeinfo of '{t}'"));
            }
        })
    }
}
/// A non-static data member of a class ([`State::data_members`]).
struct DataMember<'n> {
    node: &'n Node,
    ty: CType,
    cir: Type,
    size: u64,
    align: u64,
}

/// Declares the CIR record of a class: its placed items laid out naturally, with padding
/// for the gaps the class layout leaves. Returns the record field index of each item.
fn declare_record(
    ctx: &mut ModuleCtx,
    class: &Node,
    (alias, record_name): (Symbol, Symbol),
    items: &[PlacedItem],
    size: u64,
    align: u64,
) -> R<Vec<u32>> {
    let name = ctx.name(record_name).to_string();
    let mut record_fields = Vec::new();
    let mut index_of = Vec::new();
    let mut at = 0u64;
    for item in items {
        let natural = align_up(at, item.align);
        if natural > item.offset {
            return unsupported(
                class,
                format!(
                    "class '{name}': a subobject at offset {} overlaps",
                    item.offset
                ),
            );
        }
        if natural < item.offset {
            record_fields.push(padding_type(ctx, item.offset - at));
        }
        index_of.push(record_fields.len() as u32);
        record_fields.push(item.ty);
        at = item.offset + item.size;
    }
    if record_fields.is_empty() {
        at = 1;
    }
    if align_up(at, align) < size {
        record_fields.push(padding_type(ctx, size - at));
    }
    let kind = if class.tag_used.as_deref() == Some("class") {
        RecordKind::Class
    } else {
        RecordKind::Struct
    };
    ctx.declare_record(RecordDecl {
        alias,
        kind,
        name: record_name,
        fields: Some(record_fields),
        loc: Loc::NONE,
    });
    Ok(index_of)
}

/// The mangled name of a class: `A` → `1A`, `ns::A` → `N2ns1AE`, `std::A` → `St1A`.
pub fn mangle_class_name(name: &str) -> Option<String> {
    if name.contains('<') || name.contains('(') {
        return None;
    }
    let parts: Vec<&str> = name.split("::").collect();
    let source = |s: &str| format!("{}{s}", s.len());
    Some(match parts.as_slice() {
        [one] => source(one),
        ["std", one] => format!("St{}", source(one)),
        [first, rest @ ..] => {
            let mut out = String::from("N");
            if *first == "std" {
                out.push_str("St");
            } else {
                out.push_str(&source(first));
            }
            for part in rest {
                out.push_str(&source(part));
            }
            out.push('E');
            out
        }
        [] => return None,
    })
}

/// Calls a function (declared in the module on its first call).
pub fn call_function(
    b: &mut ehir_builder::FunctionBuilder<'_>,
    callee: Callee,
    args: &[ehir_builder::Value],
) -> Option<ehir_builder::Value> {
    let name = b.ctx.name(callee.symbol).to_string();
    let flags = ehir_core::CallFlags {
        nothrow: callee.nothrow,
        exception: false,
        noreturn: false,
    };
    b.call_named(&name, callee.sig, args, flags)
}

/// A function to call: symbol, CIR signature, whether it cannot throw.
#[derive(Clone, Copy, Debug)]
pub struct Callee {
    /// Its symbol.
    pub symbol: Symbol,
    /// Its CIR signature.
    pub sig: Type,
    /// Whether it cannot throw.
    pub nothrow: bool,
}

#[cfg(test)]
mod tests {
    use super::mangle_class_name;

    #[test]
    fn class_names_mangle_as_itanium_nested_names() {
        assert_eq!(mangle_class_name("A").as_deref(), Some("1A"));
        assert_eq!(mangle_class_name("ns::Err").as_deref(), Some("N2ns3ErrE"));
        assert_eq!(
            mangle_class_name("std::exception").as_deref(),
            Some("St9exception")
        );
        assert_eq!(mangle_class_name("Box<int>"), None);
    }
}
