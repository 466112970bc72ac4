//! Constant rules: an attribute that initialises a global or is the value of a `cir.const`
//! must be one the LLVM emitter can write for that type. Integers fit their type (the
//! range the reader accepts), strings and byte arrays fit their `!cir.array<!s8i x N>`,
//! element lists fit their array or have one element per field of a complete struct,
//! `trailing_zeros` arrays initialize arrays, record constants (`#cir.const_record`,
//! `#cir.typeinfo`) initialize a complete struct with one field of the field's type each, a
//! `#cir.global_view` with indices indexes into a global of the module, and every element
//! obeys the same rules for its own type.

use crate::attrs::{AttrData, ConstArrayElements};
use crate::entities::{Attr, Type};
use crate::module::{Module, ModuleCtx, RecordKind};
use crate::types::TypeData;
use crate::types::int_range;
use cranelift_entity::EntityRef;

/// Why the attribute `attr` cannot be a constant of type `ty`, or `None` when it can.
/// Symbols are resolved only when `module` is given. Walks nested element lists with an
/// explicit stack.
pub(crate) fn constant_misfit(
    ctx: &ModuleCtx,
    module: Option<&Module>,
    attr: Attr,
    ty: Type,
) -> Option<String> {
    // The elements still to check; the top-level pair is checked first, so a scalar
    // constant allocates nothing.
    let mut stack = Vec::new();
    let mut next = Some((attr, ty));
    while let Some((a, t)) = next.take().or_else(|| stack.pop()) {
        if a.index() >= ctx.attrs.len() {
            return Some("an element attribute does not exist".into());
        }
        if t.index() >= ctx.types.len() {
            return Some("an element type does not exist".into());
        }
        if let Some(why) = misfit_here(ctx, a, t, &mut stack) {
            return Some(why);
        }
        if let (
            Some(module),
            AttrData::GlobalView {
                symbol, indices, ..
            },
        ) = (module, ctx.attrs.get(a))
            && !indices.is_empty()
            && module.global_by_name(*symbol).is_none()
        {
            return Some(format!(
                "#cir.global_view indexes into @{}, which is not a global of this module",
                ctx.name(*symbol)
            ));
        }
    }
    None
}

