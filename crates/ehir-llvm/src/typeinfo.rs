//! Typeinfo objects of the Itanium C++ ABI, built from `cir.typeinfo` items. A class:
//! no base → `__class_type_info`, one public non-virtual base at offset 0 →
//! `__si_class_type_info`, anything else → `__vmi_class_type_info` (flags: a base class
//! repeated, a virtual base reached twice; the base count; then per base its typeinfo and
//! `offset << 8 | 2 if public | 1 if virtual`, where a virtual base's offset is that of
//! its vbase-offset slot in the vtable). A pointer (`_ZTIP4Node : !cir.ptr<!rec_Node>`) →
//! `__pointer_type_info` (qualifier flags of the pointee, `1` for `const`, then the
//! pointee's typeinfo). A pointer to member (`_ZTIM1Ai`) → `__pointer_to_member_type_info`
//! (the same, then the class's typeinfo); a function type (`_ZTIFvvE : !cir.func<...>`)
//! → `__function_type_info`. Each object's second word points at its `_ZTS`
//! name string; the first points 16 bytes into libstdc++'s vtable for the class kind.
//! Objects and names are `linkonce_odr` in comdats named after them, as g++ emits them,
//! so the same class's typeinfo from g++-compiled code merges with ours at link time.

use crate::ir::{Global, Operand, Ty};
use ehir_core::{ModuleCtx, Symbol, TypeData, TypeInfoDecl};
use std::collections::BTreeSet;

const CLASS_VTABLE: &str = "_ZTVN10__cxxabiv117__class_type_infoE";
const SI_CLASS_VTABLE: &str = "_ZTVN10__cxxabiv120__si_class_type_infoE";
const VMI_CLASS_VTABLE: &str = "_ZTVN10__cxxabiv121__vmi_class_type_infoE";
const POINTER_VTABLE: &str = "_ZTVN10__cxxabiv119__pointer_type_infoE";
const MEMBER_POINTER_VTABLE: &str = "_ZTVN10__cxxabiv129__pointer_to_member_type_infoE";
const FUNCTION_VTABLE: &str = "_ZTVN10__cxxabiv120__function_type_infoE";

/// `__pbase_type_info` flags: the pointee is `const`, `volatile`, `restrict`.
const POINTEE_CONST: i128 = 0x1;
const POINTEE_VOLATILE: i128 = 0x2;
const POINTEE_RESTRICT: i128 = 0x4;

/// `__vmi_class_type_info::__non_diamond_repeat_mask`: a base class occurs twice.
const NON_DIAMOND_REPEAT: i128 = 0x1;
/// `__vmi_class_type_info::__diamond_shaped_mask`: a virtual base is reached twice.
const DIAMOND_SHAPED: i128 = 0x2;
/// `__base_class_type_info::__virtual_mask`.
const VIRTUAL_BASE: i128 = 0x1;
/// `__base_class_type_info::__public_mask`.
const PUBLIC_BASE: i128 = 0x2;

/// The symbol and text of the name string of typeinfo `symbol`: `_ZTI1D` → (`_ZTS1D`, `1D`).
pub fn name_string(symbol: &str) -> (String, String) {
    match symbol.strip_prefix("_ZTI") {
        Some(rest) if !rest.is_empty() => (format!("_ZTS{rest}"), rest.to_string()),
        _ => (format!("{symbol}.name"), symbol.to_string()),
    }
}

/// What one `cir.typeinfo` item needs: the libstdc++ vtable its object points into, the
/// typeinfo objects it refers to (bases, or a pointer's pointee), and the globals that
/// define its name string and object.
pub struct ClassTypeInfo {
    /// The libstdc++ vtable symbol (`_ZTVN10__cxxabiv117__class_type_infoE`).
    pub vtable: &'static str,
    /// The typeinfo objects (by symbol) the object points to.
    pub referenced: Vec<String>,
    /// The name string and the typeinfo object itself.
    pub globals: Vec<Global>,
}

