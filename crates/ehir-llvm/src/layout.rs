//! Sizes and alignments of CIR types under the x86-64 System V rules (what g++ uses), for
//! the few places the emitter needs them itself: union bodies and typeinfo offsets.
//! Ordinary records are left to LLVM's data layout, which follows the same rules.

use ehir_core::{ModuleCtx, RecordKind, Type, TypeData};

/// Size and alignment in bytes, or why the type has none.
pub fn size_align(ctx: &ModuleCtx, t: Type) -> Result<(u64, u64), String> {
    let mut walk = Walk::default();
    size_align_inner(ctx, t, &mut walk)
}

/// The state of one layout computation: the records being laid out (to catch a record
/// that contains itself) and those already done (so that records sharing sub-records
/// cost linear, not exponential, time).
#[derive(Default)]
struct Walk {
    visiting: Vec<Type>,
    done: std::collections::HashMap<Type, (u64, u64)>,
}

fn size_align_inner(ctx: &ModuleCtx, t: Type, walk: &mut Walk) -> Result<(u64, u64), String> {
    stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || match ctx.types.get(t) {
        TypeData::Int { width, .. } => {
            let bytes = (u64::from(*width)).div_ceil(8).max(1);
            Ok((bytes, bytes.min(16)))
        }
        TypeData::Bool => Ok((1, 1)),
        TypeData::Float => Ok((4, 4)),
        TypeData::Double => Ok((8, 8)),
        TypeData::Ptr(_) => Ok((8, 8)),
        TypeData::Array(e, n) => {
            let (s, a) = size_align_inner(ctx, *e, walk)?;
            let size = s
                .checked_mul(*n)
                .ok_or_else(|| "array is too large".to_string())?;
            Ok((size, a))
        }
        TypeData::Record(alias) => {
            let name = ctx.name(*alias).to_string();
            let decl = ctx
                .record(*alias)
                .ok_or_else(|| format!("record !{name} is incomplete"))?;
            let fields = decl
                .fields
                .as_ref()
                .ok_or_else(|| format!("record !{name} is incomplete"))?;
            if let Some(&known) = walk.done.get(&t) {
                return Ok(known);
            }
            if walk.visiting.contains(&t) {
                return Err(format!("record !{name} contains itself"));
            }
            walk.visiting.push(t);
            let too_large = || format!("record !{name} is too large");
            let mut size = 0u64;
            let mut align = 1u64;
            for &f in fields {
                let (fs, fa) = size_align_inner(ctx, f, walk)?;
                align = align.max(fa);
                if decl.kind == RecordKind::Union {
                    size = size.max(fs);
                } else {
                    size = size
                        .checked_next_multiple_of(fa)
                        .and_then(|s| s.checked_add(fs))
                        .ok_or_else(too_large)?;
                }
            }
            walk.visiting.pop();
            // An empty class still occupies one byte.
            let size = size
                .max(1)
                .checked_next_multiple_of(align)
                .ok_or_else(too_large)?;
            walk.done.insert(t, (size, align));
            Ok((size, align))
        }
        TypeData::Void => Err("!void has no size".into()),
        TypeData::Func { .. } => Err("a function type has no size".into()),
        TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken => {
            Err("an EH token has no size".into())
        }
    })
}
