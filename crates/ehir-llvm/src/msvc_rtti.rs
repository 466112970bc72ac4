//! Microsoft C++ RTTI and throw tables for the MSVC EH model, built on demand while the
//! MSVC-phase functions are emitted:
//!
//! - a TypeDescriptor `??_R0<code>@8 = { vftable, null, ".<code>" }` per caught or thrown
//!   type (`<code>` is the Microsoft type encoding, `H` for int, `?AUBase@@` for struct
//!   Base, `PEAUBase@@` for `Base *`; see `ehir_core::abi::type_names::msvc_type_code`).
//!   The runtime matches a thrown type against a catch by comparing these name strings;
//!   the vftable slot points at a private dummy, since wine's msvcrt does not export
//!   `type_info`'s vftable and nothing reads it.
//! - for each thrown type, a ThrowInfo `_TI…` → CatchableTypeArray `_CTA…` → one
//!   CatchableType `_CT…` per type a handler may catch the object as: the type itself and
//!   its unambiguous public bases (with the base's offset), or for a pointer to a class the
//!   pointers to those bases, plus `void *` for any object pointer. References between the
//!   tables are image-relative (`@X - @__ImageBase`, 32 bits).
//!
//! Qualifiers of a pointer's pointee are not part of a TypeDescriptor on this ABI: they
//! are the ThrowInfo's attributes for a throw and the catchpad's adjectives for a catch
//! (the runtime checks that a handler adds, never drops, `const`/`volatile`), so
//! `catch (const char *)` becomes `[@"??_R0PEAD@8", 1, …]` and matches both a thrown
//! `char *` and a thrown `const char *`.
//!
//! - for a dynamic class's vftable, the Complete Object Locator `??_R4<class>6B@` its
//!   first slot points to (`??_R4<class>6B<path>@` for each vftable of a class with
//!   several, with the offset of its vftable pointer) → the class's TypeDescriptor and Class Hierarchy Descriptor
//!   `??_R3<class>8` → Base Class Array `??_R2<class>8` → one Base Class Descriptor
//!   `??_R1…<base>8` per class of the hierarchy (the class itself, then its bases depth
//!   first, each with the offset of its subobject and its own hierarchy descriptor), as
//!   `__RTtypeid` and `__RTDynamicCast` read them. The hierarchy is the one the module's
//!   `cir.typeinfo` items describe: public non-virtual bases (a base that occurs twice is
//!   marked ambiguous, as Clang does).
//!
//! A module on the Microsoft target declares (without defining) the RTTI objects its code
//! and vftables refer to, by their Microsoft names: TypeDescriptors and Complete Object
//! Locators ([`MsRtti::declared_object`]); the tables above define them.
//!
//! All objects are `linkonce_odr` in comdats of their own name, as MSVC and clang emit
//! them, and their names are built from everything they contain, so equal names mean equal
//! contents across modules.

use crate::ir::{Global, Operand, Ty};
use crate::layout::size_align;
use ehir_core::abi::type_names;
use ehir_core::abi::type_names::{
    ADJECTIVE_CONST, ADJECTIVE_VOLATILE, base_class_array_symbol, base_class_descriptor_symbol,
    class_hierarchy_descriptor_symbol, complete_object_locator_symbol,
    decompose_pointer_qualifiers, descriptor_code, descriptor_symbol, msvc_class_name,
    msvc_type_code,
};
use ehir_core::{AttrData, ConstArrayElements, Module, ModuleCtx, Symbol, TypeData};
use std::collections::BTreeMap;

/// The name of the private stand-in for `type_info`'s vftable.
pub const TYPE_INFO_VFTABLE: &str = "ehir.type_info.vftable";
/// The linker-defined symbol image-relative references are taken against.
pub const IMAGE_BASE: &str = "__ImageBase";

/// Complete Object Locator signature of 64-bit images (image-relative references).
const COL_SIGNATURE_IMAGE_RELATIVE: i128 = 1;
/// Class Hierarchy Descriptor attribute: a class of the hierarchy has several bases.
const CHD_MULTIPLE_INHERITANCE: i128 = 1;
/// Class Hierarchy Descriptor attribute: a base class occurs more than once.
const CHD_AMBIGUOUS: i128 = 4;
/// Base Class Descriptor attribute: the base occurs more than once in the hierarchy.
const BCD_AMBIGUOUS: u32 = 2;
/// Base Class Descriptor attribute: the descriptor points to the base's hierarchy
/// descriptor (always set, as by MSVC and Clang).
const BCD_HAS_HIERARCHY_DESCRIPTOR: u32 = 0x40;
/// The deepest class hierarchy described (a deeper one is malformed: cyclic).
const MAX_HIERARCHY: usize = 10_000;

