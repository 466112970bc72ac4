//! The x86-64 System V classification of records passed or returned by value (psABI
//! §3.2.3, as g++ and clang implement it), for the `by_value` / `by_value_result`
//! parameters of CIR function types.
//!
//! A record without data (empty classes, records of empty records, arrays of them) is not
//! passed at all. Otherwise a record larger than 16 bytes (or with a misaligned field) is
//! passed in memory (`byval`) and returned through a hidden pointer (`sret`). A smaller
//! record is split into eightbytes: an eightbyte holding an integer, a pointer or a bool is
//! INTEGER (a general-purpose register), one holding only floats and doubles is SSE (an
//! XMM register), one holding no data (padding, empty records) is not passed. The LLVM
//! type of each eightbyte follows clang: `ptr` or `i64` when a pointer or 64-bit integer
//! fills it, a smaller integer when that is all its data, else `iN` up to the record's
//! end; `double`, `<2 x float>` or `float` for SSE.
//!
//! CIR records use natural layout (the C++ front end writes the bytes that hold no data
//! as empty records), so the offsets here are those of g++'s layout.

use crate::ir::Ty;
use crate::layout::size_align;
use ehir_core::abi::TypeLayouter;
use ehir_core::{ModuleCtx, Type, TypeData};
use std::collections::BTreeSet;

/// The register class of an eightbyte.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum RegClass {
    /// A general-purpose register (`rdi`, `rax`, ...).
    Integer,
    /// A vector register (`xmm0`, ...), for floating-point data.
    Sse,
}

/// One register's worth of a record: the eightbyte at `offset` as LLVM type `ty`.
#[derive(Clone, PartialEq, Debug)]
pub struct Part {
    /// Byte offset of the eightbyte in the record (0 or 8).
    pub offset: u64,
    /// The LLVM type that carries it (`i64`, `double`, `{ float, float }`...).
    pub ty: Ty,
    /// The register class it goes in.
    pub class: RegClass,
}

/// How a record crosses a call.
#[derive(Clone, PartialEq, Debug)]
pub enum Passing {
    /// It holds no data: nothing is passed or returned.
    Ignore,
    /// In registers, one [`Part`] per eightbyte that holds data (one or two).
    Registers(Vec<Part>),
    /// In memory: `byval` for an argument, `sret` for a result. `align` is the record's.
    Memory {
        /// The record's alignment in bytes.
        align: u64,
    },
}

impl Passing {
    /// General-purpose and SSE registers an argument passed this way needs.
    pub fn registers_needed(&self) -> (u32, u32) {
        match self {
            Passing::Registers(parts) => parts.iter().fold((0, 0), |(i, s), p| match p.class {
                RegClass::Integer => (i + 1, s),
                RegClass::Sse => (i, s + 1),
            }),
            _ => (0, 0),
        }
    }
}