/// Builds the typeinfo of one `cir.typeinfo` item.
pub fn class_type_info(ctx: &ModuleCtx, decl: &TypeInfoDecl) -> Result<ClassTypeInfo, String> {
    let symbol = ctx.name(decl.symbol).to_string();
    let (name_symbol, name_text) = name_string(&symbol);
    let mut bytes = name_text.into_bytes();
    bytes.push(0);
    let name_global = Global {
        name: name_symbol.clone(),
        linkage: "linkonce_odr",
        constant: true,
        unnamed_addr: false,
        ty: Ty::Array(bytes.len() as u64, Box::new(Ty::i8())),
        init: Some(Operand::Bytes(bytes)),
        align: Some(1),
        comdat: true,
    };
    let vtable_ptr = |vtable: &str| Operand::GepConst {
        source: Ty::Ptr,
        base: Box::new(Operand::Global(vtable.to_string())),
        indices: vec![(Ty::i64(), Operand::Int(2))],
    };
    let name_ptr = Operand::Global(name_symbol);
    if let Some((flags, pointee, class)) = member_pointer_parts(&symbol) {
        let fields = vec![
            (Ty::Ptr, vtable_ptr(MEMBER_POINTER_VTABLE)),
            (Ty::Ptr, name_ptr),
            (Ty::i32(), Operand::Int(flags)),
            (Ty::Ptr, Operand::Global(pointee.clone())),
            (Ty::Ptr, Operand::Global(class.clone())),
        ];
        let object = typeinfo_object(symbol, fields);
        return Ok(ClassTypeInfo {
            vtable: MEMBER_POINTER_VTABLE,
            referenced: vec![pointee, class],
            globals: vec![name_global, object],
        });
    }
    if matches!(ctx.types.get(decl.ty), TypeData::Func { .. }) {
        let fields = vec![(Ty::Ptr, vtable_ptr(FUNCTION_VTABLE)), (Ty::Ptr, name_ptr)];
        let object = typeinfo_object(symbol, fields);
        return Ok(ClassTypeInfo {
            vtable: FUNCTION_VTABLE,
            referenced: Vec::new(),
            globals: vec![name_global, object],
        });
    }
    let is_pointer = matches!(ctx.types.get(decl.ty), TypeData::Ptr(..));
    if is_pointer {
        let (flags, pointee) = pointer_parts(&symbol)
            .ok_or_else(|| format!("@{symbol} is not the typeinfo of a pointer type (_ZTIP...)"))?;
        let fields = vec![
            (Ty::Ptr, vtable_ptr(POINTER_VTABLE)),
            (Ty::Ptr, name_ptr),
            (Ty::i32(), Operand::Int(flags)),
            (Ty::Ptr, Operand::Global(pointee.clone())),
        ];
        let object = typeinfo_object(symbol, fields);
        return Ok(ClassTypeInfo {
            vtable: POINTER_VTABLE,
            referenced: vec![pointee.clone()],
            globals: vec![name_global, object],
        });
    }
    let (vtable, fields): (&'static str, Vec<(Ty, Operand)>) = match decl.bases.as_slice() {
        [] => (
            CLASS_VTABLE,
            vec![(Ty::Ptr, vtable_ptr(CLASS_VTABLE)), (Ty::Ptr, name_ptr)],
        ),
        [base] if base.offset == 0 && base.public && !base.is_virtual => (
            SI_CLASS_VTABLE,
            vec![
                (Ty::Ptr, vtable_ptr(SI_CLASS_VTABLE)),
                (Ty::Ptr, name_ptr),
                (Ty::Ptr, Operand::Global(ctx.name(base.symbol).to_string())),
            ],
        ),
        bases => {
            let mut fields = vec![
                (Ty::Ptr, vtable_ptr(VMI_CLASS_VTABLE)),
                (Ty::Ptr, name_ptr),
                (Ty::i32(), Operand::Int(hierarchy_flags(ctx, decl.symbol))),
                (Ty::i32(), Operand::Int(bases.len() as i128)),
            ];
            for base in bases {
                let offset = i128::from(base.offset);
                if offset.abs() > (i64::MAX >> 8) as i128 {
                    return Err(format!("base offset {offset} is too large"));
                }
                let mut flags = offset << 8;
                if base.public {
                    flags |= PUBLIC_BASE;
                }
                if base.is_virtual {
                    flags |= VIRTUAL_BASE;
                }
                fields.push((Ty::Ptr, Operand::Global(ctx.name(base.symbol).to_string())));
                fields.push((Ty::i64(), Operand::Int(flags)));
            }
            (VMI_CLASS_VTABLE, fields)
        }
    };
    let object = typeinfo_object(symbol, fields);
    Ok(ClassTypeInfo {
        vtable,
        referenced: decl
            .bases
            .iter()
            .map(|b| ctx.name(b.symbol).to_string())
            .collect(),
        globals: vec![name_global, object],
    })
}

/// The typeinfo object `symbol` (a `linkonce_odr` constant in its own comdat) holding
/// `fields` as a struct.
fn typeinfo_object(symbol: String, fields: Vec<(Ty, Operand)>) -> Global {
    Global {
        name: symbol,
        linkage: "linkonce_odr",
        constant: true,
        unnamed_addr: false,
        ty: Ty::Struct(fields.iter().map(|(t, _)| t.clone()).collect()),
        init: Some(Operand::Struct(fields)),
        align: Some(8),
        comdat: true,
    }
}

