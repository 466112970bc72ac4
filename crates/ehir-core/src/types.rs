//! CIR types, interned per module: integers, bool, floats, void, pointers, arrays,
//! function types, records and the three EH tokens.

use crate::entities::{Symbol, Type};
use crate::interner::Interner;

/// The structure of a type. Compare [`Type`]s, not `TypeData`, once interned.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// `!s8i`..`!s64i`, `!u8i`..`!u64i` (also `!s128i`/`!u128i`).
    Int {
        /// Width in bits: 8, 16, 32, 64 or 128.
        width: u16,
        /// `s` (two's complement) or `u`.
        signed: bool,
    },
    /// `!cir.bool`
    Bool,
    /// `!cir.float`
    Float,
    /// `!cir.double`
    Double,
    /// `!void`
    Void,
    /// `!cir.ptr<T>`, or `!cir.ptr<T, target_address_space(N)>` when the target address
    /// space N (the second field) is not 0.
    Ptr(Type, u32),
    /// `!cir.array<T x N>`
    Array(Type, u64),
    /// `!cir.func<(params) -> ret>`; `ret` is `None` for `void`. `abi` gives each
    /// parameter's [`ParamAbi`]; it is empty when every parameter is
    /// [`ParamAbi::Default`] (interning normalizes it), else as long as `params`.
    Func {
        /// Parameter types, in order.
        params: Vec<Type>,
        /// The result type; `None` for `void`.
        ret: Option<Type>,
        /// Takes further arguments after `params` (`...`).
        vararg: bool,
        /// Each parameter's [`ParamAbi`], or empty when all are the default.
        abi: Vec<ParamAbi>,
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

/// How a parameter of a function type crosses the call at the machine level. CIR passes
/// every class object by address; these marks say which of those addresses stand for a
/// class that the C calling convention passes or returns by value (a class that is
/// trivial for the purposes of calls), so that the LLVM emitter can lower it the way the
/// target's C ABI does (registers, `byval`, `sret`). The interpreter ignores them.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum ParamAbi {
    /// An ordinary parameter.
    #[default]
    Default,
    /// `by_value`: a `!cir.ptr<!rec_X>` whose pointee is a class argument passed by value
    /// (the callee may modify it; the caller's copy is unaffected).
    ByValue,
    /// `by_value_result`: the first parameter, a `!cir.ptr<!rec_X>` where the callee
    /// constructs its class result, which the C ABI returns by value. The function type
    /// then returns nothing.
    ByValueResult,
}

impl ParamAbi {
    /// Every parameter ABI.
    pub const ALL: [ParamAbi; 3] = [
        ParamAbi::Default,
        ParamAbi::ByValue,
        ParamAbi::ByValueResult,
    ];

    /// The keyword printed after the parameter's type (empty for [`ParamAbi::Default`]).
    pub fn keyword(self) -> &'static str {
        match self {
            ParamAbi::Default => "",
            ParamAbi::ByValue => "by_value",
            ParamAbi::ByValueResult => "by_value_result",
        }
    }

    /// The mark named by a keyword.
    pub fn from_keyword(s: &str) -> Option<ParamAbi> {
        ParamAbi::ALL
            .into_iter()
            .find(|a| *a != ParamAbi::Default && a.keyword() == s)
    }
}

/// The module's type interner. Common types are interned up front and have accessors.
#[derive(Clone, Debug)]
pub struct TypeStore {
    data: Interner<Type, TypeData>,
    common: CommonTypes,
}

/// Types every module has, interned at construction.
#[derive(Clone, Copy, Debug)]
pub struct CommonTypes {
    /// `!void`.
    pub void: Type,
    /// `!cir.bool`.
    pub bool: Type,
    /// `!s8i`.
    pub s8: Type,
    /// `!s16i`.
    pub s16: Type,
    /// `!s32i`.
    pub s32: Type,
    /// `!s64i`.
    pub s64: Type,
    /// `!u8i`.
    pub u8: Type,
    /// `!u16i`.
    pub u16: Type,
    /// `!u32i`.
    pub u32: Type,
    /// `!u64i`.
    pub u64: Type,
    /// `!cir.float`.
    pub float: Type,
    /// `!cir.double`.
    pub double: Type,
    /// `!cir.ptr<!void>`.
    pub void_ptr: Type,
    /// `!cir.ptr<!u8i>` (typeinfo addresses in catch clauses).
    pub u8_ptr: Type,
    /// `!cir.eh_token`.
    pub eh_token: Type,
    /// `!cir.cleanup_token`.
    pub cleanup_token: Type,
    /// `!cir.catch_token`.
    pub catch_token: Type,
}

impl Default for TypeStore {
    fn default() -> Self {
        Self::new()
    }
}

