//! Sizes and field offsets of CIR types, and how a value of each type is held in a
//! register (its scalar class), precomputed once per module.
//!
//! Layout follows `ehir_core::abi::layout` (the x86-64 System V rules the Itanium ABI
//! uses, shared with the LLVM emitter). Types that have no layout there get a nominal one
//! here: an opaque (undeclared or `incomplete`) record [`OPAQUE_RECORD_SIZE`] bytes,
//! `!void` and function types one byte, EH tokens eight.

use ehir_core::abi::layout::{LayoutError, SizeAlign, TypeLayouter};
use ehir_core::{ModuleCtx, Symbol, Type, TypeData};
use std::collections::HashMap;

/// The nominal size (and alignment) of a record whose fields are unknown.
pub const OPAQUE_RECORD_SIZE: u64 = 8;

/// How a value of a type lives in a 64-bit register.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Scalar {
    /// An integer of `width` bits, kept sign- or zero-extended to 64 bits.
    Int {
        width: u16,
        signed: bool,
    },
    Bool,
    F32,
    F64,
    Ptr,
    /// `!cir.eh_token`, `!cir.cleanup_token`, `!cir.catch_token`.
    Token,
    /// Records and arrays: the register holds an index into the machine's aggregate pool.
    Aggregate,
    Void,
    /// Function types (only ever behind pointers).
    Func,
}

/// The layout of one type.
#[derive(Copy, Clone, Debug)]
pub struct TypeLayout {
    /// Size in bytes.
    pub size: u64,
    /// How a value is held in a register.
    pub scalar: Scalar,
}

/// Layouts of every interned type of a module, plus record field offsets.
pub struct Layouts {
    types: Vec<TypeLayout>,
    /// Field offsets per record alias.
    fields: HashMap<Symbol, Vec<(u64, Type)>>,
}

/// The nominal layouts of types that have none (see the module documentation): `!void`
/// and function types one byte, EH tokens a register, opaque records
/// [`OPAQUE_RECORD_SIZE`] bytes, types too large for 64 bits the largest size.
fn nominal_layout(error: &LayoutError) -> Option<SizeAlign> {
    Some(match error {
        LayoutError::Void | LayoutError::Function => SizeAlign::new(1, 1),
        LayoutError::Token => SizeAlign::new(8, 8),
        LayoutError::Incomplete(_) | LayoutError::ContainsItself(_) => {
            SizeAlign::new(OPAQUE_RECORD_SIZE, OPAQUE_RECORD_SIZE)
        }
        LayoutError::RecordTooLarge(_) | LayoutError::ArrayTooLarge => SizeAlign::new(u64::MAX, 1),
    })
}

/// How a value of a type is held in a register.
fn scalar_of(data: &TypeData) -> Scalar {
    match *data {
        TypeData::Int { width, signed } => Scalar::Int { width, signed },
        TypeData::Bool => Scalar::Bool,
        TypeData::Float => Scalar::F32,
        TypeData::Double => Scalar::F64,
        TypeData::Void => Scalar::Void,
        TypeData::Ptr(..) => Scalar::Ptr,
        TypeData::Func { .. } => Scalar::Func,
        TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken => Scalar::Token,
        TypeData::Array(..) | TypeData::Record(_) => Scalar::Aggregate,
    }
}

impl Layouts {
    /// Computes the layout of every type interned in `ctx` with the rules of
    /// `ehir_core::abi::layout` (the ones the LLVM emitter uses), giving types without a
    /// layout their nominal one: a record containing itself by value sees itself as an
    /// opaque record instead of recursing forever.
    pub fn new(ctx: &ModuleCtx) -> Layouts {
        let count = ctx.types.len();
        let mut layouts = Layouts {
            types: Vec::with_capacity(count),
            fields: HashMap::new(),
        };
        let mut layouter = TypeLayouter::with_fallback(nominal_layout);
        for index in 0..count {
            let ty = <Type as ehir_core::EntityRef>::new(index);
            let data = ctx.types.get(ty);
            let size_align = layouter
                .size_align(ctx, ty)
                .unwrap_or(SizeAlign::new(OPAQUE_RECORD_SIZE, OPAQUE_RECORD_SIZE));
            if let TypeData::Record(alias) = data
                && let Ok(offsets) = layouter.field_offsets(ctx, ty)
            {
                layouts.fields.insert(*alias, offsets);
            }
            layouts.types.push(TypeLayout {
                size: size_align.size,
                scalar: scalar_of(data),
            });
        }
        layouts
    }

    /// The layout of a type.
    #[inline]
    pub fn get(&self, t: Type) -> TypeLayout {
        self.types[<Type as ehir_core::EntityRef>::index(t)]
    }

    #[inline]
    pub fn size(&self, t: Type) -> u64 {
        self.get(t).size
    }

    /// The byte offset and type of field `index` of a record alias, if known.
    pub fn field(&self, alias: Symbol, index: u32) -> Option<(u64, Type)> {
        self.fields.get(&alias)?.get(index as usize).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ehir_core::EntityRef;

    /// The interpreter lays out every type that has a size exactly as the LLVM emitter
    /// does (both use `ehir_core::abi::layout`), and gives the others their nominal size.
    #[test]
    fn sizes_agree_with_the_emitter() {
        let text = r#"
!rec_Pair = !cir.record<struct "Pair" {!s32i, !cir.ptr<!s8i>}>
!rec_U = !cir.record<union "U" {!s8i, !cir.double, !cir.array<!s8i x 12>}>
!rec_Empty = !cir.record<class "Empty" {}>
!rec_Outer = !cir.record<struct "Outer" {!s8i, !rec_Pair, !cir.array<!rec_U x 3>, !rec_Empty}>
!rec_Opaque = !cir.record<struct "Opaque" incomplete>
!rec_Holder = !cir.record<struct "Holder" {!s8i, !rec_Opaque}>
cir.func @f(%p : !cir.ptr<!rec_Outer>, %q : !cir.ptr<!rec_Holder>) {
  cir.return
}
"#;
        let module = ehir_reader::parse_module("layout.cir", text).expect("parses");
        let ctx = &module.ctx;
        let layouts = Layouts::new(ctx);
        let mut sized = 0;
        for index in 0..ctx.types.len() {
            let ty = Type::new(index);
            match ehir_core::abi::size_align(ctx, ty) {
                Ok(layout) => {
                    sized += 1;
                    assert_eq!(layouts.size(ty), layout.size, "{:?}", ctx.types.get(ty));
                }
                Err(LayoutError::Incomplete(_)) => {
                    if let TypeData::Record(alias) = ctx.types.get(ty)
                        && ctx.name(*alias) == "rec_Holder"
                    {
                        // The opaque field takes its nominal 8 bytes.
                        assert_eq!(layouts.size(ty), 16);
                        assert_eq!(layouts.field(*alias, 1).map(|f| f.0), Some(8));
                    } else {
                        assert_eq!(layouts.size(ty), OPAQUE_RECORD_SIZE);
                    }
                }
                Err(_) => {}
            }
        }
        assert!(sized >= 8, "{sized} sized types");
        let outer = ctx.symbols.lookup("rec_Outer").expect("declared");
        let offsets: Vec<u64> = (0..4)
            .map(|field| layouts.field(outer, field).expect("field").0)
            .collect();
        assert_eq!(offsets, [0, 8, 24, 72]);
        let outer_ty = (0..ctx.types.len())
            .map(Type::new)
            .find(|&ty| matches!(ctx.types.get(ty), TypeData::Record(alias) if *alias == outer))
            .expect("interned");
        assert_eq!(layouts.size(outer_ty), 80);
    }
}
