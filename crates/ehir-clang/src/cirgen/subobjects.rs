//! The base-class subobjects of a class on the Itanium C++ ABI, which its vtables, VTT
//! and constructors are built from: every subobject of a class placed in a complete
//! object (non-virtual bases at their offsets, each virtual base once, where the complete
//! object's layout puts it), the final overrider of a virtual function as seen from a
//! subobject, and the order of the virtual-base offsets in a vtable.

use super::class::{ClassLayout, DeclaredBase};
use super::vtable::SlotKind;
use super::{R, State, error};
use crate::ast::Node;
use ehir_core::ModuleCtx;
use ehir_core::abi::EhAbi;
use std::rc::Rc;

/// One base-class subobject (or the class itself) of a class placed in a complete object.
#[derive(Clone, Debug)]
pub struct Subobject {
    /// Its class.
    pub class: String,
    /// Its byte offset in the complete object.
    pub offset: u64,
    /// A virtual base (one subobject however many paths lead to it).
    pub is_virtual: bool,
    /// The nearest virtual base on the path to it (itself for a virtual base).
    pub nearest_virtual_base: Option<String>,
    /// Its offset from that virtual base (from the root without one).
    pub offset_from_nearest_virtual_base: u64,
    /// It is the non-virtual primary base of the subobject that names it: it shares
    /// that subobject's vptr.
    pub non_virtual_primary: bool,
    /// It is reached along a path through a virtual base.
    pub morally_virtual: bool,
    /// Its direct bases, in declaration order (indices into the walk).
    pub bases: Vec<usize>,
}

/// The subobjects of a class placed in a complete object, in inheritance graph preorder
/// (each base after the class that names it, in declaration order; a virtual base where
/// it is first met). The first is the class itself.
#[derive(Clone, Debug)]
pub struct Subobjects {
    /// The subobjects.
    pub all: Vec<Subobject>,
}

impl Subobjects {
    /// Whether subobject `inner` is `outer` or one of its bases (directly or not).
    pub fn contains(&self, outer: usize, inner: usize) -> bool {
        let mut pending = vec![outer];
        let mut seen = vec![false; self.all.len()];
        while let Some(i) = pending.pop() {
            if i == inner {
                return true;
            }
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            pending.extend(self.all[i].bases.iter().copied());
        }
        false
    }

    /// The subobject of class `class` at `offset`.
    pub fn find(&self, class: &str, offset: u64) -> Option<usize> {
        self.all
            .iter()
            .position(|s| s.class == class && s.offset == offset)
    }

    /// The subobject a virtual base is.
    pub fn virtual_base(&self, class: &str) -> Option<usize> {
        self.all
            .iter()
            .position(|s| s.is_virtual && s.class == class)
    }
}

impl<'ast> State<'ast> {
    /// The subobjects of class `root` placed at `root_offset` in a complete object of
    /// class `complete` (its virtual bases where `complete`'s layout puts them).
    pub fn subobjects(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        root: &str,
        root_offset: u64,
        complete: &str,
    ) -> R<Subobjects> {
        let complete_layout = self.layout(ctx, node, complete)?;
        let mut walk = Subobjects { all: Vec::new() };
        self.walk_subobject(
            ctx,
            node,
            &complete_layout,
            &mut walk,
            WalkStep {
                class: root.to_string(),
                offset: root_offset,
                is_virtual: false,
                nearest_virtual_base: None,
                offset_from_nearest_virtual_base: root_offset,
                non_virtual_primary: false,
                morally_virtual: false,
            },
        )?;
        Ok(walk)
    }

    fn walk_subobject(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        complete: &ClassLayout,
        walk: &mut Subobjects,
        step: WalkStep,
    ) -> R<usize> {
        if walk.all.len() > 100_000 {
            return error(node, "a class hierarchy too large to lay out");
        }
        let layout = self.layout(ctx, node, &step.class)?;
        let index = walk.all.len();
        walk.all.push(Subobject {
            class: layout.name.clone(),
            offset: step.offset,
            is_virtual: step.is_virtual,
            nearest_virtual_base: step.nearest_virtual_base.clone(),
            offset_from_nearest_virtual_base: step.offset_from_nearest_virtual_base,
            non_virtual_primary: step.non_virtual_primary,
            morally_virtual: step.morally_virtual,
            bases: Vec::new(),
        });
        let mut non_virtual = layout.bases.iter();
        for declared in &layout.declared_bases {
            let next = if declared.is_virtual {
                if let Some(existing) = walk.virtual_base(&declared.name) {
                    walk.all[index].bases.push(existing);
                    continue;
                }
                let Some(offset) = complete.virtual_base_offset(&declared.name) else {
                    return error(
                        node,
                        format!(
                            "virtual base '{}' not laid out in '{}'",
                            declared.name, complete.name
                        ),
                    );
                };
                WalkStep {
                    class: declared.name.clone(),
                    offset,
                    is_virtual: true,
                    nearest_virtual_base: Some(declared.name.clone()),
                    offset_from_nearest_virtual_base: 0,
                    non_virtual_primary: false,
                    morally_virtual: true,
                }
            } else {
                let Some(base) = non_virtual.next() else {
                    return error(node, format!("a base of '{}' not laid out", layout.name));
                };
                WalkStep {
                    class: base.name.clone(),
                    offset: step.offset + base.offset,
                    is_virtual: false,
                    nearest_virtual_base: step.nearest_virtual_base.clone(),
                    offset_from_nearest_virtual_base: step.offset_from_nearest_virtual_base
                        + base.offset,
                    non_virtual_primary: layout.primary_base.as_ref()
                        == Some(&(base.name.clone(), false)),
                    morally_virtual: step.morally_virtual,
                }
            };
            let base = self.walk_subobject(ctx, node, complete, walk, next)?;
            walk.all[index].bases.push(base);
        }
        Ok(index)
    }