/// CatchableType property: a scalar (or pointer) the runtime copies with `memmove`.
const CT_IS_SIMPLE_TYPE: i128 = 1;
/// CatchableType property: a class with virtual bases (its copy constructor takes the
/// "most derived" flag).
const CT_HAS_VIRTUAL_BASE: i128 = 4;
/// ThrowInfo attribute: the thrown pointer points to `const`.
const TI_IS_CONST: i128 = 1;
/// ThrowInfo attribute: the thrown pointer points to `volatile`.
const TI_IS_VOLATILE: i128 = 2;

/// One entry of a CatchableTypeArray.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CatchableType {
    /// Microsoft type code (no leading `.`).
    code: String,
    size: u64,
    /// Where this (base) type's subobject is in the thrown object (or, for a pointer, the
    /// adjustment the runtime applies to the caught pointer value).
    at: Displacement,
    simple: bool,
    /// A class with virtual bases: its copy constructor takes the "most derived" flag.
    has_virtual_bases: bool,
    /// The copy constructor the runtime calls to copy a class object into a by-value
    /// catch slot.
    copy_ctor: Option<String>,
}

/// The tables built so far, by symbol.
#[derive(Default)]
pub struct MsRtti {
    globals: BTreeMap<String, Global>,
}

impl MsRtti {
    /// Whether any table was built (the module then needs the vftable stand-in and
    /// `__ImageBase`).
    pub fn is_empty(&self) -> bool {
        self.globals.is_empty()
    }

    /// The globals, in symbol order, with the vftable stand-in first.
    pub fn into_globals(self) -> Vec<Global> {
        let mut out = Vec::with_capacity(self.globals.len() + 1);
        if !self.globals.is_empty() {
            out.push(Global {
                name: TYPE_INFO_VFTABLE.to_string(),
                linkage: "private",
                constant: true,
                unnamed_addr: true,
                ty: Ty::Array(2, Box::new(Ty::Ptr)),
                init: Some(Operand::Zero),
                align: Some(8),
                comdat: false,
            });
        }
        out.extend(self.globals.into_values());
        out
    }

    /// The TypeDescriptor of `code`, defined on first use; returns its symbol.
    pub fn type_descriptor(&mut self, code: &str) -> String {
        let name = descriptor_symbol(code);
        if !self.globals.contains_key(&name) {
            let mut bytes = format!(".{code}").into_bytes();
            bytes.push(0);
            let text_ty = Ty::Array(bytes.len() as u64, Box::new(Ty::i8()));
            self.globals.insert(
                name.clone(),
                Global {
                    name: name.clone(),
                    linkage: "linkonce_odr",
                    // The runtime may cache the undecorated name in the second slot.
                    constant: false,
                    unnamed_addr: false,
                    ty: Ty::Struct(vec![Ty::Ptr, Ty::Ptr, text_ty.clone()]),
                    init: Some(Operand::Struct(vec![
                        (Ty::Ptr, Operand::Global(TYPE_INFO_VFTABLE.to_string())),
                        (Ty::Ptr, Operand::Null),
                        (text_ty, Operand::Bytes(bytes)),
                    ])),
                    align: Some(8),
                    comdat: true,
                },
            );
        }
        name
    }

    /// The catchpad arguments for the TypeDescriptor symbol a catch names: the
    /// (qualifier-free) descriptor to reference and the adjectives to add. A symbol that
    /// is not a `??_R0…@8` name is referenced as it is (`None`).
    pub fn catch_descriptor(&mut self, symbol: &str) -> Option<(String, u32)> {
        let code = descriptor_code(symbol)?;
        let (code, qualifiers) = decompose_pointer_qualifiers(code);
        Some((self.type_descriptor(&code), qualifiers))
    }

