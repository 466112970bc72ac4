//! Virtual functions and virtual bases on the Itanium C++ ABI: the vtable slots of a
//! dynamic class; its vtable group (the primary vtable, then one per non-primary dynamic
//! base subobject, then those of its virtual bases: virtual-base offsets, offset to top,
//! the typeinfo pointer, function pointers, through this-adjusting thunks where the final
//! overrider is another subobject) as one CIR global; construction vtables of a base
//! within a complete object and the VTT that hands them to base-object constructors and
//! destructors; storing the vptrs; virtual calls, `typeid`, `dynamic_cast`; deleting
//! destructors (D0). On the Microsoft ABI, vptr stores, `typeid`, `dynamic_cast` and
//! deleting destructors go to [`super::vtable_msvc`].
//!
//! The vtables hold no vcall offsets: a virtual base's function whose final overrider
//! is elsewhere is reached through a thunk with a fixed adjustment, one per vtable that
//! needs it (this module's thunks are internal, named as non-virtual thunks `_ZThn`).

use super::class::{Callee, call_function};
use super::function::FnGen;
use super::subobjects::Subobjects;
use super::{Pending, R, State, error, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_builder::{FunctionBuilder, ModuleBuilder, Value};
use ehir_core::abi::EhAbi;
use ehir_core::abi::type_names::{
    msvc_thunk_symbol, msvc_vtordisp_thunk_symbol, scalar_deleting_destructor_symbol,
};
use ehir_core::{AttrData, CastKind, CmpPredicate, Linkage, ModuleCtx};
use std::collections::BTreeSet;
use std::rc::Rc;

/// What `typeid` applies to.
pub enum TypeidOperand {
    /// A glvalue of a dynamic class (the second), at this address: its dynamic type.
    Dynamic(Value, String),
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

/// How a thunk moves `this` before calling the function a vtable slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThisAdjustment {
    /// Microsoft vtordisp thunks: `this` first moves back by the 32-bit displacement
    /// stored this many bytes from it (the vtordisp of a virtual base).
    pub vtordisp: Option<i64>,
    /// Then it moves this many bytes.
    pub offset: i64,
}

impl ThisAdjustment {
    /// A move by a fixed number of bytes.
    pub fn fixed(offset: i64) -> ThisAdjustment {
        ThisAdjustment {
            vtordisp: None,
            offset,
        }
    }

    /// `this` needs no move.
    pub fn is_none(&self) -> bool {
        self.vtordisp.is_none() && self.offset == 0
    }
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

/// The slot key of a method: its name and function type without the exception
/// specification (an overrider may spell it `throw()` where the base says `noexcept`).
pub fn slot_key(method: &Node) -> String {
    let text = method.ty.as_ref().map_or("", |t| t.qual_type.as_str());
    format!(
        "{}:{}",
        method.name.as_deref().unwrap_or_default(),
        without_exception_spec(text)
    )
}

/// A function type's text without its trailing exception specification
/// (` noexcept`, ` noexcept(...)`, ` throw(...)`).
fn without_exception_spec(text: &str) -> &str {
    let text = text.trim_end();
    if let Some(stripped) = text.strip_suffix(" noexcept") {
        return stripped;
    }
    // ` noexcept(...)` or ` throw(...)` whose parenthesis closes at the end.
    for marker in [" noexcept(", " throw("] {
        if let Some(at) = text.rfind(marker) {
            let list = &text[at + marker.len() - 1..];
            let mut depth = 0i32;
            let closes_at_end = list.char_indices().all(|(i, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth > 0 || i == list.len() - 1
            });
            if closes_at_end && depth == 0 {
                return &text[..at];
            }
        }
    }
    text
}

/// The slot key of destructors.
const DESTRUCTOR_KEY: &str = "~";

/// The function slots of a class's primary vtable: those of its primary base
/// (`inherited`), overridden by the class's methods of the same name and type, then its
/// new virtual methods in declaration order (an implicit virtual destructor last). A
/// method is virtual when declared so or when it overrides one of `virtual_keys` (the
/// virtual functions of all the bases), to which the class's own are added.
pub fn virtual_slots(
    class: &Node,
    inherited: Vec<VirtualSlot>,
    virtual_keys: &mut BTreeSet<String>,
) -> Vec<VirtualSlot> {
    let mut slots = inherited;
    let mut implicit_destructor = None;
    let new_slot = |kind, key: &str, member: &Node| VirtualSlot {
        kind,
        key: key.to_string(),
        id: member.id.clone(),
        pure: member.pure,
    };
    for member in class.children() {
        let key = match member.kind.as_str() {
            "CXXDestructorDecl" => DESTRUCTOR_KEY.to_string(),
            "CXXMethodDecl" if member.storage_class.as_deref() != Some("static") => {
                slot_key(member)
            }
            _ => continue,
        };
        let is_virtual = member.is_virtual || virtual_keys.contains(&key);
        if is_virtual {
            virtual_keys.insert(key.clone());
        }
        let found: Vec<usize> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.key == key)
            .map(|(i, _)| i)
            .collect();
        if !found.is_empty() {
            for index in found {
                slots[index].id = member.id.clone();
                slots[index].pure = member.pure;
            }
        } else if is_virtual {
            if key == DESTRUCTOR_KEY {
                if member.is_implicit {
                    implicit_destructor = Some(member);
                } else {
                    slots.push(new_slot(SlotKind::CompleteDestructor, &key, member));
                    slots.push(new_slot(SlotKind::DeletingDestructor, &key, member));
                }
            } else {
                slots.push(new_slot(SlotKind::Method, &key, member));
            }
        }
    }
    if let Some(member) = implicit_destructor {
        slots.push(new_slot(
            SlotKind::CompleteDestructor,
            DESTRUCTOR_KEY,
            member,
        ));
        slots.push(new_slot(
            SlotKind::DeletingDestructor,
            DESTRUCTOR_KEY,
            member,
        ));
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

/// The base-object variant's symbol (`C2`, `D2`) of a complete-object constructor's or
/// destructor's (`C1`, `D1`): the `C1`/`D1` that ends the nested name, found by walking
/// the name's components (source names by their length, template arguments to their
/// `E`).
pub fn base_variant_symbol(complete: &str) -> Option<String> {
    let bytes = complete.as_bytes();
    let mut at = complete.strip_prefix("_ZN")?.len();
    at = bytes.len() - at;
    // CV-qualifiers of the implicit object.
    while matches!(bytes.get(at), Some(b'K' | b'V' | b'r')) {
        at += 1;
    }
    let mut depth = 0usize;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_digit() {
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
            let length: usize = complete[start..at].parse().ok()?;
            at += length;
            continue;
        }
        if depth == 0 && (c == b'C' || c == b'D') && bytes.get(at + 1) == Some(&b'1') {
            let mut out = complete.to_string();
            out.replace_range(at + 1..at + 2, "2");
            return Some(out);
        }
        match c {
            b'I' | b'N' | b'L' | b'X' => depth += 1,
            b'E' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        at += 1;
    }
    None
}

/// The symbol of a thunk that adjusts `this` by `adjustment` bytes and calls `target`:
/// a non-virtual thunk's (`_ZThn8_N1D1fEv` for -8).
fn thunk_symbol(target: &str, adjustment: i64) -> Option<String> {
    let encoding = target.strip_prefix("_Z")?;
    Some(if adjustment < 0 {
        format!("_ZThn{}_{encoding}", -adjustment)
    } else {
        format!("_ZTh{adjustment}_{encoding}")
    })
}

/// One entry of a vtable.
#[derive(Clone, Debug, PartialEq)]
pub enum VTableEntry {
    /// An offset (to top, or of a virtual base).
    Offset(i64),
    /// The address of a function or typeinfo object.
    Symbol(String),
    /// A pure virtual function's slot.
    Pure,
}

/// A vtable group: the vtables of a class (or of a base within a complete object, for a
/// construction vtable group) in one global.
#[derive(Clone, Debug)]
pub struct VTableGroup {
    /// The global's symbol (`_ZTV1D`, `_ZTC1D0_1B`).
    pub symbol: String,
    /// Its entries.
    pub entries: Vec<VTableEntry>,
    /// The subobjects the group is for (of the class at its offset in the complete
    /// object).
    pub subobjects: Subobjects,
    /// The address point (entry index) of each subobject that has one in the group.
    pub address_points: Vec<(usize, usize)>,
}

impl VTableGroup {
    /// The address point of the subobject of class `class` at `offset`.
    pub fn address_point(&self, class: &str, offset: u64) -> Option<usize> {
        self.address_points
            .iter()
            .find(|(s, _)| {
                let subobject = &self.subobjects.all[*s];
                subobject.class == class && subobject.offset == offset
            })
            .map(|&(_, point)| point)
    }
}

/// A VTT: the vtable addresses a class's base-object constructors and destructors (and
/// those of its bases with virtual bases) store in the vptrs while the object is not yet
/// (or no longer) of the complete class.
#[derive(Clone, Debug, Default)]
pub struct Vtt {
    /// The global's symbol (`_ZTT1D`).
    pub symbol: String,
    /// Each entry: a vtable group's symbol and the entry index of an address point.
    pub entries: Vec<(String, usize)>,
    /// Where the sub-VTT of each base subobject with virtual bases starts: (class,
    /// offset in the complete object) → index.
    pub sub_vtts: Vec<((String, u64), usize)>,
    /// The index of the vtable address of each base subobject that has one (the class
    /// itself at 0): (class, offset) → index.
    pub secondary: Vec<((String, u64), usize)>,
}

impl Vtt {
    /// The index of the sub-VTT of the base subobject of class `class` at `offset`.
    pub fn sub_vtt(&self, class: &str, offset: u64) -> Option<usize> {
        self.sub_vtts
            .iter()
            .find(|((c, o), _)| c == class && *o == offset)
            .map(|&(_, index)| index)
    }

    /// The index of the vtable address of the subobject of class `class` at `offset`.
    pub fn secondary(&self, class: &str, offset: u64) -> Option<usize> {
        self.secondary
            .iter()
            .find(|((c, o), _)| c == class && *o == offset)
            .map(|&(_, index)| index)
    }
}

impl<'ast> State<'ast> {
    /// The complete-object vtable group of a dynamic class (defined, and the functions it
    /// points to queued, on first use).
    pub fn vtable(&mut self, ctx: &mut ModuleCtx, node: &Node, class: &str) -> R<String> {
        let name = self.layout(ctx, node, class)?.name.clone();
        Ok(self
            .vtable_group(ctx, node, &name, 0, &name)?
            .symbol
            .clone())
    }

    /// The vtable group of class `root` at `offset` in a complete object of class
    /// `complete`: the class's own when it is the complete object, else a construction
    /// vtable group (defined, and what it points to queued, on first use).
    pub fn vtable_group(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        root: &str,
        offset: u64,
        complete: &str,
    ) -> R<Rc<VTableGroup>> {
        let mangle = |class: &str| match super::class::mangle_class_name(class) {
            Some(m) => Ok(m),
            None => unsupported(node, format!("vtable of '{class}'")),
        };
        let root_mangled = mangle(root)?;
        let symbol = if root == complete {
            format!("_ZTV{root_mangled}")
        } else {
            format!("_ZTC{}{offset}_{root_mangled}", mangle(complete)?)
        };
        if let Some(group) = self.vtable_groups.get(&symbol) {
            return Ok(group.clone());
        }
        let walk = self.subobjects(ctx, node, root, offset, complete)?;
        let mut builder = GroupBuilder {
            walk: &walk,
            root_offset: offset,
            construction: root != complete,
            entries: Vec::new(),
            address_points: Vec::new(),
        };
        builder.lay_out_vtable(self, ctx, node, 0, false)?;
        // The virtual bases' vtables, in inheritance graph order, but for those that
        // share the vtable of a subobject whose primary base they are.
        let shared: Vec<usize> = builder.address_points.iter().map(|&(s, _)| s).collect();
        let mut visited = BTreeSet::new();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((current, next)) = stack.pop() {
            let Some(&base) = walk.all[current].bases.get(next) else {
                continue;
            };
            stack.push((current, next + 1));
            let subobject = &walk.all[base];
            let dynamic = self.layout(ctx, node, &subobject.class)?.dynamic;
            if subobject.is_virtual
                && dynamic
                && !shared.contains(&base)
                && !builder.address_points.iter().any(|&(s, _)| s == base)
                && visited.insert(base)
            {
                builder.lay_out_vtable(self, ctx, node, base, true)?;
            }
            stack.push((base, 0));
        }
        let entries = std::mem::take(&mut builder.entries);
        let address_points = std::mem::take(&mut builder.address_points);
        self.define_vtable_global(ctx, &symbol, &entries);
        let group = Rc::new(VTableGroup {
            symbol: symbol.clone(),
            entries,
            subobjects: walk,
            address_points,
        });
        self.vtable_groups.insert(symbol, group.clone());
        Ok(group)
    }

    /// Adds the global of a vtable group.
    fn define_vtable_global(&mut self, ctx: &mut ModuleCtx, symbol: &str, entries: &[VTableEntry]) {
        let void_ptr = ctx.types.common().void_ptr;
        let attrs: Vec<AttrData> = entries
            .iter()
            .map(|entry| match entry {
                VTableEntry::Offset(0) | VTableEntry::Pure => AttrData::Null(void_ptr),
                VTableEntry::Offset(value) => AttrData::IntPtr {
                    value: *value,
                    ty: void_ptr,
                },
                VTableEntry::Symbol(name) => AttrData::GlobalView {
                    symbol: ctx.sym(name),
                    indices: vec![],
                    ty: Some(void_ptr),
                },
            })
            .collect();
        let elements = attrs.into_iter().map(|e| ctx.attrs.intern(e)).collect();
        let name = ctx.sym(symbol);
        self.define_pointer_table(ctx, name, elements);
    }

    /// The symbol a vtable slot points to for the final overrider `decl` of a slot of
    /// kind `kind`, through a thunk making `adjustment` to `this` when it needs one (the
    /// function, the deleting destructor and the thunk queued).
    pub(super) fn slot_symbol(
        &mut self,
        ctx: &mut ModuleCtx,
        decl: &'ast Node,
        kind: SlotKind,
        adjustment: ThisAdjustment,
    ) -> R<String> {
        let msvc = self.abi == EhAbi::Msvc;
        let callee = self.callee(ctx, decl)?;
        let mut name = ctx.name(callee.symbol).to_string();
        if kind == SlotKind::DeletingDestructor {
            let deleting = if msvc {
                scalar_deleting_destructor_symbol(&name)
            } else {
                deleting_symbol(&name)
            };
            let Some(deleting) = deleting else {
                return unsupported(decl, format!("deleting destructor of '{name}'"));
            };
            self.enqueue(&deleting, Pending::DeletingDestructor(decl));
            name = deleting;
        } else if !self.index.definitions.contains_key(decl.id.as_str()) && !decl.is_implicit {
            // Defined elsewhere (in the C++ runtime): declared in the module.
            self.address_taken
                .push((name.clone(), callee.sig, callee.nothrow));
        }
        if adjustment.is_none() {
            return Ok(name);
        }
        let Some(thunk) = thunk_name(msvc, &name, adjustment) else {
            return unsupported(decl, format!("a thunk to '{name}'"));
        };
        self.enqueue(
            &thunk,
            Pending::Thunk {
                decl,
                kind,
                adjustment,
            },
        );
        Ok(thunk)
    }

    /// The VTT of a class with virtual bases (defined on first use), in the Itanium
    /// order: the class's primary vtable; the sub-VTTs of its non-virtual bases with
    /// virtual bases; the secondary vtable addresses of its bases that have virtual bases
    /// or are reached through one (but non-virtual primary bases); then the sub-VTTs of
    /// its virtual bases with virtual bases.
    pub fn vtt(&mut self, ctx: &mut ModuleCtx, node: &Node, class: &str) -> R<Rc<Vtt>> {
        let class = self.layout(ctx, node, class)?.name.clone();
        if let Some(vtt) = self.vtts.get(&class) {
            return Ok(vtt.clone());
        }
        let Some(mangled) = super::class::mangle_class_name(&class) else {
            return unsupported(node, format!("VTT of '{class}'"));
        };
        let mut vtt = Vtt {
            symbol: format!("_ZTT{mangled}"),
            ..Vtt::default()
        };
        self.lay_out_vtt(ctx, node, &class, &class, 0, &mut vtt)?;
        let void_ptr = ctx.types.common().void_ptr;
        let mut elements = Vec::new();
        for (group, index) in &vtt.entries {
            let group_symbol = ctx.sym(group);
            elements.push(ctx.attrs.intern(AttrData::GlobalView {
                symbol: group_symbol,
                indices: vec![*index as i64],
                ty: Some(void_ptr),
            }));
        }
        let name = ctx.sym(&vtt.symbol);
        self.define_pointer_table(ctx, name, elements);
        let vtt = Rc::new(vtt);
        self.vtts.insert(class, vtt.clone());
        Ok(vtt)
    }

    /// Lays out the (sub-)VTT of `base` at `offset` in a complete object of `complete`.
    fn lay_out_vtt(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        complete: &str,
        base: &str,
        offset: u64,
        vtt: &mut Vtt,
    ) -> R<()> {
        let layout = self.layout(ctx, node, base)?;
        if layout.virtual_bases.is_empty() {
            return Ok(());
        }
        let primary_vtt = base == complete;
        if !primary_vtt {
            vtt.sub_vtts
                .push(((base.to_string(), offset), vtt.entries.len()));
        }
        let group = self.vtable_group(ctx, node, base, offset, complete)?;
        let Some(point) = group.address_point(base, offset) else {
            return error(node, format!("no vtable address point of '{base}'"));
        };
        if primary_vtt {
            vtt.secondary
                .push(((base.to_string(), offset), vtt.entries.len()));
        }
        vtt.entries.push((group.symbol.clone(), point));
        // The sub-VTTs of the non-virtual bases with virtual bases.
        for b in &layout.bases {
            let has_virtual_bases = !self.layout(ctx, node, &b.name)?.virtual_bases.is_empty();
            if has_virtual_bases {
                self.lay_out_vtt(ctx, node, complete, &b.name, offset + b.offset, vtt)?;
            }
        }
        // The secondary vtable addresses.
        let complete_layout = self.layout(ctx, node, complete)?;
        let mut visited = BTreeSet::new();
        let mut stack = vec![(layout.name.clone(), offset, false, 0usize)];
        while let Some((class, at, morally_virtual, next)) = stack.pop() {
            let class_layout = self.layout(ctx, node, &class)?;
            let Some(declared) = class_layout.declared_bases.get(next).cloned() else {
                continue;
            };
            stack.push((class.clone(), at, morally_virtual, next + 1));
            let base_layout = self.layout(ctx, node, &declared.name)?;
            if !base_layout.dynamic {
                continue;
            }
            let (base_offset, base_morally_virtual, non_virtual_primary) = if declared.is_virtual {
                if !visited.insert(declared.name.clone()) {
                    continue;
                }
                let Some(base_offset) = complete_layout.virtual_base_offset(&declared.name) else {
                    return error(
                        node,
                        format!("virtual base '{}' not laid out", declared.name),
                    );
                };
                (base_offset, true, false)
            } else {
                let position = class_layout
                    .declared_bases
                    .iter()
                    .take(next)
                    .filter(|b| !b.is_virtual)
                    .count();
                let Some(b) = class_layout.bases.get(position) else {
                    return error(node, format!("a base of '{class}' not laid out"));
                };
                let primary =
                    class_layout.primary_base.as_ref() == Some(&(declared.name.clone(), false));
                (at + b.offset, morally_virtual, primary)
            };
            if !non_virtual_primary
                && (!base_layout.virtual_bases.is_empty() || base_morally_virtual)
            {
                let Some(point) = group.address_point(&base_layout.name, base_offset) else {
                    return error(
                        node,
                        format!("no vtable address point of '{}'", base_layout.name),
                    );
                };
                if primary_vtt {
                    vtt.secondary
                        .push(((base_layout.name.clone(), base_offset), vtt.entries.len()));
                }
                vtt.entries.push((group.symbol.clone(), point));
            }
            if !base_layout.virtual_bases.is_empty() || base_morally_virtual {
                stack.push((
                    base_layout.name.clone(),
                    base_offset,
                    base_morally_virtual,
                    0,
                ));
            }
        }
        // The sub-VTTs of the virtual bases (only in the complete class's VTT).
        if primary_vtt {
            let mut visited = BTreeSet::new();
            let mut stack = vec![(layout.name.clone(), 0usize)];
            while let Some((class, next)) = stack.pop() {
                let class_layout = self.layout(ctx, node, &class)?;
                let Some(declared) = class_layout.declared_bases.get(next).cloned() else {
                    continue;
                };
                stack.push((class, next + 1));
                if declared.is_virtual && visited.insert(declared.name.clone()) {
                    let Some(base_offset) = complete_layout.virtual_base_offset(&declared.name)
                    else {
                        return error(
                            node,
                            format!("virtual base '{}' not laid out", declared.name),
                        );
                    };
                    self.lay_out_vtt(ctx, node, complete, &declared.name, base_offset, vtt)?;
                }
                if !self
                    .layout(ctx, node, &declared.name)?
                    .virtual_bases
                    .is_empty()
                {
                    stack.push((declared.name.clone(), 0));
                }
            }
        }
        Ok(())
    }

    /// The index of a method's slot in its class's vtable, when it is virtual.
    pub fn virtual_slot(
        &mut self,
        ctx: &mut ModuleCtx,
        method: &Node,
        kind: SlotKind,
    ) -> R<Option<usize>> {
        let Some(class) = self.class_of(method) else {
            return Ok(None);
        };
        if self.abi == EhAbi::Msvc {
            // In the vftable its `this` points to (`msvc_this_offset`).
            return Ok(self
                .msvc_slot_location(ctx, method, &class, kind, Some(&method.id))?
                .map(|location| location.index));
        }
        let layout = self.layout(ctx, method, &class)?;
        Ok(layout.virtual_slots.as_ref().and_then(|slots| {
            slots
                .iter()
                .position(|s| s.kind == kind && s.id == method.id)
        }))
    }

    /// The index of the first vtable slot of kind `kind` of class `class` (`None`: the
    /// class is not dynamic or has no such slot).
    pub fn slot_of_kind(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
        kind: SlotKind,
    ) -> R<Option<usize>> {
        if self.abi == EhAbi::Msvc {
            // In the first vftable that has one.
            return Ok(self
                .msvc_slot_location(ctx, node, class, kind, None)?
                .map(|location| location.index));
        }
        let layout = self.layout(ctx, node, class)?;
        Ok(layout
            .virtual_slots
            .as_ref()
            .and_then(|slots| slots.iter().position(|s| s.kind == kind)))
    }

    /// The usual `operator delete` a class declares, or the nearest of its bases
    /// (`operator delete(void *)`, else `operator delete(void *, size_t)`).
    pub fn class_operator_delete(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<Option<&'ast Node>> {
        let mut pending = vec![self.layout(ctx, node, class)?.name.clone()];
        while !pending.is_empty() {
            let mut next = Vec::new();
            for name in pending {
                let class_node = self.class_node(node, &name)?;
                let deletes: Vec<&'ast Node> = class_node
                    .children()
                    .filter(|c| {
                        c.kind == "CXXMethodDecl" && c.name.as_deref() == Some("operator delete")
                    })
                    .collect();
                let usual = |params: usize| {
                    deletes.iter().copied().find(|d| {
                        d.children().filter(|p| p.kind == "ParmVarDecl").count() == params
                    })
                };
                if let Some(found) = usual(1).or_else(|| usual(2)) {
                    return Ok(Some(found));
                }
                let layout = self.layout(ctx, node, &name)?;
                next.extend(layout.declared_bases.iter().map(|b| b.name.clone()));
            }
            pending = next;
        }
        Ok(None)
    }

    /// Whether `base` has virtual bases (its constructors and destructors then come in a
    /// complete-object and a base-object variant, the latter taking a VTT).
    pub fn has_virtual_bases(&mut self, ctx: &mut ModuleCtx, node: &Node, class: &str) -> R<bool> {
        Ok(!self.layout(ctx, node, class)?.virtual_bases.is_empty())
    }

    /// The base-object variant (C2/D2) of a constructor or destructor of a class with
    /// virtual bases: its symbol and signature (`this`, the VTT, then the parameters),
    /// queued for generation.
    pub fn base_variant_callee(&mut self, ctx: &mut ModuleCtx, decl: &'ast Node) -> R<Callee> {
        let complete = self.callee(ctx, decl)?;
        let complete_name = ctx.name(complete.symbol).to_string();
        let name = self.base_variant_name(ctx, decl, &complete_name)?;
        let sig = self.base_variant_signature(ctx, complete.sig);
        let implicit = !self.index.definitions.contains_key(decl.id.as_str());
        self.enqueue(&name, Pending::BaseVariant { decl, implicit });
        Ok(Callee {
            symbol: ctx.sym(&name),
            sig,
            nothrow: complete.nothrow,
        })
    }

    /// The symbol of the base-object variant of constructor or destructor `decl`, whose
    /// complete-object variant is `complete_name`: Itanium C2/D2; on Microsoft, the
    /// destructor `??1` of a class with virtual bases (whose complete-object destruction
    /// is the vbase destructor `??_D`).
    pub fn base_variant_name(
        &mut self,
        ctx: &mut ModuleCtx,
        decl: &Node,
        complete_name: &str,
    ) -> R<String> {
        let name = if self.abi == EhAbi::Msvc && decl.kind == "CXXDestructorDecl" {
            let Some(class) = self.class_of(decl) else {
                return error(decl, "a destructor outside a class");
            };
            let is_virtual = self
                .slot_of_kind(ctx, decl, &class, SlotKind::DeletingDestructor)?
                .is_some();
            decl.mangled_name.as_deref().and_then(|mangled| {
                ehir_core::abi::type_names::msvc_destructor_symbol(mangled, is_virtual, false)
            })
        } else if self.abi == EhAbi::Msvc {
            None
        } else {
            base_variant_symbol(complete_name)
        };
        match name {
            Some(name) => Ok(name),
            None => unsupported(
                decl,
                format!("the base-object variant of '{complete_name}'"),
            ),
        }
    }

    /// A constructor's or destructor's signature with the VTT after `this` (on
    /// Microsoft, unchanged: a destructor's base-object variant takes no VTT).
    pub fn base_variant_signature(
        &mut self,
        ctx: &mut ModuleCtx,
        complete: ehir_core::Type,
    ) -> ehir_core::Type {
        if self.abi == EhAbi::Msvc {
            return complete;
        }
        let Some((params, result, variadic)) = ctx
            .types
            .func_info(complete)
            .map(|(p, r, v)| (p.to_vec(), r, v))
        else {
            return complete;
        };
        let mut abi = ctx.types.func_abi(complete).to_vec();
        let void_ptr = ctx.types.common().void_ptr;
        let vtt_ty = ctx.types.ptr(void_ptr);
        let mut with_vtt = params;
        // `this` is the first parameter (constructors and destructors return nothing).
        with_vtt.insert(1.min(with_vtt.len()), vtt_ty);
        if !abi.is_empty() {
            abi.insert(1.min(abi.len()), ehir_core::ParamAbi::Default);
        }
        ctx.types.func_with_abi(with_vtt, abi, result, variadic)
    }
}

/// Lays out the entries of one vtable group.
struct GroupBuilder<'w> {
    walk: &'w Subobjects,
    root_offset: u64,
    /// A construction vtable group: bases without virtual bases that are not reached
    /// through one have no vtable here (their vtables in the class's own group serve).
    construction: bool,
    entries: Vec<VTableEntry>,
    address_points: Vec<(usize, usize)>,
}

impl GroupBuilder<'_> {
    /// The vtable of subobject `index` (shared with its primary bases), then those of
    /// its non-virtual non-primary dynamic bases.
    fn lay_out_vtable<'ast>(
        &mut self,
        state: &mut State<'ast>,
        ctx: &mut ModuleCtx,
        node: &Node,
        index: usize,
        morally_virtual: bool,
    ) -> R<()> {
        let subobject = self.walk.all[index].clone();
        let layout = state.layout(ctx, node, &subobject.class)?;
        // The offsets of the virtual bases, the first nearest the address point.
        let virtual_bases = state.virtual_base_table_order(ctx, node, &subobject.class)?;
        for name in virtual_bases.iter().rev() {
            let Some(base) = self.walk.virtual_base(name) else {
                return error(node, format!("virtual base '{name}' not laid out"));
            };
            let offset = self.walk.all[base].offset as i64 - subobject.offset as i64;
            self.entries.push(VTableEntry::Offset(offset));
        }
        let to_top = self.root_offset as i64 - subobject.offset as i64;
        self.entries.push(VTableEntry::Offset(to_top));
        let root_class = self.walk.all[0].class.clone();
        let typeinfo = state.typeinfo(ctx, node, &CType::Named(root_class))?;
        self.entries
            .push(VTableEntry::Symbol(ctx.name(typeinfo).to_string()));
        let point = self.entries.len();
        for shared in state.primary_chain(self.walk, index) {
            self.address_points.push((shared, point));
        }
        for slot in layout.virtual_slots.clone().unwrap_or_default() {
            let (overrider, decl) =
                state.final_overrider(node, self.walk, index, &slot.key, slot.kind)?;
            if decl.pure
                && !matches!(
                    slot.kind,
                    SlotKind::CompleteDestructor | SlotKind::DeletingDestructor
                )
            {
                self.entries.push(VTableEntry::Pure);
                continue;
            }
            let adjustment = self.walk.all[overrider].offset as i64 - subobject.offset as i64;
            let symbol =
                state.slot_symbol(ctx, decl, slot.kind, ThisAdjustment::fixed(adjustment))?;
            self.entries.push(VTableEntry::Symbol(symbol));
        }
        self.lay_out_secondary(state, ctx, node, index, morally_virtual)
    }

    /// The vtables of the non-virtual bases of subobject `index`.
    fn lay_out_secondary<'ast>(
        &mut self,
        state: &mut State<'ast>,
        ctx: &mut ModuleCtx,
        node: &Node,
        index: usize,
        morally_virtual: bool,
    ) -> R<()> {
        for base in self.walk.all[index].bases.clone() {
            let subobject = self.walk.all[base].clone();
            if subobject.is_virtual {
                continue;
            }
            let layout = state.layout(ctx, node, &subobject.class)?;
            if !layout.dynamic {
                continue;
            }
            if self.construction && !morally_virtual && layout.virtual_bases.is_empty() {
                continue;
            }
            if subobject.non_virtual_primary {
                self.lay_out_secondary(state, ctx, node, base, morally_virtual)?;
                continue;
            }
            self.lay_out_vtable(state, ctx, node, base, morally_virtual)?;
        }
        Ok(())
    }
}

