//! Attributes: the constant payloads of ops (`#cir.int<N> : T`, `#true`, `#cir.global_view<@sym>`,
//! strings, arrays, records), interned per module.

use crate::entities::{Attr, Symbol, Type};
use crate::interner::Interner;

/// The structure of an attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrData {
    /// `#cir.int<N> : T`. The value is kept sign- or zero-extended to 128 bits.
    Int {
        /// The value, sign- or zero-extended from the width of `ty`.
        value: i128,
        /// An integer type.
        ty: Type,
    },
    /// `#true` / `#false` (type `!cir.bool`).
    Bool(bool),
    /// `#cir.fp<1.5> : T` with the value's IEEE bits as an `f64`.
    Float {
        /// The value as IEEE-754 double bits (`f64::to_bits`), also for `!cir.float`.
        bits: u64,
        /// `!cir.float` or `!cir.double`.
        ty: Type,
    },
    /// `#cir.ptr<null> : T`
    Null(Type),
    /// `#cir.ptr<N : i64> : T`: a pointer whose bits are the integer `N` (the offsets in
    /// a vtable, before its address point, are such pointers).
    IntPtr {
        /// The integer value of the pointer.
        value: i64,
        /// A pointer type.
        ty: Type,
    },
    /// `#cir.global_view<@sym[, [i, j]]> [: T]`: the address of a global (or typeinfo object).
    GlobalView {
        /// The global, function or typeinfo object.
        symbol: Symbol,
        /// Element indices into the global (`[0, 2]`: element 2 of an array global);
        /// empty for its start.
        indices: Vec<i64>,
        /// The pointer type written after `:`, if any.
        ty: Option<Type>,
    },
    /// `"text"`: a string; bytes may be any value (escaped as `\XX` in text).
    Str(Vec<u8>),
    /// `#cir.const_array<"bytes" : T> : T` or `#cir.const_array<[a, b]> : T`; with
    /// `, trailing_zeros` after the elements (upstream's spelling of a constant shorter than
    /// its type: `#cir.const_array<"1E" : !cir.array<!s8i x 2>, trailing_zeros> :
    /// !cir.array<!s8i x 3>`). Elements missing at the end are zero either way.
    ConstArray {
        /// The elements: bytes of a string literal, or attributes.
        elements: ConstArrayElements,
        /// The `!cir.array<T x N>` type.
        ty: Type,
        /// Whether the text says `trailing_zeros` (the string's own type is then
        /// `!cir.array<T x len>`, its length, rather than `ty`).
        trailing_zeros: bool,
    },
    /// `#cir.const_record<{a : T, b : U}> : !rec` or, for a typeinfo object's
    /// initializer, `#cir.typeinfo<{...}> : !rec`: one typed attribute per field of a
    /// complete struct or class.
    ConstRecord {
        /// One attribute per field, in field order.
        fields: Vec<Attr>,
        /// The record type.
        ty: Type,
        /// Whether it is spelled `#cir.typeinfo` (a typeinfo object's initializer)
        /// rather than `#cir.const_record`; the two mean the same constant.
        typeinfo: bool,
    },
    /// `#cir.zero : T`
    Zero(Type),
    /// `#cir.undef : T`
    Undef(Type),
    /// `[a, b, ...]`
    List(Vec<Attr>),
}

/// Elements of a constant array.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstArrayElements {
    /// `"bytes"`: one byte per element of an array of 8-bit integers.
    Bytes(Vec<u8>),
    /// `[a, b]`: one attribute per element.
    Attrs(Vec<Attr>),
}

impl AttrData {
    /// The type of a typed attribute (the result type of a `cir.const` of it).
    pub fn ty(&self, bool_ty: Type) -> Option<Type> {
        match self {
            AttrData::Int { ty, .. }
            | AttrData::Float { ty, .. }
            | AttrData::Null(ty)
            | AttrData::IntPtr { ty, .. }
            | AttrData::ConstArray { ty, .. }
            | AttrData::ConstRecord { ty, .. }
            | AttrData::Zero(ty)
            | AttrData::Undef(ty) => Some(*ty),
            AttrData::Bool(_) => Some(bool_ty),
            AttrData::GlobalView { ty, .. } => *ty,
            AttrData::Str(_) | AttrData::List(_) => None,
        }
    }
}

/// The module's attribute interner.
#[derive(Default, Clone, Debug)]
pub struct AttrStore {
    data: Interner<Attr, AttrData>,
}

impl AttrStore {
    /// The attribute with this structure, added if new (equal data, equal [`Attr`]).
    pub fn intern(&mut self, a: AttrData) -> Attr {
        self.data.intern(a)
    }

    /// The structure of an interned attribute.
    pub fn get(&self, a: Attr) -> &AttrData {
        &self.data[a]
    }

    /// Number of interned attributes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether no attribute is interned.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}
