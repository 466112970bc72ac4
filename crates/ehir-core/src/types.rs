//! CIR types, interned per module: integers, bool, floats, void, pointers, arrays,
//! function types, records and the three EH tokens.

use crate::entities::{Symbol, Type};
use cranelift_entity::PrimaryMap;
use std::collections::HashMap;

/// The structure of a type. Compare [`Type`]s, not `TypeData`, once interned.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// `!s8i`..`!s64i`, `!u8i`..`!u64i` (also `!s128i`/`!u128i`).
    Int { width: u16, signed: bool },
    /// `!cir.bool`
    Bool,
    /// `!cir.float`
    Float,
    /// `!cir.double`
    Double,
    /// `!void`
    Void,
    /// `!cir.ptr<T>`
    Ptr(Type),
    /// `!cir.array<T x N>`
    Array(Type, u64),
    /// `!cir.func<(params) -> ret>`; `ret` is `None` for `void`.
    Func {
        params: Vec<Type>,
        ret: Option<Type>,
        vararg: bool,
    },
    /// `!rec_Name`: the alias name without `!`; its layout lives in the module's
    /// record table (opaque when undeclared).
    Record(Symbol),
    /// `!cir.eh_token`: an exception in flight, from `cir.eh.initiate`.
    EhToken,
    /// `!cir.cleanup_token`: an EH cleanup in progress (`cir.begin_cleanup`, `cir.cleanuppad`).
    CleanupToken,
    /// `!cir.catch_token`: a catch handler in progress (`cir.begin_catch`, `cir.catchpad`).
    CatchToken,
}

/// The module's type interner. Common types are interned up front and have accessors.
#[derive(Clone, Debug)]
pub struct TypeStore {
    data: PrimaryMap<Type, TypeData>,
    index: HashMap<TypeData, Type>,
    common: CommonTypes,
}

/// Types every module has, interned at construction.
#[derive(Clone, Copy, Debug)]
pub struct CommonTypes {
    pub void: Type,
    pub bool: Type,
    pub s8: Type,
    pub s16: Type,
    pub s32: Type,
    pub s64: Type,
    pub u8: Type,
    pub u16: Type,
    pub u32: Type,
    pub u64: Type,
    pub float: Type,
    pub double: Type,
    pub void_ptr: Type,
    pub u8_ptr: Type,
    pub eh_token: Type,
    pub cleanup_token: Type,
    pub catch_token: Type,
}

impl Default for TypeStore {
    fn default() -> Self {
        Self::new()
    }
}

impl TypeStore {
    pub fn new() -> Self {
        let mut data = PrimaryMap::new();
        let mut index = HashMap::new();
        let mut add = |t: TypeData| {
            let id = data.push(t.clone());
            index.insert(t, id);
            id
        };
        let void = add(TypeData::Void);
        let u8 = add(TypeData::Int {
            width: 8,
            signed: false,
        });
        let common = CommonTypes {
            void,
            bool: add(TypeData::Bool),
            s8: add(TypeData::Int {
                width: 8,
                signed: true,
            }),
            s16: add(TypeData::Int {
                width: 16,
                signed: true,
            }),
            s32: add(TypeData::Int {
                width: 32,
                signed: true,
            }),
            s64: add(TypeData::Int {
                width: 64,
                signed: true,
            }),
            u8,
            u16: add(TypeData::Int {
                width: 16,
                signed: false,
            }),
            u32: add(TypeData::Int {
                width: 32,
                signed: false,
            }),
            u64: add(TypeData::Int {
                width: 64,
                signed: false,
            }),
            float: add(TypeData::Float),
            double: add(TypeData::Double),
            void_ptr: add(TypeData::Ptr(void)),
            u8_ptr: add(TypeData::Ptr(u8)),
            eh_token: add(TypeData::EhToken),
            cleanup_token: add(TypeData::CleanupToken),
            catch_token: add(TypeData::CatchToken),
        };
        TypeStore {
            data,
            index,
            common,
        }
    }

    /// Interns a type.
    pub fn intern(&mut self, t: TypeData) -> Type {
        if let Some(&id) = self.index.get(&t) {
            return id;
        }
        let id = self.data.push(t.clone());
        self.index.insert(t, id);
        id
    }

    /// The structure of an interned type.
    pub fn get(&self, t: Type) -> &TypeData {
        &self.data[t]
    }

    /// The types interned at construction.
    pub fn common(&self) -> &CommonTypes {
        &self.common
    }

    pub fn ptr(&mut self, pointee: Type) -> Type {
        self.intern(TypeData::Ptr(pointee))
    }

    pub fn array(&mut self, element: Type, len: u64) -> Type {
        self.intern(TypeData::Array(element, len))
    }

    pub fn int(&mut self, width: u16, signed: bool) -> Type {
        self.intern(TypeData::Int { width, signed })
    }

    pub fn func(&mut self, params: Vec<Type>, ret: Option<Type>, vararg: bool) -> Type {
        self.intern(TypeData::Func {
            params,
            ret,
            vararg,
        })
    }

    pub fn record(&mut self, alias: Symbol) -> Type {
        self.intern(TypeData::Record(alias))
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, t: Type) -> Option<Type> {
        match self.data[t] {
            TypeData::Ptr(p) => Some(p),
            _ => None,
        }
    }

    pub fn is_int(&self, t: Type) -> bool {
        matches!(self.data[t], TypeData::Int { .. })
    }

    pub fn is_ptr(&self, t: Type) -> bool {
        matches!(self.data[t], TypeData::Ptr(_))
    }

    pub fn is_float(&self, t: Type) -> bool {
        matches!(self.data[t], TypeData::Float | TypeData::Double)
    }

    pub fn is_token(&self, t: Type) -> bool {
        matches!(
            self.data[t],
            TypeData::EhToken | TypeData::CleanupToken | TypeData::CatchToken
        )
    }

    /// Integer width and signedness.
    pub fn int_info(&self, t: Type) -> Option<(u16, bool)> {
        match self.data[t] {
            TypeData::Int { width, signed } => Some((width, signed)),
            _ => None,
        }
    }

    /// Parameter types, result type and varargs flag of a function type.
    pub fn func_info(&self, t: Type) -> Option<(&[Type], Option<Type>, bool)> {
        match &self.data[t] {
            TypeData::Func {
                params,
                ret,
                vararg,
            } => Some((params, *ret, *vararg)),
            _ => None,
        }
    }

    /// Number of interned types.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}