/// Adds the RTTI globals (vtables, VTTs, typeinfo declarations) the module refers to.
pub fn define_vtables(state: &mut State<'_>, mb: &mut ModuleBuilder) {
    for global in std::mem::take(&mut state.rtti_globals) {
        mb.module_mut().add_global(global);
    }
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Stores the vptrs of the object of class `class` at `object` (a constructor's or
    /// destructor's `this`): its own and those of its dynamic base subobjects that do
    /// not share it. The complete-object variant stores the addresses in the class's
    /// vtable group; the base-object variant of a class with virtual bases takes those of
    /// the subobjects with virtual bases or reached through one from its VTT, and finds
    /// the subobjects inside virtual bases through the vtable it just stored.
    pub fn store_vptr(&mut self, node: &Node, class: &str, object: Value) -> R<()> {
        if self.st.abi == EhAbi::Msvc {
            return self.store_vfptr(node, class, object);
        }
        let layout = self.st.layout(self.b.ctx, node, class)?;
        if !layout.dynamic {
            return Ok(());
        }
        let class = layout.name.clone();
        let group = self.st.vtable_group(self.b.ctx, node, &class, 0, &class)?;
        let vtt = match self.vtt {
            Some(vtt) if !layout.virtual_bases.is_empty() => {
                Some((vtt, self.st.vtt(self.b.ctx, node, &class)?))
            }
            _ => None,
        };
        let walk = group.subobjects.clone();
        let mut stored = Vec::new();
        for (index, subobject) in walk.all.iter().enumerate() {
            let sub_layout = self.st.layout(self.b.ctx, node, &subobject.class)?;
            if !sub_layout.dynamic || subobject.non_virtual_primary {
                continue;
            }
            if !stored.iter().all(|&(c, o): &(usize, u64)| {
                walk.all[c].class != subobject.class || o != subobject.offset
            }) {
                continue;
            }
            stored.push((index, subobject.offset));
            let from_vtt = match &vtt {
                Some((value, table))
                    if !sub_layout.virtual_bases.is_empty()
                        || subobject.nearest_virtual_base.is_some() =>
                {
                    let Some(at) = table.secondary(&subobject.class, subobject.offset) else {
                        return error(
                            node,
                            format!("no VTT entry for '{}' in '{class}'", subobject.class),
                        );
                    };
                    Some(self.vtt_entry(*value, at))
                }
                _ => None,
            };
            let vptr = match from_vtt {
                Some(vptr) => vptr,
                None => {
                    let Some(point) = group.address_point(&subobject.class, subobject.offset)
                    else {
                        return error(
                            node,
                            format!("no vtable address point of '{}'", subobject.class),
                        );
                    };
                    self.vtable_address(&group, point)
                }
            };
            // Where the subobject is: inside a virtual base, in the base-object variant,
            // through the vtable just stored in the class's own vptr.
            let address = match (&vtt, &subobject.nearest_virtual_base) {
                (Some(_), Some(virtual_base)) if index != 0 => {
                    let base = self.virtual_base_address(node, object, &class, virtual_base)?;
                    self.byte_offset(base, subobject.offset_from_nearest_virtual_base as i64)
                }
                _ => self.byte_offset(object, subobject.offset as i64),
            };
            let void_ptr = self.b.ctx.types.common().void_ptr;
            let slot_ptr = self.b.ctx.types.ptr(void_ptr);
            let vptr_slot_ty = self.b.ctx.types.ptr(slot_ptr);
            let vptr_slot = self.b.cast(CastKind::Bitcast, address, vptr_slot_ty);
            self.b.store(vptr, vptr_slot, 8);
        }
        Ok(())
    }

    /// The address of entry `index` of a vtable group (`!cir.ptr<!cir.ptr<!void>>`).
    pub fn vtable_address(&mut self, group: &VTableGroup, index: usize) -> Value {
        let symbol = self.b.ctx.sym(&group.symbol);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let array = self.b.ctx.types.array(void_ptr, group.entries.len() as u64);
        let table = self.b.get_global(symbol, array);
        let slot_ptr = self.b.ctx.types.ptr(void_ptr);
        let first = self.b.cast(CastKind::ArrayToPtrDecay, table, slot_ptr);
        let s64 = self.b.ctx.types.common().s64;
        let index = self.b.const_int(s64, index as i128);
        self.b.ptr_stride(first, index)
    }

    /// Entry `index` of a VTT (`vtt` points at its first entry, or at a sub-VTT).
    fn vtt_entry(&mut self, vtt: Value, index: usize) -> Value {
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let slot_ptr = self.b.ctx.types.ptr(void_ptr);
        let entry_ptr = self.b.ctx.types.ptr(slot_ptr);
        let entries = self.b.cast(CastKind::Bitcast, vtt, entry_ptr);
        let s64 = self.b.ctx.types.common().s64;
        let index = self.b.const_int(s64, index as i128);
        let entry = self.b.ptr_stride(entries, index);
        self.b.load(entry, 8)
    }

    /// Whether the virtual function `method` is the final overrider of its slot in an
    /// object of class `class` (one that is not can only have been named qualified:
    /// `B::f()` in `D::f`).
    pub fn is_final_overrider(&mut self, node: &Node, class: &str, method: &Node) -> R<bool> {
        let key = slot_key(method);
        let holder = if self.st.abi == EhAbi::Msvc {
            let tables = self.st.msvc_vftables(self.b.ctx, node, class)?;
            tables
                .into_iter()
                .flat_map(|table| table.slots)
                .find(|slot| slot.slot.kind == SlotKind::Method && slot.slot.key == key)
                .map(|slot| slot.slot.id)
        } else {
            let layout = self.st.layout(self.b.ctx, node, class)?;
            layout.virtual_slots.as_ref().and_then(|slots| {
                slots
                    .iter()
                    .find(|slot| slot.kind == SlotKind::Method && slot.key == key)
                    .map(|slot| slot.id.clone())
            })
        };
        Ok(holder.is_none_or(|id| id == method.id))
    }

    /// `pointer` moved by `offset` bytes, of the same type.
    pub fn byte_offset(&mut self, pointer: Value, offset: i64) -> Value {
        byte_offset(&mut self.b, pointer, offset)
    }

    /// The address of virtual base `virtual_base` of the object of class `class` at
    /// `object` (not null) ([`FnGen::virtual_base_offset`]).
    pub fn virtual_base_address(
        &mut self,
        node: &Node,
        object: Value,
        class: &str,
        virtual_base: &str,
    ) -> R<Value> {
        let offset = self.virtual_base_offset(node, object, class, virtual_base)?;
        self.class_pointer_at(node, object, offset, virtual_base)
    }

    /// How far (a 64-bit integer value) virtual base `virtual_base` of the object of
    /// class `class` at `object` (not null) is from it, read from the object's table: on
    /// Itanium the 64-bit entry before the address point of the vtable its vptr points
    /// to; on Microsoft the 32-bit entry of the vbtable its vbtable pointer points to
    /// (from that pointer), in [`State::virtual_base_table_order`].
    pub fn virtual_base_offset(
        &mut self,
        node: &Node,
        object: Value,
        class: &str,
        virtual_base: &str,
    ) -> R<Value> {
        let common = *self.b.ctx.types.common();
        // Where the table pointer is, the entries' type and the entry.
        let (pointer_offset, entry_ty, index) = if self.st.abi == EhAbi::Msvc {
            let layout = self.st.layout(self.b.ctx, node, class)?;
            let Some(vbptr_offset) = layout.vbptr_offset else {
                return error(node, format!("'{class}' has no vbtable pointer"));
            };
            let base_name = self.st.layout(self.b.ctx, node, virtual_base)?.name.clone();
            let order = self.st.virtual_base_table_order(self.b.ctx, node, class)?;
            let Some(position) = order.iter().position(|v| *v == base_name) else {
                return error(
                    node,
                    format!("'{virtual_base}' is no virtual base of '{class}'"),
                );
            };
            // Entry 0 leads back to the subobject the pointer is in.
            (vbptr_offset as i64, common.s32, position as i128 + 1)
        } else {
            let at = self
                .st
                .virtual_base_offset_offset(self.b.ctx, node, class, virtual_base)?;
            (0, common.s64, i128::from(at / 8))
        };
        let table_at = self.byte_offset(object, pointer_offset);
        let entry_ptr = self.b.ctx.types.ptr(entry_ty);
        let pointer_slot_ty = self.b.ctx.types.ptr(entry_ptr);
        let pointer_slot = self.b.cast(CastKind::Bitcast, table_at, pointer_slot_ty);
        let table = self.b.load(pointer_slot, 8);
        let index = self.b.const_int(common.s64, index);
        let entry = self.b.ptr_stride(table, index);
        let entry_size = if entry_ty == common.s64 { 8 } else { 4 };
        let mut offset = self.b.load(entry, entry_size);
        if entry_ty != common.s64 {
            offset = self.b.cast(CastKind::Integral, offset, common.s64);
        }
        if pointer_offset != 0 {
            let pointer_offset = self.b.const_int(common.s64, i128::from(pointer_offset));
            offset = self
                .b
                .binop(ehir_core::BinaryOp::Add, pointer_offset, offset);
        }
        Ok(offset)
    }

    /// A pointer to class `class` at `offset` (a runtime value) bytes from `pointer`.
    pub fn class_pointer_at(
        &mut self,
        node: &Node,
        pointer: Value,
        offset: Value,
        class: &str,
    ) -> R<Value> {
        let u8_ty = self.b.ctx.types.common().u8;
        let byte_ptr = self.b.ctx.types.ptr(u8_ty);
        let bytes = self.b.cast(CastKind::Bitcast, pointer, byte_ptr);
        let moved = self.b.ptr_stride(bytes, offset);
        let class_cir = self.st.layout(self.b.ctx, node, class)?.cir;
        let class_ptr = self.b.ctx.types.ptr(class_cir);
        Ok(self.b.cast(CastKind::Bitcast, moved, class_ptr))
    }

    /// The VTT argument of the base-object constructor or destructor of the base
    /// subobject of class `base` at `offset` in this function's class (a virtual base
    /// when constructed or destroyed by the complete-object variant): the sub-VTT in the
    /// class's VTT, or in the VTT this function received.
    pub fn sub_vtt(&mut self, node: &Node, base: &str, offset: u64) -> R<Value> {
        if self.st.abi == EhAbi::Msvc {
            // Microsoft: the "most derived" flag of a base subobject's constructor.
            return Ok(self.most_derived_flag(false));
        }
        let Some(class) = self.this_class.clone() else {
            return error(node, "a VTT outside a constructor or destructor");
        };
        let vtt = self.st.vtt(self.b.ctx, node, &class)?;
        let base_name = self.st.layout(self.b.ctx, node, base)?.name.clone();
        let Some(index) = vtt.sub_vtt(&base_name, offset) else {
            return error(node, format!("no sub-VTT of '{base}' in '{class}'"));
        };
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let vtt_ty = self.b.ctx.types.ptr(void_ptr);
        let start = match self.vtt {
            Some(received) => received,
            None => {
                let symbol = self.b.ctx.sym(&vtt.symbol);
                let array = self.b.ctx.types.array(void_ptr, vtt.entries.len() as u64);
                let table = self.b.get_global(symbol, array);
                self.b.cast(CastKind::ArrayToPtrDecay, table, vtt_ty)
            }
        };
        let entries = self.b.cast(CastKind::Bitcast, start, vtt_ty);
        let s64 = self.b.ctx.types.common().s64;
        let index = self.b.const_int(s64, index as i128);
        Ok(self.b.ptr_stride(entries, index))
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
                    CType::Named(class) => {
                        let layout = self.st.layout(self.b.ctx, e, class)?;
                        // Microsoft: a vftable pointer, maybe only in a virtual base.
                        let polymorphic = if self.st.abi == EhAbi::Msvc {
                            layout.dynamic
                        } else {
                            layout.virtual_slots.is_some()
                        };
                        polymorphic.then(|| layout.name.clone())
                    }
                    _ => None,
                };
                if let Some(class) = dynamic
                    && super::expr::is_glvalue(operand)
                {
                    let object = self.lvalue(operand)?;
                    return Ok((TypeidOperand::Dynamic(object, class), type_info));
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
            TypeidOperand::Dynamic(object, _) => {
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
        if !self.st.typeinfos.contains_key(&name) {
            // A fundamental type's typeinfo object, defined in the C++ runtime.
            self.st.declare_rtti_global(symbol, type_info);
        }
        Ok(self.b.get_global(symbol, type_info))
    }

    /// The address (`!cir.ptr<!void>`) of a dynamic class's typeinfo object, read from
    /// its vtable (a class's typeinfo object is no global of the module).
    fn dynamic_class_typeinfo(&mut self, e: &Node, class: &str) -> R<Value> {
        let layout = self.st.layout(self.b.ctx, e, class)?;
        if !layout.dynamic {
            return unsupported(e, format!("RTTI of the non-dynamic class '{class}'"));
        }
        let name = layout.name.clone();
        let group = self.st.vtable_group(self.b.ctx, e, &name, 0, &name)?;
        let Some(point) = group.address_point(&name, 0) else {
            return error(e, format!("no vtable address point of '{class}'"));
        };
        // The typeinfo pointer sits just before the address point.
        let entry = self.vtable_address(&group, point - 1);
        Ok(self.b.load(entry, 8))
    }

    /// `dynamic_cast<void *>(p)` on Itanium: the most derived object, `p` moved by the
    /// offset to top its vtable holds (two words before the address point); null stays
    /// null.
    fn most_derived_object(&mut self, object: Value) -> Value {
        let common = *self.b.ctx.types.common();
        let slot = self.b.alloca(common.void_ptr, "dyncast.void", true, 8);
        let null = self.b.const_null(common.void_ptr);
        self.b.store(null, slot, 8);
        let not_null = self.b.cmp(CmpPredicate::Ne, object, null);
        self.b.begin_if(not_null, false);
        let complete = self.complete_object(object);
        self.b.store(complete, slot, 8);
        self.b.end_if();
        self.b.load(slot, 8)
    }

    /// The address (`void *`) of the complete object of the non-null polymorphic
    /// `object` on the Itanium ABI: `object` plus the offset to top, read two slots
    /// before the address point its vptr holds.
    pub(super) fn complete_object(&mut self, object: Value) -> Value {
        let common = *self.b.ctx.types.common();
        let s64_ptr = self.b.ctx.types.ptr(common.s64);
        let vptr_slot_ty = self.b.ctx.types.ptr(s64_ptr);
        let vptr_slot = self.b.cast(CastKind::Bitcast, object, vptr_slot_ty);
        let vptr = self.b.load(vptr_slot, 8);
        let back = self.b.const_int(common.s64, -2);
        let to_top_slot = self.b.ptr_stride(vptr, back);
        let to_top = self.b.load(to_top_slot, 8);
        let u8_ptr = self.b.ctx.types.ptr(common.u8);
        let bytes = self.b.cast(CastKind::Bitcast, object, u8_ptr);
        let complete = self.b.ptr_stride(bytes, to_top);
        self.b.cast(CastKind::Bitcast, complete, common.void_ptr)
    }

    /// `dynamic_cast<T *>(p)` (null stays null) or `dynamic_cast<T &>(r)` (failure
    /// throws `std::bad_cast`), through the C++ runtime's `__dynamic_cast`, or
    /// [`FnGen::most_derived_object`] for `void *`.
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
            return Ok(self.most_derived_object(raw));
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
    // The class's own `operator delete` (or a base's), else the global one.
    let class_delete = match state.class_operator_delete(mb.ctx(), decl, &class)? {
        Some(found) => Some(state.callee(mb.ctx(), found)?),
        None => None,
    };
    let mut b = mb.function_of_type(&name, complete.sig);
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
    let delete = class_delete.unwrap_or(Callee {
        symbol: b.ctx.sym("_ZdlPvm"),
        sig: delete_sig,
        nothrow: true,
    });
    let takes_size = b
        .ctx
        .types
        .func_info(delete.sig)
        .is_some_and(|(params, _, _)| params.len() == 2);
    let raw = b.cast(CastKind::Bitcast, this, common.void_ptr);
    let size = b.const_int(common.u64, size as i128);
    let delete_args = if takes_size {
        vec![raw, size]
    } else {
        vec![raw]
    };
    b.push_cleanup(ehir_core::CleanupKind::All, move |b| {
        call_function(b, delete, &delete_args);
    });
    call_function(&mut b, complete, &[this]);
    b.pop_cleanup();
    b.emit_return(None);
    super::function::define_function(b, decl)?;
    Ok(())
}

/// `pointer` moved by `offset` bytes, of the same type.
pub(super) fn byte_offset(b: &mut FunctionBuilder, pointer: Value, offset: i64) -> Value {
    if offset == 0 {
        return pointer;
    }
    let s64 = b.ctx.types.common().s64;
    let offset = b.const_int(s64, i128::from(offset));
    byte_offset_by(b, pointer, offset)
}

/// `pointer` moved by `offset` (a 64-bit integer value) bytes, of the same type.
pub(super) fn byte_offset_by(b: &mut FunctionBuilder, pointer: Value, offset: Value) -> Value {
    let ty = b.value_type(pointer);
    let u8_ty = b.ctx.types.common().u8;
    let byte_ptr = b.ctx.types.ptr(u8_ty);
    let bytes = b.cast(CastKind::Bitcast, pointer, byte_ptr);
    let moved = b.ptr_stride(bytes, offset);
    b.cast(CastKind::Bitcast, moved, ty)
}

/// The name of a thunk to `target` making `adjustment` (`None` when `target` is not a
/// name a thunk can be named after, or an Itanium thunk would need a vtordisp).
fn thunk_name(msvc: bool, target: &str, adjustment: ThisAdjustment) -> Option<String> {
    match (msvc, adjustment.vtordisp) {
        (true, Some(vtordisp)) => msvc_vtordisp_thunk_symbol(target, vtordisp, adjustment.offset),
        (true, None) => msvc_thunk_symbol(target, adjustment.offset),
        (false, None) => thunk_symbol(target, adjustment.offset),
        (false, Some(_)) => None,
    }
}

/// Generates a thunk (Itanium `_ZThn8_…`, Microsoft `?f@D@@W7EAAXXZ`, a vtordisp thunk
/// `?f@D@@$4PPPPPPPM@A@EAAXXZ`): `this` moved by `adjustment`, then a call of the
/// function a vtable slot of kind `kind` holds for `decl`, whose result it returns.
pub fn generate_thunk<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    decl: &'ast Node,
    kind: SlotKind,
    adjustment: ThisAdjustment,
) -> R<()> {
    let msvc = state.abi == EhAbi::Msvc;
    let mut callee = state.callee(mb.ctx(), decl)?;
    let mut target = mb.ctx().name(callee.symbol).to_string();
    let mut this_index = 0;
    if kind == SlotKind::DeletingDestructor {
        let deleting = if msvc {
            // `void *(this, unsigned flags)`.
            callee.sig = super::vtable_msvc::deleting_destructor_signature(mb.ctx(), callee.sig).0;
            scalar_deleting_destructor_symbol(&target)
        } else {
            deleting_symbol(&target)
        };
        let Some(deleting) = deleting else {
            return unsupported(decl, format!("deleting destructor of '{target}'"));
        };
        target = deleting;
    } else {
        let signature = state.signature(mb.ctx(), decl)?;
        if signature.variadic {
            return unsupported(decl, "a thunk to a variadic function");
        }
        this_index = usize::from(signature.indirect_result);
    }
    let Some(name) = thunk_name(msvc, &target, adjustment) else {
        return unsupported(decl, format!("a thunk to '{target}'"));
    };
    let mut b = mb.function_of_type(&name, callee.sig);
    b.func_mut().linkage = Linkage::Internal;
    b.set_loc(super::loc_of(decl));
    let mut args = b.params();
    let Some(&this) = args.get(this_index) else {
        return error(decl, "a thunk to a function without 'this'");
    };
    let mut this = this;
    if let Some(vtordisp) = adjustment.vtordisp {
        // Back by the vtordisp stored before the virtual base `this` points into.
        let common = *b.ctx.types.common();
        let at = byte_offset(&mut b, this, vtordisp);
        let s32_ptr = b.ctx.types.ptr(common.s32);
        let at = b.cast(CastKind::Bitcast, at, s32_ptr);
        let displacement = b.load(at, 4);
        let displacement = b.cast(CastKind::Integral, displacement, common.s64);
        let zero = b.const_int(common.s64, 0);
        let back = b.binop(ehir_core::BinaryOp::Sub, zero, displacement);
        this = byte_offset_by(&mut b, this, back);
    }
    args[this_index] = byte_offset(&mut b, this, adjustment.offset);
    let flags = super::expr::call_flags(callee.nothrow);
    let result = b.call_named(&target, callee.sig, &args, flags);
    b.emit_return(result);
    super::function::define_function(b, decl)?;
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::{SlotKind, base_variant_symbol, virtual_slots};
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
        let mut keys = std::collections::BTreeSet::new();
        let base_slots = virtual_slots(&base, Vec::new(), &mut keys);
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
        let slots = virtual_slots(&derived, base_slots, &mut keys);
        let ids: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["9", "9", "6", "8"]);
        assert!(slots.iter().all(|s| !s.pure));
    }

    #[test]
    fn base_variants_replace_the_structor_name_that_ends_the_nested_name() {
        let cases = [
            ("_ZN1DC1Ev", Some("_ZN1DC2Ev")),
            ("_ZN1DD1Ev", Some("_ZN1DD2Ev")),
            // `C1` inside a source name or in template arguments is not the constructor.
            ("_ZN3XC1C1ERKS_", Some("_ZN3XC1C2ERKS_")),
            ("_ZN2ns3BoxIiEC1Ei", Some("_ZN2ns3BoxIiEC2Ei")),
            ("_ZN1AC1IiEET_", Some("_ZN1AC2IiEET_")),
            ("_Z1fv", None),
        ];
        for (complete, base) in cases {
            assert_eq!(base_variant_symbol(complete).as_deref(), base, "{complete}");
        }
    }

    #[test]
    fn slot_keys_ignore_the_exception_specification() {
        for (text, stripped) in [
            ("const char *() const noexcept", "const char *() const"),
            ("const char *() const throw()", "const char *() const"),
            ("void (int) noexcept(false)", "void (int)"),
            ("int (int (*)(int))", "int (int (*)(int))"),
            ("void () throw(int, A *)", "void ()"),
        ] {
            assert_eq!(super::without_exception_spec(text), stripped, "{text}");
        }
    }
}
