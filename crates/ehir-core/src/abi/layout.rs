//! Size and alignment of CIR types under the x86-64 System V rules that g++ and the
//! Itanium C++ ABI use (and that 64-bit Windows agrees with for the types CIR has):
//! integers, floats and pointers are naturally aligned, records lay their fields out in
//! order with padding, unions overlap their fields, an empty record has size 1.
//!
//! [`size_align`] is the strict form the LLVM emitter uses: `!void`, function types, EH
//! tokens, incomplete records and records that contain themselves have no size. The
//! interpreter gives such types nominal sizes; it does so through a [`TypeLayouter`] with a
//! fallback, so that the rules for every type that has a size are the same for both.
//!
//! The walk uses an explicit stack, so deeply nested types do not recurse on the host.

use crate::{ModuleCtx, RecordKind, Type, TypeData};
use std::collections::{HashMap, HashSet};

/// Size and alignment in bytes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SizeAlign {
    /// Size in bytes (a multiple of `align`).
    pub size: u64,
    /// Alignment in bytes (at least 1).
    pub align: u64,
}

impl SizeAlign {
    /// `size` bytes aligned to `align`.
    pub const fn new(size: u64, align: u64) -> SizeAlign {
        SizeAlign { size, align }
    }
}

/// Why a type has no layout.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum LayoutError {
    /// `!void`.
    #[error("!void has no size")]
    Void,
    /// A function type.
    #[error("a function type has no size")]
    Function,
    /// `!cir.eh_token`, `!cir.cleanup_token`, `!cir.catch_token`.
    #[error("an EH token has no size")]
    Token,
    /// A record whose fields are unknown (undeclared or `incomplete`), by alias.
    #[error("record !{0} is incomplete")]
    Incomplete(String),
    /// A record that contains itself by value, by alias.
    #[error("record !{0} contains itself")]
    ContainsItself(String),
    /// A record whose size does not fit in 64 bits, by alias.
    #[error("record !{0} is too large")]
    RecordTooLarge(String),
    /// An array whose size does not fit in 64 bits.
    #[error("array is too large")]
    ArrayTooLarge,
}

/// Size and alignment of `ty`, or why it has none.
pub fn size_align(ctx: &ModuleCtx, ty: Type) -> Result<SizeAlign, LayoutError> {
    TypeLayouter::strict().size_align(ctx, ty)
}

/// What a layouter does with a type that has no layout: `Some` gives it one.
pub type Fallback = fn(&LayoutError) -> Option<SizeAlign>;

/// Layouts of the types of one module, remembered so that records sharing sub-records are
/// laid out once (linear, not exponential, time), with an optional fallback for types that
/// have no layout.
pub struct TypeLayouter {
    done: HashMap<Type, SizeAlign>,
    fallback: Fallback,
}

/// A record or array whose layout waits for the layout of its element or next field.
struct Pending<'ctx> {
    ty: Type,
    shape: PendingShape<'ctx>,
}

enum PendingShape<'ctx> {
    /// `count` elements.
    Array { count: u64 },
    /// Fields placed so far; `fields[placement.placed]` is the one waited for.
    Record {
        alias_name: &'ctx str,
        fields: &'ctx [Type],
        placement: FieldPlacement,
    },
}

/// Places the fields of one record in order, with the System V padding rules (none in a
/// `packed` record: every field at the next byte, alignment 1, as LLVM's `<{...}>`).
#[derive(Clone, Debug)]
pub struct FieldPlacement {
    kind: RecordKind,
    packed: bool,
    size: u64,
    align: u64,
    placed: usize,
}

impl FieldPlacement {
    /// An empty record of `kind`, `packed` or not (a packed union is laid out as any
    /// union, as the emitter writes it).
    pub fn new(kind: RecordKind, packed: bool) -> FieldPlacement {
        FieldPlacement {
            kind,
            packed: packed && kind != RecordKind::Union,
            size: 0,
            align: 1,
            placed: 0,
        }
    }