    /// The subobjects that share the vptr (and so the vtable) of subobject `index`: its
    /// primary base, that one's primary base, and so on (a virtual primary base only
    /// where it is at the same offset).
    pub fn primary_chain(&mut self, walk: &Subobjects, index: usize) -> Vec<usize> {
        let mut chain = vec![index];
        let mut current = index;
        while let Some(layout) = self.layouts.get(&walk.all[current].class).cloned() {
            let Some((primary, is_virtual)) = &layout.primary_base else {
                break;
            };
            let next = walk.all[current].bases.iter().copied().find(|&b| {
                let base = &walk.all[b];
                &base.class == primary
                    && base.is_virtual == *is_virtual
                    && base.offset == walk.all[current].offset
            });
            match next {
                Some(next) if !chain.contains(&next) => {
                    chain.push(next);
                    current = next;
                }
                _ => break,
            }
        }
        chain
    }

    /// The final overrider of the virtual function with slot key `key` in the vtable
    /// of subobject `at`: of the subobjects whose class declares it and that contain the
    /// one that introduced the slot (the deepest of `at`'s primary bases that has it),
    /// the one that contains all the others (and the declaration).
    pub fn final_overrider(
        &mut self,
        node: &Node,
        walk: &Subobjects,
        at: usize,
        key: &str,
        kind: SlotKind,
    ) -> R<(usize, &'ast Node)> {
        let mut introducer = at;
        for index in self.primary_chain(walk, at) {
            let has_slot = self
                .layouts
                .get(&walk.all[index].class)
                .and_then(|l| l.virtual_slots.as_ref())
                .is_some_and(|slots| slots.iter().any(|s| s.key == key));
            if has_slot {
                introducer = index;
            }
        }
        let mut candidates: Vec<(usize, &'ast Node)> = Vec::new();
        for (index, subobject) in walk.all.iter().enumerate() {
            if !walk.contains(index, introducer) {
                continue;
            }
            if let Some(method) = self.declared_virtual(node, &subobject.class, key, kind)? {
                candidates.push((index, method));
            }
        }
        for &(index, method) in &candidates {
            if candidates
                .iter()
                .all(|&(other, _)| walk.contains(index, other))
            {
                return Ok((index, method));
            }
        }
        error(
            node,
            format!(
                "no unique final overrider of '{key}' in '{}'",
                walk.all[0].class
            ),
        )
    }

    /// The member of `class` that a vtable slot with key `key` holds, when the class
    /// declares one.
    fn declared_virtual(
        &self,
        node: &Node,
        class: &str,
        key: &str,
        kind: SlotKind,
    ) -> R<Option<&'ast Node>> {
        let class_node = self.class_node(node, class)?;
        Ok(class_node.children().find(|member| match kind {
            SlotKind::CompleteDestructor | SlotKind::DeletingDestructor => {
                member.kind == "CXXDestructorDecl"
            }
            SlotKind::Method => {
                member.kind == "CXXMethodDecl" && super::vtable::slot_key(member) == key
            }
        }))
    }