    /// The ThrowInfo for throwing an object whose Itanium typeinfo is `type_info`, whose
    /// CIR type is `thrown` and whose destructor (if any) is `dtor`; returns its symbol.
    pub fn throw_info(
        &mut self,
        module: &Module,
        type_info: Symbol,
        thrown: ehir_core::Type,
        dtor: Option<&str>,
    ) -> Result<String, String> {
        let ctx = &module.ctx;
        let type_info_name = ctx.name(type_info);
        let (code, qualifiers) = decompose_pointer_qualifiers(&msvc_type_code(ctx, type_info_name));
        let (size, _) = size_align(ctx, thrown)
            .map_err(|m| format!("cannot throw an object of this type: {m}"))?;
        let types = catchable_types(module, type_info_name, &code, size)?;
        let mut attributes = 0;
        if qualifiers & ADJECTIVE_CONST != 0 {
            attributes |= TI_IS_CONST;
        }
        if qualifiers & ADJECTIVE_VOLATILE != 0 {
            attributes |= TI_IS_VOLATILE;
        }
        let mut entries = Vec::with_capacity(types.len());
        for t in &types {
            entries.push(Operand::ImageRel(self.catchable_type(t)));
        }
        let array_name = format!("_CTA{}{code}", types.len());
        self.define_table(
            &array_name,
            vec![
                (Ty::i32(), Operand::Int(types.len() as i128)),
                (
                    Ty::Array(entries.len() as u64, Box::new(Ty::i32())),
                    Operand::Array(Ty::i32(), entries),
                ),
            ],
        );
        let qualifier_tag = match attributes {
            0 => "",
            TI_IS_CONST => "C",
            TI_IS_VOLATILE => "V",
            _ => "CV",
        };
        let dtor_tag = dtor.map(|d| format!("@{d}")).unwrap_or_default();
        let name = format!("_TI{qualifier_tag}{}{code}{dtor_tag}", types.len());
        let unwind = match dtor {
            Some(d) => Operand::ImageRel(d.to_string()),
            None => Operand::Int(0),
        };
        self.define_table(
            &name,
            i32_fields(vec![
                Operand::Int(attributes),
                unwind,
                Operand::Int(0),
                Operand::ImageRel(array_name),
            ]),
        );
        Ok(name)
    }

    fn catchable_type(&mut self, t: &CatchableType) -> String {
        let descriptor = self.type_descriptor(&t.code);
        let mut name = format!("_CT{descriptor}{}", t.size);
        if t.at.member != 0 {
            name.push_str(&format!("@{}", t.at.member));
        }
        if let Some((vbptr, entry)) = t.at.virtual_base {
            name.push_str(&format!("@{vbptr}@{entry}"));
        }
        if let Some(c) = &t.copy_ctor {
            name.push_str(&format!("@{c}"));
        }
        let copy = match &t.copy_ctor {
            Some(c) => Operand::ImageRel(c.clone()),
            None => Operand::Int(0),
        };
        self.define_table(
            &name,
            i32_fields(vec![
                Operand::Int(
                    if t.simple { CT_IS_SIMPLE_TYPE } else { 0 }
                        | if t.has_virtual_bases {
                            CT_HAS_VIRTUAL_BASE
                        } else {
                            0
                        },
                ),
                Operand::ImageRel(descriptor),
                // thisDisplacement: member displacement, vbtable pointer displacement (-1:
                // no virtual base), displacement within the vbtable.
                Operand::Int(i128::from(t.at.member)),
                Operand::Int(t.at.virtual_base.map_or(-1, |(vbptr, _)| i128::from(vbptr))),
                Operand::Int(t.at.virtual_base.map_or(0, |(_, entry)| i128::from(entry))),
                Operand::Int(i128::from(t.size)),
                copy,
            ]),
        );
        name
    }