/// Checks one attribute against one type and pushes its elements with their types.
fn misfit_here(
    ctx: &ModuleCtx,
    a: Attr,
    t: Type,
    elements: &mut Vec<(Attr, Type)>,
) -> Option<String> {
    let type_text = |t: Type| {
        let mut s = Vec::new();
        let _ = crate::printer::write_type(&mut s, ctx, t);
        String::from_utf8_lossy(&s).into_owned()
    };
    let target = ctx.types.get(t);
    match ctx.attrs.get(a) {
        AttrData::Int { value, ty } => {
            if let Some((width, signed)) = ctx.types.int_info(*ty) {
                let (min, max) = int_range(width, signed);
                if *value < min || *value > max {
                    return Some(format!(
                        "integer {value} does not fit in {} ({min} to {max})",
                        type_text(*ty)
                    ));
                }
            }
            let ok = match target {
                TypeData::Int { .. } | TypeData::Bool | TypeData::Float | TypeData::Double => true,
                TypeData::Ptr(..) => *value == 0,
                _ => false,
            };
            (!ok).then(|| format!("an integer cannot initialize {}", type_text(t)))
        }
        AttrData::Bool(_) => (!matches!(target, TypeData::Bool | TypeData::Int { .. }))
            .then(|| format!("a boolean cannot initialize {}", type_text(t))),
        AttrData::Float { .. } => (!matches!(target, TypeData::Float | TypeData::Double))
            .then(|| format!("a float cannot initialize {}", type_text(t))),
        AttrData::Str(bytes)
        | AttrData::ConstArray {
            elements: ConstArrayElements::Bytes(bytes),
            ..
        } => match target {
            TypeData::Array(e, n)
                if matches!(ctx.types.get(*e), TypeData::Int { width: 8, .. }) =>
            {
                (bytes.len() as u64 > *n).then(|| {
                    format!(
                        "a string of {} bytes does not fit in {}",
                        bytes.len(),
                        type_text(t)
                    )
                })
            }
            _ => Some(format!("a string cannot initialize {}", type_text(t))),
        },
        AttrData::ConstRecord { fields, .. } => {
            if !matches!(target, TypeData::Record(_)) {
                return Some(format!(
                    "a record constant cannot initialize {}",
                    type_text(t)
                ));
            }
            let field_types = match struct_field_types(ctx, t, fields.len(), &type_text) {
                Ok(types) => types,
                Err(why) => return Some(why),
            };
            // Upstream's record constants type every field: the type must be the field's.
            for (index, (&field, &field_ty)) in fields.iter().zip(field_types).enumerate() {
                // `data.ty` gives a boolean the field's type: `misfit_here` checks it.
                let own = ctx.attrs.get(field).ty(field_ty);
                if let Some(own) = own
                    && own != field_ty
                {
                    return Some(format!(
                        "field {index} of the constant has type {}, but {} has {} there",
                        type_text(own),
                        type_text(t),
                        type_text(field_ty)
                    ));
                }
            }
            elements.extend(fields.iter().copied().zip(field_types.iter().copied()));
            None
        }
        AttrData::ConstArray {
            elements: ConstArrayElements::Attrs(_),
            trailing_zeros,
            ..
        } if *trailing_zeros && !matches!(target, TypeData::Array(..)) => Some(format!(
            "a constant with trailing zeros cannot initialize {}",
            type_text(t)
        )),
        AttrData::ConstArray {
            elements: ConstArrayElements::Attrs(items),
            ..
        }
        | AttrData::List(items) => match target {
            TypeData::Array(e, n) => {
                if items.len() as u64 > *n {
                    return Some(format!(
                        "{} elements do not fit in {}",
                        items.len(),
                        type_text(t)
                    ));
                }
                elements.extend(items.iter().map(|&x| (x, *e)));
                None
            }
            TypeData::Record(_) => {
                let fields = match struct_field_types(ctx, t, items.len(), &type_text) {
                    Ok(types) => types,
                    Err(why) => return Some(why),
                };
                elements.extend(items.iter().copied().zip(fields.iter().copied()));
                None
            }
            _ => Some(format!("a list cannot initialize {}", type_text(t))),
        },
        AttrData::Null(_)
        | AttrData::IntPtr { .. }
        | AttrData::GlobalView { .. }
        | AttrData::Zero(_)
        | AttrData::Undef(_) => None,
    }
}

/// The field types of the complete struct or class `t`, which a constant of `count`
/// fields initializes, or why it cannot.
fn struct_field_types<'a>(
    ctx: &'a ModuleCtx,
    t: Type,
    count: usize,
    type_text: &dyn Fn(Type) -> String,
) -> Result<&'a [Type], String> {
    let fields = match ctx.types.get(t) {
        TypeData::Record(alias) => ctx.record(*alias).and_then(|d| {
            (d.kind != RecordKind::Union)
                .then_some(d.fields.as_deref())
                .flatten()
        }),
        _ => None,
    };
    let Some(fields) = fields else {
        return Err(format!(
            "{} is a union or incomplete and cannot have a constant",
            type_text(t)
        ));
    };
    if count != fields.len() {
        return Err(format!(
            "{} has {} fields but the constant has {}",
            type_text(t),
            fields.len(),
            count
        ));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use crate::types::int_range;

    #[test]
    fn ranges_of_common_widths() {
        assert_eq!(int_range(8, true), (-128, 127));
        assert_eq!(int_range(8, false), (0, 255));
        assert_eq!(int_range(32, true), (-(1 << 31), (1 << 31) - 1));
        assert_eq!(int_range(64, false), (0, u64::MAX as i128));
        assert_eq!(int_range(128, true), (i128::MIN, i128::MAX));
    }
}
