//! Classes: the Itanium layout (computed from the AST: bases, fields, empty classes, tail
//! padding of POD bases), the CIR record of each class, typeinfo objects, and finding
//! the special members that construction and destruction call.

use super::vtable::{VirtualSlot, virtual_slots};
use super::{Pending, R, State, error, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_core::abi::EhAbi;
use ehir_core::abi::records::padding_type;
use ehir_core::{Loc, ModuleCtx, RecordDecl, RecordKind, Symbol, Type, TypeInfoDecl};
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
    /// The data size (size without tail padding).
    pub dsize: u64,
    /// POD for the purpose of layout.
    pub pod: bool,
    /// An empty class.
    pub empty: bool,
    /// Non-static data members, in order.
    pub fields: Vec<FieldLayout>,
    /// Non-virtual bases, in order.
    pub bases: Vec<BaseLayout>,
    /// The destructor is trivial.
    pub trivial_dtor: bool,
    /// Passed and returned in registers by the C ABI (trivial copy constructor and
    /// destructor).
    pub by_value: bool,
    /// For an empty class: the empty subobjects at each offset (itself included), which
    /// another empty subobject of the same type may not share.
    pub empty_subobjects: Vec<(u64, String)>,
    /// For a dynamic class: its vtable's function slots (its vptr is at offset 0, its
    /// own or its primary base's).
    pub virtual_slots: Option<Vec<VirtualSlot>>,
    /// Microsoft layout: the class is empty or its first base leads with a zero-sized
    /// base.
    pub leads_with_zero_sized_base: bool,
    /// Microsoft layout: the class is empty or its last subobject is a zero-sized base.
    pub ends_with_zero_sized: bool,
}