    /// Defines the RTTI object a module global `name` declares without an initializer,
    /// when `name` is a TypeDescriptor or a Complete Object Locator: `Ok(true)` when it is
    /// one (and is now defined), `Ok(false)` when it is another global.
    ///
    /// A Complete Object Locator may be a module global with an initializer of six 32-bit
    /// integers: the second is the offset of the vftable pointer in the complete object
    /// (a vftable of a base that does not share the class's), the third how far before
    /// it the vtordisp of its virtual base is (0: none); the image-relative fields
    /// are defined here, whatever the initializer holds.
    pub fn declared_object(&mut self, module: &Module, name: &str) -> Result<bool, String> {
        if let Some(code) = descriptor_code(name) {
            self.type_descriptor(code);
            return Ok(true);
        }
        if !name.starts_with("??_R4") {
            return Ok(false);
        }
        let ctx = &module.ctx;
        let class = ctx
            .typeinfos
            .iter()
            .map(|decl| decl.symbol)
            .find(|&symbol| {
                class_typeinfo(ctx, ctx.name(symbol)).is_some()
                    && msvc_class_name(ctx, ctx.name(symbol)).is_some_and(|class| {
                        name.strip_prefix(complete_object_locator_symbol(&class, "").trim_end_matches('@'))
                            .is_some_and(|path| path.ends_with('@'))
                    })
            })
            .ok_or_else(|| {
                format!("the Complete Object Locator @{name} names no class of the module's cir.typeinfo items")
            })?;
        let offsets = module
            .globals
            .iter()
            .find(|(_, g)| ctx.name(g.name) == name)
            .and_then(|(_, g)| g.init)
            .map(|init| match ctx.attrs.get(init) {
                AttrData::ConstArray {
                    elements: ConstArrayElements::Attrs(fields),
                    ..
                } if fields.len() == 6 => match (
                    fields.get(1).map(|&f| ctx.attrs.get(f)),
                    fields.get(2).map(|&f| ctx.attrs.get(f)),
                ) {
                    (
                        Some(AttrData::Int { value: vfptr, .. }),
                        Some(AttrData::Int {
                            value: vtordisp, ..
                        }),
                    ) => Ok((*vfptr, *vtordisp)),
                    _ => Err(format!(
                        "the Complete Object Locator @{name}: no integer offsets"
                    )),
                },
                _ => Err(format!(
                    "the Complete Object Locator @{name}: its initializer is not six integers"
                )),
            })
            .transpose()?
            .unwrap_or((0, 0));
        self.complete_object_locator(ctx, class, name, offsets)?;
        Ok(true)
    }

    /// The Complete Object Locator `name` of a vftable of the class whose typeinfo is
    /// `class`, whose pointer is at `offsets.0` in the complete object, its virtual
    /// base's vtordisp (if any) `offsets.1` bytes before it.
    fn complete_object_locator(
        &mut self,
        ctx: &ModuleCtx,
        class: Symbol,
        name: &str,
        (vfptr_offset, vtordisp_distance): (i128, i128),
    ) -> Result<(), String> {
        let descriptor = self.type_descriptor(&msvc_type_code(ctx, ctx.name(class)));
        let hierarchy = self.class_hierarchy_descriptor(ctx, class)?;
        self.define_table(
            name,
            i32_fields(vec![
                Operand::Int(COL_SIGNATURE_IMAGE_RELATIVE),
                // The vftable pointer's offset in the complete object, the constructor
                // displacement's (vtordisp's) distance before it.
                Operand::Int(vfptr_offset),
                Operand::Int(vtordisp_distance),
                Operand::ImageRel(descriptor),
                Operand::ImageRel(hierarchy),
                Operand::ImageRel(name.to_string()),
            ]),
        );
        Ok(())
    }