impl TypeStore {
    /// A store holding the [`CommonTypes`].
    pub fn new() -> Self {
        let mut data = Interner::default();
        let mut add = |t: TypeData| data.intern(t);
        let int = |width, signed| TypeData::Int { width, signed };
        let void = add(TypeData::Void);
        let u8 = add(int(8, false));
        let common = CommonTypes {
            void,
            bool: add(TypeData::Bool),
            s8: add(int(8, true)),
            s16: add(int(16, true)),
            s32: add(int(32, true)),
            s64: add(int(64, true)),
            u8,
            u16: add(int(16, false)),
            u32: add(int(32, false)),
            u64: add(int(64, false)),
            float: add(TypeData::Float),
            double: add(TypeData::Double),
            void_ptr: add(TypeData::Ptr(void, 0)),
            u8_ptr: add(TypeData::Ptr(u8, 0)),
            eh_token: add(TypeData::EhToken),
            cleanup_token: add(TypeData::CleanupToken),
            catch_token: add(TypeData::CatchToken),
        };
        TypeStore { data, common }
    }

    /// Interns a type.
    pub fn intern(&mut self, mut t: TypeData) -> Type {
        if let TypeData::Func { params, abi, .. } = &mut t {
            // Canonical: no marks at all, or one per parameter.
            if abi.iter().all(|a| *a == ParamAbi::Default) {
                abi.clear();
            } else {
                abi.resize(params.len(), ParamAbi::Default);
            }
        }
        self.data.intern(t)
    }

    /// The structure of an interned type.
    pub fn get(&self, t: Type) -> &TypeData {
        &self.data[t]
    }

    /// The types interned at construction.
    pub fn common(&self) -> &CommonTypes {
        &self.common
    }

    /// `!cir.ptr<pointee>`.
    pub fn ptr(&mut self, pointee: Type) -> Type {
        self.intern(TypeData::Ptr(pointee, 0))
    }

    /// `!cir.array<element x len>`.
    pub fn array(&mut self, element: Type, len: u64) -> Type {
        self.intern(TypeData::Array(element, len))
    }

    /// The integer type of `width` bits.
    pub fn int(&mut self, width: u16, signed: bool) -> Type {
        self.intern(TypeData::Int { width, signed })
    }

    /// A function type whose parameters all have the default [`ParamAbi`].
    pub fn func(&mut self, params: Vec<Type>, ret: Option<Type>, vararg: bool) -> Type {
        self.intern(TypeData::Func {
            params,
            ret,
            vararg,
            abi: Vec::new(),
        })
    }

    /// A function type whose parameters carry [`ParamAbi`] marks (`abi[i]` for `params[i]`;
    /// missing entries are [`ParamAbi::Default`]).
    pub fn func_with_abi(
        &mut self,
        params: Vec<Type>,
        abi: Vec<ParamAbi>,
        ret: Option<Type>,
        vararg: bool,
    ) -> Type {
        self.intern(TypeData::Func {
            params,
            ret,
            vararg,
            abi,
        })
    }

    /// `!alias`: the record type of a record alias (`rec_X`).
    pub fn record(&mut self, alias: Symbol) -> Type {
        self.intern(TypeData::Record(alias))
    }

    /// `!cir.ptr<pointee, target_address_space(space)>` (`space` 0: [`TypeStore::ptr`]).
    pub fn ptr_in(&mut self, pointee: Type, space: u32) -> Type {
        self.intern(TypeData::Ptr(pointee, space))
    }

    /// The target address space of a pointer type (0, the default, for other types).
    pub fn address_space(&self, t: Type) -> u32 {
        match self.data[t] {
            TypeData::Ptr(_, space) => space,
            _ => 0,
        }
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, t: Type) -> Option<Type> {
        match self.data[t] {
            TypeData::Ptr(p, _) => Some(p),
            _ => None,
        }
    }

    /// Whether `t` is an integer type.
    pub fn is_int(&self, t: Type) -> bool {
        matches!(self.data[t], TypeData::Int { .. })
    }

    /// Whether `t` is a pointer type.
    pub fn is_ptr(&self, t: Type) -> bool {
        matches!(self.data[t], TypeData::Ptr(..))
    }

    /// Whether `t` is `!cir.float` or `!cir.double`.
    pub fn is_float(&self, t: Type) -> bool {
        matches!(self.data[t], TypeData::Float | TypeData::Double)
    }