/// A scalar of the record at a byte offset.
#[derive(Copy, Clone, Debug)]
struct Leaf {
    offset: u64,
    size: u64,
    kind: LeafKind,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum LeafKind {
    /// An integer of this many bits (bools are 8).
    Int(u32),
    Ptr,
    Float,
    Double,
}

/// Classifies record type `t` for passing by value.
pub fn classify(ctx: &ModuleCtx, t: Type) -> Result<Passing, String> {
    if !matches!(ctx.types.get(t), TypeData::Record(_)) {
        return Err("only records are passed by value this way".into());
    }
    let (size, align) = size_align(ctx, t)?;
    if is_empty(ctx, t)? {
        return Ok(Passing::Ignore);
    }
    if size > 16 {
        return Ok(Passing::Memory { align });
    }
    let Some(leaves) = leaves(ctx, t)? else {
        return Ok(Passing::Memory { align });
    };
    let eightbytes = size.div_ceil(8) as usize;
    let mut classes: Vec<Option<RegClass>> = vec![None; eightbytes];
    for l in &leaves {
        let class = match l.kind {
            LeafKind::Int(_) | LeafKind::Ptr => RegClass::Integer,
            LeafKind::Float | LeafKind::Double => RegClass::Sse,
        };
        let first = (l.offset / 8) as usize;
        let last = ((l.offset + l.size - 1) / 8) as usize;
        for c in classes.iter_mut().take(last + 1).skip(first) {
            // INTEGER wins over SSE; no class yields to either.
            *c = match (*c, class) {
                (Some(RegClass::Integer), _) | (_, RegClass::Integer) => Some(RegClass::Integer),
                _ => Some(RegClass::Sse),
            };
        }
    }
    let mut parts = Vec::new();
    for (i, class) in classes.iter().enumerate() {
        let Some(class) = *class else { continue };
        let start = i as u64 * 8;
        let ty = match class {
            RegClass::Integer => integer_part(&leaves, start, size),
            RegClass::Sse => sse_part(&leaves, start),
        };
        parts.push(Part {
            offset: start,
            ty,
            class,
        });
    }
    if parts.is_empty() {
        return Ok(Passing::Ignore);
    }
    Ok(Passing::Registers(parts))
}

/// Whether any leaf holds data in bytes `[from, to)`.
fn has_data(leaves: &[Leaf], from: u64, to: u64) -> bool {
    leaves
        .iter()
        .any(|l| l.offset < to && l.offset + l.size > from)
}

/// clang's `GetINTEGERTypeAtOffset`: the scalar that starts the eightbyte when it fills it
/// (or is all its data), else an integer as wide as the rest of the record (at most 64
/// bits).
fn integer_part(leaves: &[Leaf], start: u64, size: u64) -> Ty {
    if let Some(l) = leaves.iter().find(|l| l.offset == start) {
        match l.kind {
            LeafKind::Ptr => return Ty::Ptr,
            LeafKind::Int(64) => return Ty::i64(),
            LeafKind::Int(bits @ (8 | 16 | 32))
                if !has_data(leaves, start + u64::from(bits) / 8, start + 8) =>
            {
                return Ty::Int(bits);
            }
            _ => {}
        }
    }
    Ty::Int(((size - start).min(8) * 8) as u32)
}

/// clang's `GetSSETypeAtOffset`: `float` when the upper half holds no data,
/// `<2 x float>` for two floats, else `double`.
fn sse_part(leaves: &[Leaf], start: u64) -> Ty {
    if !has_data(leaves, start + 4, start + 8) {
        return Ty::Float;
    }
    let float_at = |o: u64| {
        leaves
            .iter()
            .any(|l| l.offset == o && l.kind == LeafKind::Float)
    };
    if float_at(start) && float_at(start + 4) {
        return Ty::Vector(2, Box::new(Ty::Float));
    }
    Ty::Double
}

/// Whether values of `t` hold no data: records whose fields hold none (an empty record
/// included), arrays of such records or of length 0.
fn is_empty(ctx: &ModuleCtx, t: Type) -> Result<bool, String> {
    // Explicit stack (records nest); each type is looked at once, so records shared by
    // many fields cost nothing more.
    let mut stack = vec![t];
    let mut seen = BTreeSet::new();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match ctx.types.get(t) {
            TypeData::Record(alias) => {
                let fields = ctx
                    .record(*alias)
                    .and_then(|r| r.fields.as_ref())
                    .ok_or_else(|| format!("record !{} is incomplete", ctx.name(*alias)))?;
                stack.extend(fields.iter().copied());
            }
            TypeData::Array(_, 0) => {}
            TypeData::Array(e, _) => stack.push(*e),
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// The scalars of a record of at most 16 bytes with their offsets, or `None` when one is
/// misaligned (the record then goes to memory).
fn leaves(ctx: &ModuleCtx, t: Type) -> Result<Option<Vec<Leaf>>, String> {
    let mut out = Vec::new();
    // (type, offset); the size bound (16 bytes, checked by the caller) keeps arrays short,
    // except arrays of empty records, which hold no leaves and are skipped.
    let mut stack = vec![(t, 0u64)];
    while let Some((t, offset)) = stack.pop() {
        let (size, align) = size_align(ctx, t)?;
        if offset % align != 0 {
            return Ok(None);
        }
        let kind = match ctx.types.get(t) {
            TypeData::Int { width, .. } => LeafKind::Int(u32::from(*width).max(8)),
            TypeData::Bool => LeafKind::Int(8),
            TypeData::Ptr(..) => LeafKind::Ptr,
            TypeData::Float => LeafKind::Float,
            TypeData::Double => LeafKind::Double,
            TypeData::Array(e, n) => {
                if !is_empty(ctx, *e)? {
                    let (es, _) = size_align(ctx, *e)?;
                    for i in 0..*n {
                        stack.push((*e, offset + i * es));
                    }
                }
                continue;
            }
            TypeData::Record(_) => {
                let fields = TypeLayouter::strict()
                    .field_offsets(ctx, t)
                    .map_err(|error| error.to_string())?;
                for (field_offset, field) in fields {
                    stack.push((field, offset + field_offset));
                }
                continue;
            }
            _ => {
                return Err(format!(
                    "{} cannot be part of a record passed by value",
                    crate::emit::type_text(ctx, t)
                ));
            }
        };
        out.push(Leaf { offset, size, kind });
    }
    out.sort_by_key(|l| l.offset);
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ehir_core::{Module, RecordDecl, RecordKind};

    fn record(m: &mut Module, name: &str, kind: RecordKind, fields: Vec<Type>) -> Type {
        let alias = m.ctx.sym(&format!("rec_{name}"));
        let n = m.ctx.sym(name);
        m.ctx.declare_record(RecordDecl {
            alias,
            kind,
            name: n,
            fields: Some(fields),
            loc: ehir_core::Loc::NONE,
        });
        m.ctx.types.record(alias)
    }

    fn regs(parts: &[(u64, Ty, RegClass)]) -> Passing {
        Passing::Registers(
            parts
                .iter()
                .map(|(offset, ty, class)| Part {
                    offset: *offset,
                    ty: ty.clone(),
                    class: *class,
                })
                .collect(),
        )
    }

    #[test]
    fn classifies_like_gxx() {
        use RegClass::{Integer, Sse};
        let mut m = Module::new();
        let c = *m.ctx.types.common();
        let s = RecordKind::Struct;
        let empty = record(&mut m, "E", s, vec![]);
        let ii = record(&mut m, "II", s, vec![c.s32, c.s32]);
        assert_eq!(classify(&m.ctx, ii), Ok(regs(&[(0, Ty::i64(), Integer)])));
        let id = record(&mut m, "ID", s, vec![c.s32, c.double]);
        assert_eq!(
            classify(&m.ctx, id),
            Ok(regs(&[(0, Ty::i32(), Integer), (8, Ty::Double, Sse)]))
        );
        let dd = record(&mut m, "DD", s, vec![c.double, c.double]);
        assert_eq!(
            classify(&m.ctx, dd),
            Ok(regs(&[(0, Ty::Double, Sse), (8, Ty::Double, Sse)]))
        );
        let fff = record(&mut m, "FFF", s, vec![c.float, c.float, c.float]);
        assert_eq!(
            classify(&m.ctx, fff),
            Ok(regs(&[
                (0, Ty::Vector(2, Box::new(Ty::Float)), Sse),
                (8, Ty::Float, Sse)
            ]))
        );
        let fi = record(&mut m, "FI", s, vec![c.float, c.s32]);
        assert_eq!(classify(&m.ctx, fi), Ok(regs(&[(0, Ty::i64(), Integer)])));
        let chars = m.ctx.types.array(c.s8, 3);
        let c3 = record(&mut m, "C3", s, vec![chars]);
        assert_eq!(classify(&m.ctx, c3), Ok(regs(&[(0, Ty::Int(24), Integer)])));
        let di = record(&mut m, "DI", s, vec![c.double, c.s32]);
        assert_eq!(
            classify(&m.ctx, di),
            Ok(regs(&[(0, Ty::Double, Sse), (8, Ty::i32(), Integer)]))
        );
        let lll = record(&mut m, "LLL", s, vec![c.s64, c.s64, c.s64]);
        assert_eq!(classify(&m.ctx, lll), Ok(Passing::Memory { align: 8 }));
        assert_eq!(classify(&m.ctx, empty), Ok(Passing::Ignore));
        // An empty member is no data: {E e; float f;} is SSE, as g++ passes it.
        let ef = record(&mut m, "EF", s, vec![empty, c.float]);
        assert_eq!(classify(&m.ctx, ef), Ok(regs(&[(0, Ty::Double, Sse)])));
        let e8 = m.ctx.types.array(empty, 8);
        let ei = record(&mut m, "E8I", s, vec![e8, c.s32]);
        assert_eq!(classify(&m.ctx, ei), Ok(regs(&[(8, Ty::i32(), Integer)])));
        let e32 = m.ctx.types.array(empty, 32);
        let big_empty = record(&mut m, "BigE", s, vec![e32]);
        assert_eq!(classify(&m.ctx, big_empty), Ok(Passing::Ignore));
        let p = m.ctx.types.ptr(c.s8);
        let pb = record(&mut m, "PB", s, vec![p, c.bool]);
        assert_eq!(
            classify(&m.ctx, pb),
            Ok(regs(&[(0, Ty::Ptr, Integer), (8, Ty::i8(), Integer)]))
        );
        let u = record(&mut m, "U", RecordKind::Union, vec![c.float, c.s32]);
        assert_eq!(classify(&m.ctx, u), Ok(regs(&[(0, Ty::i32(), Integer)])));
        let nested = record(&mut m, "N", s, vec![ii, c.double]);
        assert_eq!(
            classify(&m.ctx, nested),
            Ok(regs(&[(0, Ty::i64(), Integer), (8, Ty::Double, Sse)]))
        );
        let i128t = m.ctx.types.int(128, true);
        let wide = record(&mut m, "W", s, vec![i128t]);
        assert_eq!(
            classify(&m.ctx, wide),
            Ok(regs(&[(0, Ty::i64(), Integer), (8, Ty::i64(), Integer)]))
        );
    }
}
