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
//! All objects are `linkonce_odr` in comdats of their own name, as MSVC and clang emit
//! them, and their names are built from everything they contain, so equal names mean equal
//! contents across modules.

use crate::ir::{Global, Operand, Ty};
use crate::layout::size_align;
use ehir_core::abi::type_names::{
    ADJECTIVE_CONST, ADJECTIVE_VOLATILE, decompose_pointer_qualifiers, descriptor_code,
    descriptor_symbol, msvc_type_code,
};
use ehir_core::{Module, ModuleCtx, Symbol, TypeData};
use std::collections::BTreeMap;

/// The name of the private stand-in for `type_info`'s vftable.
pub const TYPE_INFO_VFTABLE: &str = "ehir.type_info.vftable";
/// The linker-defined symbol image-relative references are taken against.
pub const IMAGE_BASE: &str = "__ImageBase";

/// CatchableType property: a scalar (or pointer) the runtime copies with `memmove`.
const CT_IS_SIMPLE_TYPE: i128 = 1;
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
    /// Offset of this (base) type's subobject in the thrown object (or, for a pointer, the
    /// adjustment the runtime applies to the caught pointer value).
    offset: u64,
    simple: bool,
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
        if t.offset != 0 {
            name.push_str(&format!("@{}", t.offset));
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
                Operand::Int(if t.simple { CT_IS_SIMPLE_TYPE } else { 0 }),
                Operand::ImageRel(descriptor),
                // thisDisplacement: member displacement, vbtable displacement (-1: no
                // virtual base), displacement within the vbtable.
                Operand::Int(i128::from(t.offset)),
                Operand::Int(-1),
                Operand::Int(0),
                Operand::Int(i128::from(t.size)),
                copy,
            ]),
        );
        name
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

/// The complete-object copy constructor `C::C(const C &)` of the class whose typeinfo is
/// `symbol`, when the module has it.
fn copy_constructor(module: &Module, symbol: &str) -> Option<String> {
    let mangled = symbol.strip_prefix("_ZTI")?;
    let inner = match mangled.strip_prefix('N') {
        Some(rest) => rest.strip_suffix('E')?,
        None => mangled,
    };
    let name = format!("_ZN{inner}C1ERKS_");
    let s = module.ctx.symbols.lookup(&name)?;
    module.function_by_name(s).map(|_| name)
}

/// The unambiguous public bases of a class, transitively, with their offsets: depth
/// first, each base after the class that names it. A class that occurs more than once is
/// ambiguous and left out (a handler for it cannot catch the object); one reached only
/// through a non-public base is left out too, but still makes another occurrence
/// ambiguous.
fn unambiguous_bases(ctx: &ModuleCtx, class: Symbol) -> Vec<(Symbol, u64)> {
    let mut all: Vec<(Symbol, u64, bool)> = Vec::new();
    let mut stack: Vec<(Symbol, u64, bool)> = vec![(class, 0, true)];
    while let Some((s, offset, public)) = stack.pop() {
        if all.len() > 10_000 {
            // A cyclic hierarchy is malformed; stop rather than loop.
            break;
        }
        if let Some(decl) = ctx.typeinfo(s) {
            for base in decl.bases.iter().rev() {
                let at = offset.saturating_add_signed(base.offset);
                stack.push((base.symbol, at, public && base.public));
            }
        }
        if s != class {
            all.push((s, offset, public));
        }
    }
    let mut counts: BTreeMap<Symbol, usize> = BTreeMap::new();
    for &(s, _, _) in &all {
        *counts.entry(s).or_default() += 1;
    }
    all.into_iter()
        .filter(|&(s, _, public)| public && counts[&s] == 1)
        .map(|(s, offset, _)| (s, offset))
        .collect()
}

/// The catchable type `void *` of a thrown pointer (or `std::nullptr_t`) of `size` bytes.
fn void_pointer(size: u64) -> CatchableType {
    CatchableType {
        code: "PEAX".to_string(),
        size,
        offset: 0,
        simple: true,
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
            offset: 0,
            simple: false,
            copy_ctor: copy_constructor(module, type_info),
        });
        for (base, offset) in unambiguous_bases(ctx, class) {
            let base_name = ctx.name(base);
            let decl = ctx
                .typeinfo(base)
                .ok_or_else(|| format!("base class typeinfo @{base_name} is not declared"))?;
            let (base_size, _) =
                size_align(ctx, decl.ty).map_err(|m| format!("base class @{base_name}: {m}"))?;
            out.push(CatchableType {
                code: msvc_type_code(ctx, base_name),
                size: base_size,
                offset,
                simple: false,
                copy_ctor: copy_constructor(module, base_name),
            });
        }
        return Ok(out);
    }
    out.push(CatchableType {
        code: code.to_string(),
        size,
        offset: 0,
        simple: true,
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
            for (base, offset) in unambiguous_bases(ctx, class) {
                let base_code = msvc_type_code(ctx, ctx.name(base));
                let nested = base_code.strip_prefix("?A").unwrap_or(&base_code);
                out.push(CatchableType {
                    code: format!("PEA{nested}"),
                    size,
                    offset,
                    simple: true,
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