    /// The Class Hierarchy Descriptor of the class whose typeinfo is `class` (with its
    /// Base Class Array and Descriptors, and those of its bases); returns its symbol.
    fn class_hierarchy_descriptor(
        &mut self,
        ctx: &ModuleCtx,
        class: Symbol,
    ) -> Result<String, String> {
        let class_name = rtti_class_name(ctx, class)?;
        let name = class_hierarchy_descriptor_symbol(&class_name);
        if self.globals.contains_key(&name) {
            return Ok(name);
        }
        let hierarchy = class_hierarchy(ctx, class)?;
        let mut occurrences: BTreeMap<Symbol, usize> = BTreeMap::new();
        for member in &hierarchy {
            *occurrences.entry(member.class).or_default() += 1;
        }
        let mut attributes = 0;
        if hierarchy.iter().any(|member| {
            ctx.typeinfo(member.class)
                .is_some_and(|decl| decl.bases.len() > 1)
        }) {
            attributes |= CHD_MULTIPLE_INHERITANCE;
        }
        if occurrences.values().any(|&n| n > 1) {
            attributes |= CHD_AMBIGUOUS;
        }
        // Defined before the bases' descriptors, which may come back to it.
        let array = base_class_array_symbol(&class_name);
        self.define_table(
            &name,
            i32_fields(vec![
                Operand::Int(0),
                Operand::Int(attributes),
                Operand::Int(hierarchy.len() as i128),
                Operand::ImageRel(array.clone()),
            ]),
        );
        let mut descriptors = Vec::with_capacity(hierarchy.len() + 1);
        for member in &hierarchy {
            let member_name = rtti_class_name(ctx, member.class)?;
            let mut bcd_attributes = BCD_HAS_HIERARCHY_DESCRIPTOR;
            if occurrences[&member.class] > 1 {
                bcd_attributes |= BCD_AMBIGUOUS;
            }
            let offset = i64::try_from(member.offset)
                .map_err(|_| format!("base @{} at an offset too large", ctx.name(member.class)))?;
            let descriptor_name =
                base_class_descriptor_symbol(&member_name, offset, -1, 0, bcd_attributes);
            let descriptor = self.type_descriptor(&msvc_type_code(ctx, ctx.name(member.class)));
            let member_hierarchy = if member.class == class {
                name.clone()
            } else {
                self.class_hierarchy_descriptor(ctx, member.class)?
            };
            self.define_table(
                &descriptor_name,
                i32_fields(vec![
                    Operand::ImageRel(descriptor),
                    Operand::Int(member.contained as i128),
                    // Where the base is: member displacement, vbtable pointer
                    // displacement (-1: not in a virtual base), displacement in the vbtable.
                    Operand::Int(i128::from(offset)),
                    Operand::Int(-1),
                    Operand::Int(0),
                    Operand::Int(i128::from(bcd_attributes)),
                    Operand::ImageRel(member_hierarchy),
                ]),
            );
            descriptors.push(Operand::ImageRel(descriptor_name));
        }
        // Null-terminated, as MSVC and Clang write it.
        descriptors.push(Operand::Int(0));
        self.globals.entry(array.clone()).or_insert_with(|| Global {
            name: array.clone(),
            linkage: "linkonce_odr",
            constant: true,
            unnamed_addr: true,
            ty: Ty::Array(descriptors.len() as u64, Box::new(Ty::i32())),
            init: Some(Operand::Array(Ty::i32(), descriptors)),
            align: Some(4),
            comdat: true,
        });
        Ok(name)
    }

    /// Defines table `name` (once), a struct of `fields`.
    fn define_table(&mut self, name: &str, fields: Vec<(Ty, Operand)>) {
        let ty = Ty::Struct(fields.iter().map(|(t, _)| t.clone()).collect());
        self.globals
            .entry(name.to_string())
            .or_insert_with(|| Global {
                name: name.to_string(),
                linkage: "linkonce_odr",
                constant: true,
                unnamed_addr: true,
                ty,
                init: Some(Operand::Struct(fields)),
                align: Some(4),
                comdat: true,
            });
    }
}

/// Table fields that are all `i32`.
fn i32_fields(values: Vec<Operand>) -> Vec<(Ty, Operand)> {
    values.into_iter().map(|v| (Ty::i32(), v)).collect()
}

/// The mangled class name inside an Itanium typeinfo symbol (`_ZTI4Base` → `4Base`), if
/// the module describes that class with a `cir.typeinfo` item.
fn class_typeinfo(ctx: &ModuleCtx, symbol: &str) -> Option<Symbol> {
    let s = ctx.symbols.lookup(symbol)?;
    let decl = ctx.typeinfo(s)?;
    matches!(ctx.types.get(decl.ty), TypeData::Record(_)).then_some(s)
}

/// The copy constructor the CatchableType of the class whose typeinfo is `symbol` names.
fn copy_constructor(module: &Module, symbol: &str) -> Option<String> {
    type_names::copy_constructor(module, symbol).map(|s| module.ctx.name(s).to_string())
}

/// The name of a class in RTTI symbols (`In@ns@@`), from its typeinfo symbol.
fn rtti_class_name(ctx: &ModuleCtx, class: Symbol) -> Result<String, String> {
    msvc_class_name(ctx, ctx.name(class))
        .ok_or_else(|| format!("@{} is not the typeinfo of a class", ctx.name(class)))
}

/// A class of a hierarchy as its Base Class Array lists it.
struct HierarchyMember {
    /// Its typeinfo symbol.
    class: Symbol,
    /// The offset of its subobject in the class the hierarchy is of.
    offset: u64,
    /// How many classes follow it in the array that are its own bases.
    contained: usize,
}