    /// The virtual bases of `class` in the order of the entries that give their offsets
    /// in its table: Itanium, the primary vtable's (the first nearest its address point):
    /// those of its primary base's, then its own in inheritance graph order (each where
    /// it is first met, before its own bases); Microsoft, the vbtable's (from entry 1):
    /// those of the base it shares its vbtable pointer with, then its own in
    /// construction order.
    pub fn virtual_base_table_order(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
    ) -> R<Vec<String>> {
        let layout = self.layout(ctx, node, class)?;
        let (shared, own): (Option<String>, Vec<String>) = if self.abi == EhAbi::Msvc {
            let mut shared = None;
            for base in &layout.bases {
                let base_layout = self.layout(ctx, node, &base.name)?;
                if let (Some(own), Some(inner)) = (layout.vbptr_offset, base_layout.vbptr_offset)
                    && base.offset + inner == own
                {
                    shared = Some(base.name.clone());
                    break;
                }
            }
            let own = layout
                .virtual_bases
                .iter()
                .map(|v| v.name.clone())
                .collect();
            (shared, own)
        } else {
            let own = self
                .inheritance_preorder(&layout.declared_bases)
                .into_iter()
                .filter(|(_, is_virtual)| *is_virtual)
                .map(|(name, _)| name)
                .collect();
            (layout.primary_base.as_ref().map(|(p, _)| p.clone()), own)
        };
        let mut order = match shared {
            Some(base) => self.virtual_base_table_order(ctx, node, &base)?,
            None => Vec::new(),
        };
        for virtual_base in own {
            if !order.contains(&virtual_base) {
                order.push(virtual_base);
            }
        }
        Ok(order)
    }

    /// The bases reached from `bases` depth first in declaration order (inheritance
    /// graph preorder, a base as often as a path leads to it), each with whether it is a
    /// virtual base of the class that names it. The bases are laid out.
    pub fn inheritance_preorder(&self, bases: &[DeclaredBase]) -> Vec<(String, bool)> {
        let mut found = Vec::new();
        let mut stack: Vec<(String, bool)> = bases
            .iter()
            .rev()
            .map(|b| (b.name.clone(), b.is_virtual))
            .collect();
        while let Some((name, is_virtual)) = stack.pop() {
            if let Some(layout) = self.layouts.get(&name) {
                stack.extend(
                    layout
                        .declared_bases
                        .iter()
                        .rev()
                        .map(|b| (b.name.clone(), b.is_virtual)),
                );
            }
            found.push((name, is_virtual));
        }
        found
    }

    /// Where, from the address point of the primary vtable of `class`, the offset of its
    /// virtual base `virtual_base` is (a negative byte offset).
    pub fn virtual_base_offset_offset(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        class: &str,
        virtual_base: &str,
    ) -> R<i64> {
        let slots = self.virtual_base_table_order(ctx, node, class)?;
        let base_name = self.layout(ctx, node, virtual_base)?.name.clone();
        match slots.iter().position(|s| *s == base_name) {
            Some(index) => Ok(-(24 + 8 * index as i64)),
            None => error(
                node,
                format!("'{virtual_base}' is not a virtual base of '{class}'"),
            ),
        }
    }
}

/// One step from a class to one of its direct bases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaseStep {
    /// A non-virtual base at this offset.
    NonVirtual(u64),
    /// A virtual base (its offset is in the object's vtable).
    Virtual(String),
}

impl<'ast> State<'ast> {
    /// A path from class `derived` down to its base class `base` (empty for the class
    /// itself); `None` when `base` is not a base of it.
    pub fn base_path(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        derived: &str,
        base: &str,
    ) -> R<Option<Vec<BaseStep>>> {
        let target = self.layout(ctx, node, base)?.name.clone();
        let start = self.layout(ctx, node, derived)?;
        if start.name == target {
            return Ok(Some(Vec::new()));
        }
        // Depth first, in declaration order: (layout, next base, path so far).
        let mut stack: Vec<(Rc<ClassLayout>, usize, Vec<BaseStep>)> = vec![(start, 0, Vec::new())];
        let mut steps = 0usize;
        while let Some((current, next, path)) = stack.pop() {
            steps += 1;
            if steps > 100_000 {
                break;
            }
            let Some(declared) = current.declared_bases.get(next).cloned() else {
                continue;
            };
            stack.push((current.clone(), next + 1, path.clone()));
            let step = if declared.is_virtual {
                BaseStep::Virtual(declared.name.clone())
            } else {
                let position = current
                    .declared_bases
                    .iter()
                    .take(next)
                    .filter(|b| !b.is_virtual)
                    .count();
                let Some(b) = current.bases.get(position) else {
                    return error(node, format!("a base of '{}' not laid out", current.name));
                };
                BaseStep::NonVirtual(b.offset)
            };
            let mut path = path;
            path.push(step);
            if declared.name == target {
                return Ok(Some(path));
            }
            let layout = self.layout(ctx, node, &declared.name)?;
            stack.push((layout, 0, path));
        }
        Ok(None)
    }
}

/// Where the walk goes next.
struct WalkStep {
    class: String,
    offset: u64,
    is_virtual: bool,
    nearest_virtual_base: Option<String>,
    offset_from_nearest_virtual_base: u64,
    non_virtual_primary: bool,
    morally_virtual: bool,
}
