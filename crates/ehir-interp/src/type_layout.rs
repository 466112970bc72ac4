//! Sizes, alignments and field offsets of CIR types, and how a value of each type is held
//! in a register (its scalar class), precomputed once per module.
//!
//! Layout follows the x86-64 System V rules the Itanium ABI uses: integers, floats and
//! pointers are naturally aligned, records lay their fields out in order with padding,
//! unions overlap their fields, an empty record has size 1. An opaque (undeclared or
//! `incomplete`) record gets a nominal size of [`OPAQUE_RECORD_SIZE`] bytes.

use ehir_core::{ModuleCtx, RecordKind, Symbol, Type, TypeData};
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
    pub size: u64,
    pub align: u64,
    pub scalar: Scalar,
}

/// Layouts of every interned type of a module, plus record field offsets.
pub struct Layouts {
    types: Vec<TypeLayout>,
    /// Field offsets per record alias.
    fields: HashMap<Symbol, Vec<(u64, Type)>>,
}

impl Layouts {
    /// Computes the layout of every type interned in `ctx`. Recursive record types
    /// (a record containing itself by value) are given the opaque size instead of
    /// recursing forever.
    pub fn new(ctx: &ModuleCtx) -> Layouts {
        let count = ctx.types.len();
        let mut layouts = Layouts {
            types: Vec::with_capacity(count),
            fields: HashMap::new(),
        };
        let mut memo: HashMap<Type, TypeLayout> = HashMap::new();
        let mut in_progress: Vec<Symbol> = Vec::new();
        for i in 0..count {
            let t = <Type as ehir_core::EntityRef>::new(i);
            let l = layouts.compute(ctx, t, &mut memo, &mut in_progress, 0);
            layouts.types.push(l);
        }
        layouts
    }

    fn compute(
        &mut self,
        ctx: &ModuleCtx,
        t: Type,
        memo: &mut HashMap<Type, TypeLayout>,
        in_progress: &mut Vec<Symbol>,
        depth: u32,
    ) -> TypeLayout {
        if let Some(&l) = memo.get(&t) {
            return l;
        }
        let opaque = TypeLayout {
            size: OPAQUE_RECORD_SIZE,
            align: OPAQUE_RECORD_SIZE,
            scalar: Scalar::Aggregate,
        };
        // Deeply nested types: beyond this depth the layout is treated as opaque rather
        // than risking the host stack.
        if depth > 200 {
            return opaque;
        }
        let l = match ctx.types.get(t) {
            TypeData::Int { width, signed } => {
                let bytes = (u64::from(*width)).div_ceil(8).max(1);
                TypeLayout {
                    size: bytes,
                    align: bytes.min(16),
                    scalar: Scalar::Int {
                        width: *width,
                        signed: *signed,
                    },
                }
            }
            TypeData::Bool => TypeLayout {
                size: 1,
                align: 1,
                scalar: Scalar::Bool,
            },
            TypeData::Float => TypeLayout {
                size: 4,
                align: 4,
                scalar: Scalar::F32,
            },
            TypeData::Double => TypeLayout {
                size: 8,
                align: 8,
                scalar: Scalar::F64,
            },
            TypeData::Void => TypeLayout {
                size: 1,
                align: 1,
                scalar: Scalar::Void,
            },
            TypeData::Ptr(_) => TypeLayout {
                size: 8,
                align: 8,
                scalar: Scalar::Ptr,
            },
            TypeData::Func { .. } => TypeLayout {
                size: 1,
                align: 1,
                scalar: Scalar::Func,
            },
            TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken => TypeLayout {
                size: 8,
                align: 8,
                scalar: Scalar::Token,
            },
            TypeData::Array(elem, n) => {
                let e = self.compute(ctx, *elem, memo, in_progress, depth + 1);
                TypeLayout {
                    size: e.size.saturating_mul(*n),
                    align: e.align,
                    scalar: Scalar::Aggregate,
                }
            }
            TypeData::Record(alias) => {
                let alias = *alias;
                match ctx
                    .record(alias)
                    .and_then(|r| r.fields.clone().map(|f| (r.kind, f)))
                {
                    None => opaque,
                    Some(_) if in_progress.contains(&alias) => opaque,
                    Some((kind, fields)) => {
                        in_progress.push(alias);
                        let mut offset = 0u64;
                        let mut size = 0u64;
                        let mut align = 1u64;
                        let mut offsets = Vec::with_capacity(fields.len());
                        for f in fields {
                            let fl = self.compute(ctx, f, memo, in_progress, depth + 1);
                            align = align.max(fl.align);
                            if kind == RecordKind::Union {
                                offsets.push((0, f));
                                size = size.max(fl.size);
                            } else {
                                offset = offset.next_multiple_of(fl.align.max(1));
                                offsets.push((offset, f));
                                offset = offset.saturating_add(fl.size);
                                size = offset;
                            }
                        }
                        in_progress.pop();
                        self.fields.insert(alias, offsets);
                        TypeLayout {
                            size: size.max(1).next_multiple_of(align),
                            align,
                            scalar: Scalar::Aggregate,
                        }
                    }
                }
            }
        };
        memo.insert(t, l);
        l
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