/// The class whose typeinfo is `class` and its public bases, transitively, depth-first in
/// preorder (each class before its bases, bases in declaration order), with the offset
/// of each subobject.
fn class_hierarchy(ctx: &ModuleCtx, class: Symbol) -> Result<Vec<HierarchyMember>, String> {
    let mut members: Vec<HierarchyMember> = Vec::new();
    // (typeinfo, offset, depth); the stack of the members still open, by depth.
    let mut stack: Vec<(Symbol, u64, usize)> = vec![(class, 0, 0)];
    let mut open: Vec<usize> = Vec::new();
    while let Some((symbol, offset, depth)) = stack.pop() {
        if members.len() >= MAX_HIERARCHY {
            return Err(format!(
                "the class hierarchy of @{} is cyclic or too large",
                ctx.name(class)
            ));
        }
        open.truncate(depth);
        for &ancestor in &open {
            members[ancestor].contained += 1;
        }
        open.push(members.len());
        members.push(HierarchyMember {
            class: symbol,
            offset,
            contained: 0,
        });
        if let Some(decl) = ctx.typeinfo(symbol) {
            for base in decl.bases.iter().rev() {
                stack.push((
                    base.symbol,
                    offset.saturating_add_signed(base.offset),
                    depth + 1,
                ));
            }
        }
    }
    Ok(members)
}

/// Where a base subobject is in an object: on the Microsoft ABI a "PMD" — through the
/// object's vbtable pointer at displacement `.0` and the 32-bit vbtable entry at byte
/// offset `.1` when it is in a virtual base, then `member` bytes on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Displacement {
    member: u64,
    virtual_base: Option<(u64, u64)>,
}

/// The unambiguous public bases of a class, transitively, with where they are: depth
/// first, each base after the class that names it. A class whose subobject occurs more
/// than once is ambiguous and left out (a handler for it cannot catch the object); a
/// virtual base is one subobject however many paths reach it, caught when one of them is
/// public; one reached only through a non-public base is left out too, but still makes
/// another occurrence ambiguous. A virtual base inside a virtual base is not supported.
fn unambiguous_bases(
    ctx: &ModuleCtx,
    class: Symbol,
) -> Result<Vec<(Symbol, Displacement)>, String> {
    // (base, where, public, the virtual base it is in).
    let mut all: Vec<(Symbol, Displacement, bool, Option<Symbol>)> = Vec::new();
    let mut stack: Vec<(Symbol, Displacement, bool, Option<Symbol>)> =
        vec![(class, Displacement::default(), true, None)];
    while let Some((s, at, public, root)) = stack.pop() {
        if all.len() > 10_000 {
            // A cyclic hierarchy is malformed; stop rather than loop.
            break;
        }
        if let Some(decl) = ctx.typeinfo(s) {
            for base in decl.bases.iter().rev() {
                let public = public && base.public;
                if !base.is_virtual {
                    let member = at.member.saturating_add_signed(base.offset);
                    stack.push((base.symbol, Displacement { member, ..at }, public, root));
                    continue;
                }
                let (Some(vbptr), None) = (base.vbptr_offset, at.virtual_base) else {
                    return Err(format!(
                        "a virtual base @{} of @{} caught by a Microsoft handler (only direct \
                         virtual bases of non-virtual subobjects are supported)",
                        ctx.name(base.symbol),
                        ctx.name(class)
                    ));
                };
                let entry = u64::try_from(base.offset)
                    .map_err(|_| format!("a negative vbtable entry in @{}", ctx.name(s)))?;
                let at = Displacement {
                    member: 0,
                    virtual_base: Some((at.member + vbptr, entry)),
                };
                stack.push((base.symbol, at, public, Some(base.symbol)));
            }
        }
        if s != class {
            all.push((s, at, public, root));
        }
    }
    // One subobject per non-virtual placement; one per virtual base and offset in it.
    let subobject =
        |&(s, at, _, root): &(Symbol, Displacement, bool, Option<Symbol>)| (s, root, at.member);
    let mut subobjects: BTreeMap<Symbol, Vec<(Symbol, Option<Symbol>, u64)>> = BTreeMap::new();
    for entry in &all {
        let list = subobjects.entry(entry.0).or_default();
        if !list.contains(&subobject(entry)) {
            list.push(subobject(entry));
        }
    }
    let mut out: Vec<(Symbol, Displacement)> = Vec::new();
    for entry in &all {
        let (s, at, public, _) = *entry;
        if public && subobjects[&s].len() == 1 && !out.iter().any(|(o, _)| *o == s) {
            out.push((s, at));
        }
    }
    Ok(out)
}