/// The `__pbase_type_info` flags and the pointee typeinfo symbol of a pointer typeinfo
/// symbol: `_ZTIPK4Node` → (const, `_ZTI4Node`).
pub fn pointer_parts(symbol: &str) -> Option<(i128, String)> {
    let (flags, pointee) = pointee_qualifiers(symbol.strip_prefix("_ZTIP")?)?;
    Some((flags, format!("_ZTI{pointee}")))
}

/// The `__pbase_type_info` qualifier flags (`r`, `V`, `K`) that open a mangled pointee
/// type and the type after them; `None` when no type follows.
fn pointee_qualifiers(mut mangled: &str) -> Option<(i128, &str)> {
    let mut flags = 0;
    loop {
        let flag = match mangled.as_bytes().first()? {
            b'r' => POINTEE_RESTRICT,
            b'V' => POINTEE_VOLATILE,
            b'K' => POINTEE_CONST,
            _ => break,
        };
        flags |= flag;
        mangled = &mangled[1..];
    }
    Some((flags, mangled))
}

/// The `__pbase_type_info` flags, the member type's typeinfo symbol and the class's of a
/// pointer-to-member typeinfo symbol: `_ZTIM1AKi` → (const, `_ZTIi`, `_ZTI1A`).
pub fn member_pointer_parts(symbol: &str) -> Option<(i128, String, String)> {
    let rest = symbol.strip_prefix("_ZTIM")?;
    let class_len = mangled_class_len(rest)?;
    let (class, member) = rest.split_at(class_len);
    let (flags, member) = pointee_qualifiers(member)?;
    Some((flags, format!("_ZTI{member}"), format!("_ZTI{class}")))
}

/// The length of the class name mangling `text` starts with: `1A…`, `St1A…`, `N2ns1AE…`.
fn mangled_class_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    // `<length><identifier>` at `at`: the position after it.
    let source_name = |at: usize| -> Option<usize> {
        let digits = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        let len: usize = text[at..at + digits].parse().ok()?;
        let end = at + digits + len;
        (end <= bytes.len()).then_some(end)
    };
    match bytes.first()? {
        b'N' => {
            let mut at = 1;
            if text[at..].starts_with("St") {
                at += 2;
            }
            while bytes.get(at)? != &b'E' {
                at = source_name(at)?;
            }
            Some(at + 1)
        }
        b'S' if text.starts_with("St") => source_name(2),
        _ => source_name(0),
    }
}

/// The `__vmi_class_type_info` flags of `symbol`, following the module's `cir.typeinfo`
/// items through the bases (as Clang computes them): a non-virtual base seen twice, or
/// seen both as a virtual and a non-virtual base, is a non-diamond repeat; a virtual base
/// seen twice makes the class diamond-shaped.
fn hierarchy_flags(ctx: &ModuleCtx, symbol: Symbol) -> i128 {
    let mut virtual_seen: BTreeSet<Symbol> = BTreeSet::new();
    let mut non_virtual_seen: BTreeSet<Symbol> = BTreeSet::new();
    let mut flags = 0;
    // Depth-first, in declaration order, as Clang walks them.
    let mut stack: Vec<ehir_core::TypeInfoBase> = ctx
        .typeinfo(symbol)
        .map(|d| d.bases.iter().rev().copied().collect())
        .unwrap_or_default();
    let mut steps = 0usize;
    while let Some(base) = stack.pop() {
        steps += 1;
        if steps > 100_000 {
            // A cyclic hierarchy is malformed; do not loop forever over it.
            break;
        }
        if base.is_virtual {
            if !virtual_seen.insert(base.symbol) {
                flags |= DIAMOND_SHAPED;
            } else if non_virtual_seen.contains(&base.symbol) {
                flags |= NON_DIAMOND_REPEAT;
            }
        } else if !non_virtual_seen.insert(base.symbol) || virtual_seen.contains(&base.symbol) {
            flags |= NON_DIAMOND_REPEAT;
        }
        if let Some(d) = ctx.typeinfo(base.symbol) {
            stack.extend(d.bases.iter().rev().copied());
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_pointer_symbols_split_into_class_and_member() {
        let parts = |s: &str| member_pointer_parts(s);
        assert_eq!(
            parts("_ZTIM1Ai"),
            Some((0, "_ZTIi".to_string(), "_ZTI1A".to_string()))
        );
        assert_eq!(
            parts("_ZTIM5PointKd"),
            Some((POINTEE_CONST, "_ZTId".to_string(), "_ZTI5Point".to_string()))
        );
        assert_eq!(
            parts("_ZTIMN2ns1AEPc"),
            Some((0, "_ZTIPc".to_string(), "_ZTIN2ns1AE".to_string()))
        );
        assert_eq!(
            parts("_ZTIMSt9exceptioni"),
            Some((0, "_ZTIi".to_string(), "_ZTISt9exception".to_string()))
        );
        assert_eq!(parts("_ZTIM1A"), None);
        assert_eq!(parts("_ZTIPi"), None);
    }
}