    /// Places the next field; returns its offset, or `None` when the record overflows.
    pub fn place(&mut self, field: SizeAlign) -> Option<u64> {
        let field = if self.packed {
            SizeAlign::new(field.size, 1)
        } else {
            field
        };
        self.align = self.align.max(field.align);
        self.placed += 1;
        if self.kind == RecordKind::Union {
            self.size = self.size.max(field.size);
            return Some(0);
        }
        let offset = self.size.checked_next_multiple_of(field.align.max(1))?;
        self.size = offset.checked_add(field.size)?;
        Some(offset)
    }

    /// The record's layout (an empty class still occupies one byte), or `None` when it
    /// overflows.
    pub fn finish(&self) -> Option<SizeAlign> {
        let size = self.size.max(1).checked_next_multiple_of(self.align)?;
        Some(SizeAlign::new(size, self.align))
    }
}

/// The next thing the walk does.
enum Step {
    /// Compute this type's layout.
    Visit(Type),
    /// Hand this layout to the innermost pending type.
    Return(SizeAlign),
}

impl TypeLayouter {
    /// A layouter without fallback: every type without a layout is an error.
    pub fn strict() -> TypeLayouter {
        TypeLayouter::with_fallback(|_| None)
    }

    /// A layouter that asks `fallback` for the layout of a type that has none (and uses
    /// it where that type is an element or field).
    pub fn with_fallback(fallback: Fallback) -> TypeLayouter {
        TypeLayouter {
            done: HashMap::new(),
            fallback,
        }
    }

    /// Size and alignment of `ty`.
    pub fn size_align(&mut self, ctx: &ModuleCtx, ty: Type) -> Result<SizeAlign, LayoutError> {
        self.walk(ctx, ty, None)
    }

    /// The offset and type of every field of record type `record` (all 0 in a union). A
    /// field of the record's own type gets the fallback layout, as inside
    /// [`TypeLayouter::size_align`].
    pub fn field_offsets(
        &mut self,
        ctx: &ModuleCtx,
        record: Type,
    ) -> Result<Vec<(u64, Type)>, LayoutError> {
        let (alias_name, kind, packed, fields) = record_fields(ctx, record)
            .ok_or_else(|| LayoutError::Incomplete(type_name(ctx, record)))?;
        let mut placement = FieldPlacement::new(kind, packed);
        let mut offsets = Vec::with_capacity(fields.len());
        for &field in fields {
            let layout = self.walk(ctx, field, Some(record))?;
            let offset = placement
                .place(layout)
                .ok_or_else(|| LayoutError::RecordTooLarge(alias_name.to_string()))?;
            offsets.push((offset, field));
        }
        Ok(offsets)
    }

    /// `fallback(error)`, or the error.
    fn fall_back(&self, error: LayoutError) -> Result<SizeAlign, LayoutError> {
        (self.fallback)(&error).ok_or(error)
    }

    /// The layout of `root`; `enclosing` (a record type) counts as being laid out.
    fn walk(
        &mut self,
        ctx: &ModuleCtx,
        root: Type,
        enclosing: Option<Type>,
    ) -> Result<SizeAlign, LayoutError> {
        let mut pending: Vec<Pending> = Vec::new();
        // The records among `pending` (and `enclosing`): meeting one again is a cycle.
        let mut records_in_progress: HashSet<Type> = enclosing.into_iter().collect();
        let mut step = Step::Visit(root);
        loop {
            step = match step {
                Step::Visit(ty) => self.visit(ctx, ty, &mut pending, &mut records_in_progress)?,
                Step::Return(layout) => {
                    let Some(top) = pending.last_mut() else {
                        return Ok(layout);
                    };
                    match &mut top.shape {
                        PendingShape::Array { count } => {
                            let size = layout.size.checked_mul(*count);
                            let ty = top.ty;
                            pending.pop();
                            let layout = match size {
                                Some(size) => SizeAlign::new(size, layout.align),
                                None => self.fall_back(LayoutError::ArrayTooLarge)?,
                            };
                            self.done.insert(ty, layout);
                            Step::Return(layout)
                        }
                        PendingShape::Record {
                            alias_name,
                            fields,
                            placement,
                        } => {
                            let placed = placement.place(layout);
                            match fields.get(placement.placed) {
                                Some(&next) if placed.is_some() => Step::Visit(next),
                                _ => {
                                    let finished = placed.and_then(|_| placement.finish());
                                    let alias_name = alias_name.to_string();
                                    let ty = top.ty;
                                    pending.pop();
                                    records_in_progress.remove(&ty);
                                    let layout = match finished {
                                        Some(layout) => layout,
                                        None => {
                                            self.fall_back(LayoutError::RecordTooLarge(alias_name))?
                                        }
                                    };
                                    self.done.insert(ty, layout);
                                    Step::Return(layout)
                                }
                            }
                        }
                    }
                }
            };
        }
    }