/// Whether a class has virtual bases (its copy constructor takes the "most derived" flag).
fn has_virtual_bases(ctx: &ModuleCtx, class: Symbol) -> bool {
    let mut stack = vec![class];
    let mut visits = 0;
    while let Some(s) = stack.pop() {
        visits += 1;
        if visits > 10_000 {
            break;
        }
        if let Some(decl) = ctx.typeinfo(s) {
            if decl.bases.iter().any(|b| b.is_virtual) {
                return true;
            }
            stack.extend(decl.bases.iter().map(|b| b.symbol));
        }
    }
    false
}

/// The catchable type `void *` of a thrown pointer (or `std::nullptr_t`) of `size` bytes.
fn void_pointer(size: u64) -> CatchableType {
    CatchableType {
        code: "PEAX".to_string(),
        size,
        at: Displacement::default(),
        simple: true,
        has_virtual_bases: false,
        copy_ctor: None,
    }
}

/// The Microsoft type code of `std::nullptr_t`.
const NULLPTR_CODE: &str = "$$T";

/// The types a thrown object of Itanium typeinfo `type_info` (Microsoft code `code`,
/// `size` bytes) can be caught as.
fn catchable_types(
    module: &Module,
    type_info: &str,
    code: &str,
    size: u64,
) -> Result<Vec<CatchableType>, String> {
    let ctx = &module.ctx;
    let mut out = Vec::new();
    if let Some(class) = class_typeinfo(ctx, type_info) {
        out.push(CatchableType {
            code: code.to_string(),
            size,
            at: Displacement::default(),
            simple: false,
            has_virtual_bases: has_virtual_bases(ctx, class),
            copy_ctor: copy_constructor(module, type_info),
        });
        for (base, at) in unambiguous_bases(ctx, class)? {
            let base_name = ctx.name(base);
            let decl = ctx
                .typeinfo(base)
                .ok_or_else(|| format!("base class typeinfo @{base_name} is not declared"))?;
            let (base_size, _) =
                size_align(ctx, decl.ty).map_err(|m| format!("base class @{base_name}: {m}"))?;
            out.push(CatchableType {
                code: msvc_type_code(ctx, base_name),
                size: base_size,
                at,
                simple: false,
                has_virtual_bases: has_virtual_bases(ctx, base),
                copy_ctor: copy_constructor(module, base_name),
            });
        }
        return Ok(out);
    }
    out.push(CatchableType {
        code: code.to_string(),
        size,
        at: Displacement::default(),
        simple: true,
        has_virtual_bases: false,
        copy_ctor: None,
    });
    if code == NULLPTR_CODE {
        // `throw nullptr` is caught by `void *` handlers (as with Clang for Windows, whose
        // throw info lists `$$T` and `void *`; other pointer handlers do not match).
        out.push(void_pointer(size));
    }
    if let Some(pointee) = code.strip_prefix("PEA") {
        // A pointer to a class also converts to pointers to its unambiguous public bases.
        let pointee_typeinfo = type_info
            .strip_prefix("_ZTIP")
            .map(|rest| format!("_ZTI{}", rest.trim_start_matches(['K', 'V', 'r'])));
        if let Some(class) = pointee_typeinfo
            .as_deref()
            .and_then(|t| class_typeinfo(ctx, t))
        {
            // (As Clang does, a pointer to a class with virtual bases is marked so too.)
            out[0].has_virtual_bases = has_virtual_bases(ctx, class);
            for (base, at) in unambiguous_bases(ctx, class)? {
                let base_code = msvc_type_code(ctx, ctx.name(base));
                let nested = base_code.strip_prefix("?A").unwrap_or(&base_code);
                out.push(CatchableType {
                    code: format!("PEA{nested}"),
                    size,
                    at,
                    simple: true,
                    has_virtual_bases: has_virtual_bases(ctx, base),
                    copy_ctor: None,
                });
            }
        }
        // Any object pointer converts to `void *`.
        if pointee != "X" {
            out.push(void_pointer(size));
        }
    }
    Ok(out)
}
