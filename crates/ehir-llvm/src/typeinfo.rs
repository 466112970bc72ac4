//! Typeinfo objects of the Itanium C++ ABI, built from `cir.typeinfo` items. A class:
//! no base → `__class_type_info`, one public base at offset 0 → `__si_class_type_info`,
//! anything else → `__vmi_class_type_info` (flags, base count, then per base its typeinfo
//! and `offset << 8 | 2` for "public"). A pointer (`_ZTIP4Node : !cir.ptr<!rec_Node>`) →
//! `__pointer_type_info` (qualifier flags of the pointee, `1` for `const`, then the
//! pointee's typeinfo). Each object's second word points at its `_ZTS`
//! name string; the first points 16 bytes into libstdc++'s vtable for the class kind.
//! Objects and names are `linkonce_odr` in comdats named after them, as g++ emits them,
//! so the same class's typeinfo from g++-compiled code merges with ours at link time.

use crate::ir::{Global, Operand, Ty};
use ehir_core::{ModuleCtx, Symbol, TypeData, TypeInfoDecl};
use std::collections::BTreeMap;

const CLASS_VTABLE: &str = "_ZTVN10__cxxabiv117__class_type_infoE";
const SI_CLASS_VTABLE: &str = "_ZTVN10__cxxabiv120__si_class_type_infoE";
const VMI_CLASS_VTABLE: &str = "_ZTVN10__cxxabiv121__vmi_class_type_infoE";
const POINTER_VTABLE: &str = "_ZTVN10__cxxabiv119__pointer_type_infoE";

/// `__pbase_type_info` flags: the pointee is `const`, `volatile`, `restrict`.
const POINTEE_CONST: i128 = 0x1;
const POINTEE_VOLATILE: i128 = 0x2;
const POINTEE_RESTRICT: i128 = 0x4;

/// `__vmi_class_type_info::__non_diamond_repeat_mask`: a base class occurs twice.
const NON_DIAMOND_REPEAT: i128 = 0x1;
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
    let is_pointer = matches!(ctx.types.get(decl.ty), TypeData::Ptr(_));
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
        [(base, 0)] => (
            SI_CLASS_VTABLE,
            vec![
                (Ty::Ptr, vtable_ptr(SI_CLASS_VTABLE)),
                (Ty::Ptr, name_ptr),
                (Ty::Ptr, Operand::Global(ctx.name(*base).to_string())),
            ],
        ),
        bases => {
            let flags = if has_repeated_base(ctx, decl.symbol) {
                NON_DIAMOND_REPEAT
            } else {
                0
            };
            let mut fields = vec![
                (Ty::Ptr, vtable_ptr(VMI_CLASS_VTABLE)),
                (Ty::Ptr, name_ptr),
                (Ty::i32(), Operand::Int(flags)),
                (Ty::i32(), Operand::Int(bases.len() as i128)),
            ];
            for &(base, offset) in bases {
                let offset = i128::from(offset);
                if offset > (i64::MAX >> 8) as i128 {
                    return Err(format!("base offset {offset} is too large"));
                }
                fields.push((Ty::Ptr, Operand::Global(ctx.name(base).to_string())));
                fields.push((Ty::i64(), Operand::Int((offset << 8) | PUBLIC_BASE)));
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
            .map(|&(b, _)| ctx.name(b).to_string())
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
    let mut rest = symbol.strip_prefix("_ZTIP")?;
    let mut flags = 0;
    loop {
        let flag = match rest.as_bytes().first()? {
            b'r' => POINTEE_RESTRICT,
            b'V' => POINTEE_VOLATILE,
            b'K' => POINTEE_CONST,
            _ => break,
        };
        flags |= flag;
        rest = &rest[1..];
    }
    if rest.is_empty() {
        return None;
    }
    Some((flags, format!("_ZTI{rest}")))
}

/// Whether some class occurs more than once among the (transitive) bases of `symbol`,
/// following the module's `cir.typeinfo` items.
fn has_repeated_base(ctx: &ModuleCtx, symbol: Symbol) -> bool {
    let mut seen: BTreeMap<Symbol, u32> = BTreeMap::new();
    let mut stack = vec![symbol];
    let mut steps = 0usize;
    while let Some(s) = stack.pop() {
        steps += 1;
        if steps > 100_000 {
            // A cyclic hierarchy is malformed; do not loop forever over it.
            return false;
        }
        if let Some(d) = ctx.typeinfo(s) {
            for &(b, _) in &d.bases {
                *seen.entry(b).or_default() += 1;
                stack.push(b);
            }
        }
    }
    seen.values().any(|&n| n > 1)
}