    /// Whether `t` is one of the three EH token types.
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
                ..
            } => Some((params, *ret, *vararg)),
            _ => None,
        }
    }

    /// The [`ParamAbi`] marks of a function type: empty when no parameter has one, else
    /// one per parameter.
    pub fn func_abi(&self, t: Type) -> &[ParamAbi] {
        match &self.data[t] {
            TypeData::Func { abi, .. } => abi,
            _ => &[],
        }
    }

    /// The [`ParamAbi`] of parameter `i` of a function type.
    pub fn param_abi(&self, t: Type, i: usize) -> ParamAbi {
        self.func_abi(t).get(i).copied().unwrap_or_default()
    }

    /// Why the [`ParamAbi`] marks of function type `t` are malformed, if they are: a marked
    /// parameter must be a pointer to a record, and `by_value_result` may mark only the
    /// first parameter of a function that returns nothing.
    pub fn func_abi_error(&self, t: Type) -> Option<String> {
        let TypeData::Func {
            params, ret, abi, ..
        } = &self.data[t]
        else {
            return None;
        };
        for (i, (&p, &a)) in params.iter().zip(abi).enumerate() {
            if a == ParamAbi::Default {
                continue;
            }
            let record_ptr = matches!(
                self.pointee(p).map(|q| &self.data[q]),
                Some(TypeData::Record(_))
            );
            if !record_ptr {
                return Some(format!(
                    "parameter #{i} is marked '{}' but is not a pointer to a record",
                    a.keyword()
                ));
            }
            if a == ParamAbi::ByValueResult {
                if i != 0 {
                    return Some(format!(
                        "parameter #{i} is marked 'by_value_result', which only the first parameter may be"
                    ));
                }
                if ret.is_some_and(|r| !matches!(self.data[r], TypeData::Void)) {
                    return Some(
                        "a function with a 'by_value_result' parameter must return nothing".into(),
                    );
                }
            }
        }
        None
    }

    /// Number of interned types.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether no type is interned (never: the common types are).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// The smallest and largest value of an integer type of `width` bits (values are kept
/// sign- or zero-extended in an `i128`; a width of 0 counts as 1).
pub fn int_range(width: u16, signed: bool) -> (i128, i128) {
    let width = u32::from(width.clamp(1, 128));
    if signed {
        if width >= 128 {
            (i128::MIN, i128::MAX)
        } else {
            (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
        }
    } else if width >= 127 {
        (0, i128::MAX)
    } else {
        (0, (1i128 << width) - 1)
    }
}

/// `value` converted to an integer type of `width` bits as C++'s integral conversion does
/// (modulo 2^width, then sign- or zero-extended): what `int g = 18446744073709551615;`
/// stores is -1.
pub fn wrap_int(value: i128, width: u16, signed: bool) -> i128 {
    let width = u32::from(width.clamp(1, 128));
    if width >= 128 {
        return value;
    }
    let unused = 128 - width;
    let shifted = value << unused;
    if signed {
        shifted >> unused
    } else {
        ((shifted as u128) >> unused) as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_conversion_wraps_modulo_the_width() {
        assert_eq!(wrap_int(18446744073709551615, 32, true), -1);
        assert_eq!(wrap_int(300, 8, false), 44);
        assert_eq!(wrap_int(-1, 32, false), 4294967295);
        assert_eq!(wrap_int(65535, 16, true), -1);
        assert_eq!(wrap_int(65537, 16, true), 1);
        assert_eq!(wrap_int(-5, 64, true), -5);
        assert_eq!(wrap_int(1, 1, false), 1);
        assert_eq!(wrap_int(i128::MIN, 128, true), i128::MIN);
    }

    #[test]
    fn param_abi_marks_are_part_of_the_function_type() {
        let mut types = TypeStore::new();
        let c = *types.common();
        let alias = Symbol::from_u32(0);
        let rec = types.record(alias);
        let p = types.ptr(rec);
        let plain = types.func(vec![p, c.s32], None, false);
        // No marks, or only default ones, is the plain type.
        assert_eq!(
            types.func_with_abi(vec![p, c.s32], vec![], None, false),
            plain
        );
        assert_eq!(
            types.func_with_abi(vec![p, c.s32], vec![ParamAbi::Default; 2], None, false),
            plain
        );
        assert!(types.func_abi(plain).is_empty());
        // A short list of marks is completed with defaults.
        let marked = types.func_with_abi(vec![p, c.s32], vec![ParamAbi::ByValue], None, false);
        assert_ne!(marked, plain);
        assert_eq!(
            types.func_abi(marked),
            &[ParamAbi::ByValue, ParamAbi::Default]
        );
        assert_eq!(
            types.func_with_abi(
                vec![p, c.s32],
                vec![ParamAbi::ByValue, ParamAbi::Default],
                None,
                false
            ),
            marked
        );
        assert_eq!(types.param_abi(marked, 0), ParamAbi::ByValue);
        assert_eq!(types.param_abi(marked, 5), ParamAbi::Default);
        assert_eq!(types.func_abi_error(marked), None);
        // Misplaced marks.
        let on_int = types.func_with_abi(vec![c.s32], vec![ParamAbi::ByValue], None, false);
        assert!(types.func_abi_error(on_int).is_some());
        let late_result = types.func_with_abi(
            vec![p, p],
            vec![ParamAbi::Default, ParamAbi::ByValueResult],
            None,
            false,
        );
        assert!(types.func_abi_error(late_result).is_some());
        let result_and_value =
            types.func_with_abi(vec![p], vec![ParamAbi::ByValueResult], Some(c.s32), false);
        assert!(types.func_abi_error(result_and_value).is_some());
        for a in ParamAbi::ALL {
            if a != ParamAbi::Default {
                assert_eq!(ParamAbi::from_keyword(a.keyword()), Some(a));
            }
        }
        assert_eq!(ParamAbi::from_keyword(""), None);
    }
}