    /// Starts computing `ty`: its layout when known at once, else the first element or
    /// field to compute (with `ty` pushed on `pending`).
    fn visit<'ctx>(
        &mut self,
        ctx: &'ctx ModuleCtx,
        ty: Type,
        pending: &mut Vec<Pending<'ctx>>,
        records_in_progress: &mut HashSet<Type>,
    ) -> Result<Step, LayoutError> {
        if let Some(&known) = self.done.get(&ty) {
            return Ok(Step::Return(known));
        }
        let layout = match ctx.types.get(ty) {
            TypeData::Int { width, .. } => {
                let bytes = u64::from(*width).div_ceil(8).max(1);
                SizeAlign::new(bytes, bytes.min(16))
            }
            TypeData::Bool => SizeAlign::new(1, 1),
            TypeData::Float => SizeAlign::new(4, 4),
            TypeData::Double => SizeAlign::new(8, 8),
            TypeData::Ptr(..) => SizeAlign::new(8, 8),
            TypeData::Void => self.fall_back(LayoutError::Void)?,
            TypeData::Func { .. } => self.fall_back(LayoutError::Function)?,
            TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken => {
                self.fall_back(LayoutError::Token)?
            }
            TypeData::Array(element, count) => {
                pending.push(Pending {
                    ty,
                    shape: PendingShape::Array { count: *count },
                });
                return Ok(Step::Visit(*element));
            }
            TypeData::Record(_) => {
                let Some((alias_name, kind, packed, fields)) = record_fields(ctx, ty) else {
                    return self
                        .fall_back(LayoutError::Incomplete(type_name(ctx, ty)))
                        .map(Step::Return);
                };
                if records_in_progress.contains(&ty) {
                    return self
                        .fall_back(LayoutError::ContainsItself(alias_name.to_string()))
                        .map(Step::Return);
                }
                let placement = FieldPlacement::new(kind, packed);
                let Some(&first) = fields.first() else {
                    let layout = placement
                        .finish()
                        .ok_or_else(|| LayoutError::RecordTooLarge(alias_name.to_string()))?;
                    self.done.insert(ty, layout);
                    return Ok(Step::Return(layout));
                };
                records_in_progress.insert(ty);
                pending.push(Pending {
                    ty,
                    shape: PendingShape::Record {
                        alias_name,
                        fields,
                        placement,
                    },
                });
                return Ok(Step::Visit(first));
            }
        };
        Ok(Step::Return(layout))
    }
}

/// The alias, kind and fields of a complete record type.
fn record_fields(ctx: &ModuleCtx, ty: Type) -> Option<(&str, RecordKind, bool, &[Type])> {
    let TypeData::Record(alias) = ctx.types.get(ty) else {
        return None;
    };
    let decl = ctx.record(*alias)?;
    let packed = ctx.packed_records.contains(alias);
    Some((ctx.name(*alias), decl.kind, packed, decl.fields.as_deref()?))
}