fn align_up(x: u64, a: u64) -> u64 {
    if a <= 1 { x } else { x.div_ceil(a) * a }
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

    /// Computes the layout of a class and declares its record.
    fn compute_layout(
        &mut self,
        ctx: &mut ModuleCtx,
        class: &'ast Node,
        name: &str,
    ) -> R<ClassLayout> {
        let data = class.definition_data.clone().unwrap_or_default();
        if class.tag_used.as_deref() == Some("union") {
            return unsupported(class, format!("union '{name}'"));
        }
        // Placed subobjects: (offset, CIR type, size, alignment).
        let mut placed: Vec<(u64, Type, u64, u64)> = Vec::new();
        let mut bases = Vec::new();
        let (mut dsize, mut align) = (0u64, 1u64);
        // Empty subobjects placed so far: (offset, class).
        let mut empty_at: Vec<(u64, String)> = Vec::new();
        // The vtable slots inherited from the primary base (the first base, when dynamic).
        let mut inherited: Option<Vec<VirtualSlot>> = None;
        // Microsoft layout: whether the first base leads with a zero-sized base, and the
        // last one ends with a zero-sized object.
        let mut leads_with_zero_sized_base = false;
        let mut previous_ends_with_zero_sized = false;
        for (position, base) in class.bases.iter().enumerate() {
            if base.is_virtual {
                return unsupported(class, format!("virtual base classes (class '{name}')"));
            }
            let base_name = self.parse(class, base.ty.canonical())?;
            let Some(base_name) = base_name.name().map(str::to_string) else {
                return error(class, "a base class that is not a class");
            };
            let base_layout = self.layout(ctx, class, &base_name)?;
            if let Some(slots) = &base_layout.virtual_slots {
                if position > 0 {
                    return unsupported(
                        class,
                        format!("a dynamic base class that is not the first (class '{name}')"),
                    );
                }
                inherited = Some(slots.clone());
            }
            if position == 0 && data.is_polymorphic && inherited.is_none() {
                // The class's own vptr comes first.
                let vptr = ctx.types.common().void_ptr;
                let vptr = ctx.types.ptr(vptr);
                placed.push((0, vptr, 8, 8));
                dsize = 8;
                align = 8;
            }
            let offset = if self.abi == EhAbi::Msvc {
                // Microsoft: an empty base takes no room; two zero-sized objects in a
                // row are a byte apart; a base's tail padding is never reused.
                if previous_ends_with_zero_sized && base_layout.leads_with_zero_sized_base {
                    dsize += 1;
                }
                let offset = align_up(dsize, base_layout.align);
                if !base_layout.empty {
                    placed.push((offset, base_layout.cir, base_layout.size, base_layout.align));
                    dsize = offset + base_layout.size;
                } else {
                    dsize = offset;
                }
                if bases.is_empty() {
                    leads_with_zero_sized_base = base_layout.leads_with_zero_sized_base;
                }
                previous_ends_with_zero_sized = base_layout.ends_with_zero_sized;
                offset
            } else if base_layout.empty {
                // Two empty subobjects of one type never share an address.
                let mut offset = 0;
                while empty_at.contains(&(offset, base_name.clone())) {
                    offset += 1;
                }
                empty_at.push((offset, base_name.clone()));
                for inner in &base_layout.empty_subobjects {
                    empty_at.push((offset + inner.0, inner.1.clone()));
                }
                if offset > 0 {
                    dsize = dsize.max(offset + 1);
                }
                offset
            } else {
                let offset = align_up(dsize, base_layout.align);
                placed.push((offset, base_layout.cir, base_layout.size, base_layout.align));
                dsize = offset
                    + if base_layout.pod {
                        base_layout.size
                    } else {
                        base_layout.dsize
                    };
                offset
            };
            align = align.max(base_layout.align);
            bases.push(BaseLayout {
                name: base_name,
                offset,
                public: base.access == "public",
            });
        }
        if class.bases.is_empty() && data.is_polymorphic {
            let vptr = ctx.types.common().void_ptr;
            let vptr = ctx.types.ptr(vptr);
            placed.push((0, vptr, 8, 8));
            dsize = 8;
            align = 8;
        }
        let virtual_slots = data.is_polymorphic.then(|| {
            let inherited = inherited.unwrap_or_default();
            if self.abi == EhAbi::Msvc {
                super::vtable_msvc::virtual_slots(class, inherited)
            } else {
                virtual_slots(class, inherited)
            }
        });
        let mut fields = Vec::new();
        for field in class.children().filter(|c| c.kind == "FieldDecl") {
            if field.is_bitfield {
                return unsupported(field, "bit fields");
            }
            let ty = self.node_type(field)?;
            let (size, field_align) = self.size_align(ctx, field, &ty)?;
            let cir = self.cir_type(ctx, field, &ty)?;
            let mut offset = align_up(dsize, field_align);
            if self.abi != EhAbi::Msvc
                && let CType::Named(field_class) = ty.unqualified()
                && self.layout(ctx, field, field_class)?.empty
            {
                while empty_at.contains(&(offset, field_class.clone())) {
                    offset += field_align;
                }
                empty_at.push((offset, field_class.clone()));
            }
            placed.push((offset, cir, size, field_align));
            dsize = offset + size;
            align = align.max(field_align);
            fields.push(FieldLayout {
                id: field.id.clone(),
                name: field.name.clone().unwrap_or_default(),
                ty,
                offset,
                index: 0,
            });
        }
        let size = align_up(dsize.max(1), align);
        // The CIR record: the subobjects laid out naturally, with padding for the gaps
        // the Itanium layout leaves.
        let mut record_fields = Vec::new();
        let mut index_of = Vec::new();
        let mut at = 0u64;
        for &(offset, ty, subobject_size, subobject_align) in &placed {
            let natural = align_up(at, subobject_align);
            if natural > offset {
                return unsupported(
                    class,
                    format!("class '{name}' reuses the tail padding of a base class"),
                );
            }
            if natural < offset {
                record_fields.push(padding_type(ctx, offset - at));
            }
            index_of.push(record_fields.len() as u32);
            record_fields.push(ty);
            at = offset + subobject_size;
        }
        if record_fields.is_empty() {
            at = 1;
        }
        if align_up(at, align) < size {
            record_fields.push(padding_type(ctx, size - at));
        }
        let base_count = placed.len() - fields.len();
        for (field, index) in fields.iter_mut().zip(&index_of[base_count..]) {
            field.index = *index;
        }
        let alias = self.record_alias(ctx, name);
        let record_name = ctx.sym(&self.output_name(name));
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
        let ends_with_zero_sized =
            data.is_empty || (fields.is_empty() && previous_ends_with_zero_sized);
        Ok(ClassLayout {
            name: name.to_string(),
            cir: ctx.types.record(alias),
            size,
            align,
            dsize,
            pod: data.is_pod,
            empty: data.is_empty,
            fields,
            bases,
            trivial_dtor: data.dtor.trivial,
            by_value: data.dtor.trivial && data.copy_ctor.trivial,
            empty_subobjects: if data.is_empty {
                let mut own = empty_at.clone();
                own.push((0, name.to_string()));
                own
            } else {
                Vec::new()
            },
            virtual_slots,
            leads_with_zero_sized_base: data.is_empty || leads_with_zero_sized_base,
            ends_with_zero_sized,
        })
    }

    /// The destructor of a class when it is not trivial (queued for generation).
    pub fn destructor(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        name: &str,
    ) -> R<Option<Callee>> {
        let layout = self.layout(ctx, node, name)?;
        if layout.trivial_dtor {
            return Ok(None);
        }
        let class = self.class_node(node, name)?;
        let Some(dtor) = class.children().find(|c| c.kind == "CXXDestructorDecl") else {
            return unsupported(
                node,
                format!("destructor of '{name}' not declared by Clang"),
            );
        };
        self.callee(ctx, dtor).map(Some)
    }

    /// A constructor of a class with the given function type text (`void (const A &)`).
    pub fn constructor(&self, node: &Node, name: &str, type_text: &str) -> R<&'ast Node> {
        let class = self.class_node(node, name)?;
        let found = class.children().find(|c| {
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

    /// The typeinfo symbol of a type thrown or caught (declaring class typeinfos).
    pub fn typeinfo(&mut self, ctx: &mut ModuleCtx, node: &Node, t: &CType) -> R<Symbol> {
        let mangled = self.mangle_type(node, t)?;
        let name = format!("_ZTI{mangled}");
        let symbol = ctx.sym(&name);
        if let CType::Named(class) = t.unqualified()
            && !self.typeinfos.contains_key(&name)
        {
            let layout = self.layout(ctx, node, class)?;
            let mut bases = Vec::new();
            for base in layout.bases.iter().filter(|b| b.public) {
                let base_symbol = self.typeinfo(ctx, node, &CType::Named(base.name.clone()))?;
                bases.push((base_symbol, base.offset));
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
        if let Some(pointee) = t.unqualified().pointee()
            && let CType::Named(_) = pointee.unqualified()
            && !self.typeinfos.contains_key(&name)
        {
            self.typeinfo(ctx, node, pointee.unqualified())?;
            let ty = self.cir_type(ctx, node, t)?;
            self.typeinfos.insert(
                name,
                TypeInfoDecl {
                    symbol,
                    ty,
                    bases: Vec::new(),
                    loc: Loc::NONE,
                },
            );
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
            CType::Array(..) | CType::Function(_) => {
                return unsupported(node, format!("typeinfo of '{t}'"));
            }
        })
    }
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
