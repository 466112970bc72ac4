//! C++ types of the subset, interned: fundamental types, pointers, references, arrays,
//! function types and classes, each with a `const` flag. Sizes and alignments follow the
//! x86-64 System V ABI, as g++ lays them out.

use crate::ast::Builtin;
use std::collections::HashMap;

/// An interned C++ type (with its top-level `const`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Ty(u32);

/// A class of the program.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ClassId(pub u32);

/// The structure of a type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TyKind {
    Builtin(Builtin),
    /// The type of `nullptr`.
    Nullptr,
    Ptr(Ty),
    Ref(Ty),
    Array(Ty, u64),
    Func {
        ret: Ty,
        params: Vec<Ty>,
        variadic: bool,
    },
    Class(ClassId),
}

/// The type interner.
#[derive(Default)]
pub struct TypeTable {
    data: Vec<(TyKind, bool)>,
    index: HashMap<(TyKind, bool), Ty>,
}

impl TypeTable {
    pub fn intern(&mut self, kind: TyKind, is_const: bool) -> Ty {
        // References and functions are never const-qualified.
        let is_const = is_const && !matches!(kind, TyKind::Ref(_) | TyKind::Func { .. });
        if let Some(&t) = self.index.get(&(kind.clone(), is_const)) {
            return t;
        }
        let t = Ty(self.data.len() as u32);
        self.data.push((kind.clone(), is_const));
        self.index.insert((kind, is_const), t);
        t
    }

    /// Finds an already interned type.
    pub fn find(&self, kind: &TyKind, is_const: bool) -> Option<Ty> {
        self.index.get(&(kind.clone(), is_const)).copied()
    }

    pub fn kind(&self, t: Ty) -> &TyKind {
        &self.data[t.0 as usize].0
    }

    pub fn is_const(&self, t: Ty) -> bool {
        self.data[t.0 as usize].1
    }

    pub fn builtin(&mut self, b: Builtin) -> Ty {
        self.intern(TyKind::Builtin(b), false)
    }

    pub fn ptr(&mut self, t: Ty) -> Ty {
        self.intern(TyKind::Ptr(t), false)
    }

    pub fn reference(&mut self, t: Ty) -> Ty {
        self.intern(TyKind::Ref(t), false)
    }

    pub fn class(&mut self, c: ClassId) -> Ty {
        self.intern(TyKind::Class(c), false)
    }

    pub fn with_const(&mut self, t: Ty, c: bool) -> Ty {
        let k = self.kind(t).clone();
        // Arrays carry the const of their elements.
        if let TyKind::Array(e, n) = k {
            let e = self.with_const(e, c);
            return self.intern(TyKind::Array(e, n), false);
        }
        self.intern(k, c)
    }

    /// The type without its top-level `const`.
    pub fn unqual(&mut self, t: Ty) -> Ty {
        self.with_const(t, false)
    }

    pub fn is_void(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Builtin(Builtin::Void))
    }

    pub fn is_bool(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Builtin(Builtin::Bool))
    }

    pub fn is_integral(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Builtin(b) if !matches!(b, Builtin::Void | Builtin::Float | Builtin::Double))
    }

    pub fn is_floating(&self, t: Ty) -> bool {
        matches!(
            self.kind(t),
            TyKind::Builtin(Builtin::Float | Builtin::Double)
        )
    }

    pub fn is_arithmetic(&self, t: Ty) -> bool {
        self.is_integral(t) || self.is_floating(t)
    }

    pub fn is_ptr(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Ptr(_))
    }

    pub fn is_scalar(&self, t: Ty) -> bool {
        self.is_arithmetic(t) || self.is_ptr(t) || matches!(self.kind(t), TyKind::Nullptr)
    }

    pub fn pointee(&self, t: Ty) -> Option<Ty> {
        match self.kind(t) {
            TyKind::Ptr(p) => Some(*p),
            _ => None,
        }
    }

    pub fn referee(&self, t: Ty) -> Option<Ty> {
        match self.kind(t) {
            TyKind::Ref(p) => Some(*p),
            _ => None,
        }
    }

    pub fn class_of(&self, t: Ty) -> Option<ClassId> {
        match self.kind(t) {
            TyKind::Class(c) => Some(*c),
            _ => None,
        }
    }

    pub fn is_class(&self, t: Ty) -> bool {
        self.class_of(t).is_some()
    }

    pub fn is_func(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Func { .. })
    }

    /// Whether the type is a signed integer type (`char` is signed on x86-64).
    pub fn is_signed(&self, t: Ty) -> bool {
        matches!(
            self.kind(t),
            TyKind::Builtin(
                Builtin::Char
                    | Builtin::SChar
                    | Builtin::Short
                    | Builtin::Int
                    | Builtin::Long
                    | Builtin::LongLong
            )
        )
    }

    /// The integer conversion rank (for the usual arithmetic conversions).
    pub fn int_rank(&self, t: Ty) -> u8 {
        match self.kind(t) {
            TyKind::Builtin(b) => match b {
                Builtin::Bool => 0,
                Builtin::Char | Builtin::SChar | Builtin::UChar => 1,
                Builtin::Short | Builtin::UShort => 2,
                Builtin::Int | Builtin::UInt => 3,
                Builtin::Long | Builtin::ULong => 4,
                Builtin::LongLong | Builtin::ULongLong => 5,
                _ => 0,
            },
            _ => 0,
        }
    }
}

/// Size and alignment of a fundamental type on x86-64.
pub fn builtin_size_align(b: Builtin) -> (u64, u64) {
    match b {
        Builtin::Void => (1, 1),
        Builtin::Bool | Builtin::Char | Builtin::SChar | Builtin::UChar => (1, 1),
        Builtin::Short | Builtin::UShort => (2, 2),
        Builtin::Int | Builtin::UInt | Builtin::Float => (4, 4),
        Builtin::Long
        | Builtin::ULong
        | Builtin::LongLong
        | Builtin::ULongLong
        | Builtin::Double => (8, 8),
    }
}

/// The spelling of a fundamental type.
pub fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::Void => "void",
        Builtin::Bool => "bool",
        Builtin::Char => "char",
        Builtin::SChar => "signed char",
        Builtin::UChar => "unsigned char",
        Builtin::Short => "short",
        Builtin::UShort => "unsigned short",
        Builtin::Int => "int",
        Builtin::UInt => "unsigned int",
        Builtin::Long => "long",
        Builtin::ULong => "unsigned long",
        Builtin::LongLong => "long long",
        Builtin::ULongLong => "unsigned long long",
        Builtin::Float => "float",
        Builtin::Double => "double",
    }
}

/// The Itanium mangling code of a fundamental type.
pub fn builtin_mangling(b: Builtin) -> &'static str {
    match b {
        Builtin::Void => "v",
        Builtin::Bool => "b",
        Builtin::Char => "c",
        Builtin::SChar => "a",
        Builtin::UChar => "h",
        Builtin::Short => "s",
        Builtin::UShort => "t",
        Builtin::Int => "i",
        Builtin::UInt => "j",
        Builtin::Long => "l",
        Builtin::ULong => "m",
        Builtin::LongLong => "x",
        Builtin::ULongLong => "y",
        Builtin::Float => "f",
        Builtin::Double => "d",
    }
}