/// The alias of a record type, for messages.
fn type_name(ctx: &ModuleCtx, ty: Type) -> String {
    match ctx.types.get(ty) {
        TypeData::Record(alias) => ctx.name(*alias).to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Loc, RecordDecl};

    fn declare(
        ctx: &mut ModuleCtx,
        alias: &str,
        kind: RecordKind,
        fields: Option<Vec<Type>>,
    ) -> Type {
        let alias = ctx.sym(alias);
        ctx.declare_record(RecordDecl {
            alias,
            kind,
            name: alias,
            fields,
            loc: Loc::NONE,
        });
        ctx.types.record(alias)
    }

    #[test]
    fn scalars_arrays_and_records() {
        let mut ctx = ModuleCtx::default();
        let common = *ctx.types.common();
        let s8 = common.s8;
        let s32 = common.s32;
        let s64 = common.s64;
        let i128 = ctx.types.int(128, true);
        let i24 = ctx.types.int(24, false);
        let array = ctx.types.array(s32, 5);
        let pair = declare(
            &mut ctx,
            "pair",
            RecordKind::Struct,
            Some(vec![s8, s64, s8]),
        );
        let union = declare(&mut ctx, "either", RecordKind::Union, Some(vec![s8, array]));
        let empty = declare(&mut ctx, "empty", RecordKind::Class, Some(vec![]));
        let nested = declare(
            &mut ctx,
            "nested",
            RecordKind::Struct,
            Some(vec![s8, pair, union]),
        );
        for (ty, want) in [
            (common.bool, (1, 1)),
            (s32, (4, 4)),
            (common.u64, (8, 8)),
            (common.float, (4, 4)),
            (common.double, (8, 8)),
            (common.void_ptr, (8, 8)),
            (i128, (16, 16)),
            (i24, (3, 3)),
            (array, (20, 4)),
            (pair, (24, 8)),
            (union, (20, 4)),
            (empty, (1, 1)),
            (nested, (56, 8)),
        ] {
            let got = size_align(&ctx, ty).expect("sized");
            assert_eq!((got.size, got.align), want, "{:?}", ctx.types.get(ty));
        }
        let mut layouter = TypeLayouter::strict();
        assert_eq!(
            layouter.field_offsets(&ctx, nested).expect("complete"),
            vec![(0, s8), (8, pair), (32, union)]
        );
        assert_eq!(
            layouter.field_offsets(&ctx, union).expect("complete"),
            vec![(0, s8), (0, array)]
        );
    }

    #[test]
    fn types_without_layout() {
        let mut ctx = ModuleCtx::default();
        let common = *ctx.types.common();
        let opaque = declare(&mut ctx, "opaque", RecordKind::Struct, None);
        let alias = ctx.sym("selfish");
        let selfish_ty = ctx.types.record(alias);
        declare(
            &mut ctx,
            "selfish",
            RecordKind::Struct,
            Some(vec![common.s32, selfish_ty]),
        );
        let huge = ctx.types.array(common.s64, u64::MAX / 4);
        let holder = declare(&mut ctx, "holder", RecordKind::Struct, Some(vec![opaque]));
        let cases = [
            (common.void, "!void has no size"),
            (common.eh_token, "an EH token has no size"),
            (opaque, "record !opaque is incomplete"),
            (holder, "record !opaque is incomplete"),
            (selfish_ty, "record !selfish contains itself"),
            (huge, "array is too large"),
        ];
        for (ty, message) in cases {
            assert_eq!(size_align(&ctx, ty).unwrap_err().to_string(), message);
        }
        // With a fallback, the nominal layouts take part in the enclosing ones.
        let mut layouter = TypeLayouter::with_fallback(|error| match error {
            LayoutError::Incomplete(_) | LayoutError::ContainsItself(_) => {
                Some(SizeAlign::new(8, 8))
            }
            _ => None,
        });
        assert_eq!(layouter.size_align(&ctx, holder), Ok(SizeAlign::new(8, 8)));
        assert_eq!(
            layouter.size_align(&ctx, selfish_ty),
            Ok(SizeAlign::new(16, 8))
        );
        assert_eq!(
            layouter.field_offsets(&ctx, selfish_ty),
            Ok(vec![(0, common.s32), (8, selfish_ty)])
        );
        assert_eq!(
            layouter.size_align(&ctx, common.void),
            Err(LayoutError::Void)
        );
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let mut ctx = ModuleCtx::default();
        let mut ty = ctx.types.common().s8;
        for _ in 0..100_000 {
            ty = ctx.types.array(ty, 1);
        }
        assert_eq!(size_align(&ctx, ty), Ok(SizeAlign::new(1, 1)));
        // Records nested 20,000 deep, each with a padding byte in front.
        let mut ty = ctx.types.common().s8;
        for depth in 0..20_000 {
            let s8 = ctx.types.common().s8;
            ty = declare(
                &mut ctx,
                &format!("level{depth}"),
                RecordKind::Struct,
                Some(vec![s8, ty]),
            );
        }
        assert_eq!(size_align(&ctx, ty), Ok(SizeAlign::new(20_001, 1)));
    }
}
