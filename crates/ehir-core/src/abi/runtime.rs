//! The C++ runtime functions that lowered code calls, in one table ([`RUNTIME_FUNCTIONS`]):
//! name, signature, attributes, and who relies on the row (the reader supplies the
//! signature of calls that do not write one; the LLVM emitter declares the function with
//! these attributes). Also the msvcrt exports that stand for Itanium-named runtime
//! functions on the Microsoft ABI ([`msvc_runtime_name`], and back:
//! [`itanium_runtime_name`]).

use super::{ITANIUM_PERSONALITY, MSVC_PERSONALITY};
use crate::{Type, TypeStore};

/// `std::terminate()` (Itanium mangling).
pub const STD_TERMINATE: &str = "_ZSt9terminatev";
/// Clang's helper that a terminate landing pad calls with the exception:
/// `__cxa_begin_catch(exn)` then `std::terminate()`; a module defines it (linkonce_odr,
/// hidden) where it calls it.
pub const CLANG_CALL_TERMINATE: &str = "__clang_call_terminate";
/// `std::unexpected()` (Itanium mangling).
pub const STD_UNEXPECTED: &str = "_ZSt10unexpectedv";
/// `std::uncaught_exception()` (Itanium mangling).
pub const STD_UNCAUGHT_EXCEPTION: &str = "_ZSt18uncaught_exceptionv";
/// msvcrt's `std::terminate()`.
pub const MSVC_TERMINATE: &str = "?terminate@@YAXXZ";
/// msvcrt's throw (and rethrow) entry point.
pub const MSVC_THROW: &str = "_CxxThrowException";
/// msvcrt's `std::uncaught_exception()` helper (returns an `int`).
pub const MSVC_UNCAUGHT_EXCEPTION: &str = "__uncaught_exception";
/// msvcrt's `typeid` of a polymorphic object: `type_info *__RTtypeid(void *object)`
/// (throws `bad_typeid` for a null object).
pub const MSVC_RTTYPEID: &str = "__RTtypeid";
/// msvcrt's `dynamic_cast`: `void *__RTDynamicCast(void *object, int vfptr_offset, void
/// *source_type, void *target_type, int is_reference)` (throws `bad_cast` for a failed
/// reference cast).
pub const MSVC_RTDYNAMIC_CAST: &str = "__RTDynamicCast";
/// msvcrt's `dynamic_cast<void *>`: `void *__RTCastToVoid(void *object)`.
pub const MSVC_RTCAST_TO_VOID: &str = "__RTCastToVoid";
/// The Microsoft ABI's sized `operator delete(void *, size_t)` (which msvcrt.dll does not
/// export: ehir's startup object defines it).
pub const MSVC_SIZED_DELETE: &str = "??3@YAXPEAX_K@Z";
/// msvcrt's handler of a call of a pure virtual function (what a vftable's pure slots
/// point to).
pub const MSVC_PURECALL: &str = "_purecall";

/// The parameter and result types runtime signatures are made of.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum RuntimeType {
    /// A pointer (`!cir.ptr<!void>`, LLVM `ptr`).
    Ptr,
    /// A pointer to bytes (`!cir.ptr<!u8i>`, LLVM `ptr`): what upstream's lowering
    /// declares `__cxa_begin_catch` and `__cxa_get_exception_ptr` to return.
    BytePtr,
    /// A 32-bit signed integer (`!s32i`, LLVM `i32`).
    I32,
    /// A 64-bit unsigned integer, `size_t` (`!u64i`, LLVM `i64`).
    U64,
}

impl RuntimeType {
    /// The CIR type.
    pub fn cir_type(self, types: &TypeStore) -> Type {
        let common = types.common();
        match self {
            RuntimeType::Ptr => common.void_ptr,
            RuntimeType::BytePtr => common.u8_ptr,
            RuntimeType::I32 => common.s32,
            RuntimeType::U64 => common.u64,
        }
    }
}

/// One C++ runtime function.
#[derive(Copy, Clone, Debug)]
pub struct RuntimeFunction {
    /// The symbol name.
    pub name: &'static str,
    /// Parameter types.
    pub params: &'static [RuntimeType],
    /// Result type (`None`: `void`).
    pub result: Option<RuntimeType>,
    /// Takes further arguments (`...`).
    pub vararg: bool,
    /// Never returns normally.
    pub noreturn: bool,
    /// Never throws.
    pub nounwind: bool,
    /// The EH lowerings' calls of it are written `nothrow` (upstream's lowering marks
    /// its calls one by one: `__cxa_get_exception_ptr` and `__clang_call_terminate`, not
    /// `__cxa_begin_catch` in a handler).
    pub call_nothrow: bool,
    /// Lowered CIR may call it without writing a signature; the reader uses this one.
    pub implicit_in_cir: bool,
    /// The LLVM emitter declares it from this row (with its attributes) rather than from
    /// the signature of the CIR call.
    pub declared_by_emitter: bool,
}

impl RuntimeFunction {
    /// The CIR function type of the row.
    pub fn cir_signature(&self, types: &mut TypeStore) -> Type {
        let params = self.params.iter().map(|p| p.cir_type(types)).collect();
        let result = self.result.map(|r| r.cir_type(types));
        types.func(params, result, self.vararg)
    }
}

use RuntimeType::{BytePtr, I32, Ptr, U64};

/// A row without flags; the table sets them with the `const` methods below.
const fn row(
    name: &'static str,
    params: &'static [RuntimeType],
    result: Option<RuntimeType>,
) -> RuntimeFunction {
    RuntimeFunction {
        name,
        params,
        result,
        vararg: false,
        noreturn: false,
        nounwind: false,
        call_nothrow: false,
        implicit_in_cir: true,
        declared_by_emitter: false,
    }
}

impl RuntimeFunction {
    /// The row, never returning normally.
    const fn noreturn(self) -> Self {
        Self {
            noreturn: true,
            ..self
        }
    }

    /// The row, never throwing (its lowered calls are written `nothrow`).
    const fn nounwind(self) -> Self {
        Self {
            nounwind: true,
            call_nothrow: true,
            ..self
        }
    }

    /// The row, whose lowered calls are written without `nothrow` although it never
    /// throws.
    const fn calls_unmarked(self) -> Self {
        Self {
            call_nothrow: false,
            ..self
        }
    }

    /// The row, taking further arguments.
    const fn vararg(self) -> Self {
        Self {
            vararg: true,
            ..self
        }
    }

    /// The row, whose calls in CIR must write their signature.
    const fn not_implicit(self) -> Self {
        Self {
            implicit_in_cir: false,
            ..self
        }
    }

    /// The row, declared by the LLVM emitter from the row.
    const fn declared_by_emitter(self) -> Self {
        Self {
            declared_by_emitter: true,
            ..self
        }
    }
}

/// Every C++ runtime function ehir knows, Itanium first, then Microsoft.
pub const RUNTIME_FUNCTIONS: &[RuntimeFunction] = &[
    // ---- Itanium (libstdc++ / libc++abi, libgcc's unwinder) ----
    row("__cxa_begin_catch", &[Ptr], Some(BytePtr))
        .nounwind()
        .calls_unmarked()
        .declared_by_emitter(),
    row("__cxa_end_catch", &[], None).declared_by_emitter(),
    row("__cxa_rethrow", &[], None)
        .noreturn()
        .declared_by_emitter(),
    row("__cxa_call_unexpected", &[Ptr], None)
        .noreturn()
        .declared_by_emitter(),
    row("__cxa_allocate_exception", &[U64], Some(Ptr))
        .nounwind()
        .declared_by_emitter(),
    row("__cxa_free_exception", &[Ptr], None)
        .nounwind()
        .declared_by_emitter(),
    row("__cxa_throw", &[Ptr, Ptr, Ptr], None)
        .noreturn()
        .declared_by_emitter(),
    row("__cxa_get_exception_ptr", &[Ptr], Some(BytePtr)).nounwind(),
    row("__cxa_end_cleanup", &[], None).noreturn(),
    row("__cxa_bad_cast", &[], None).noreturn(),
    row("__cxa_bad_typeid", &[], None).noreturn(),
    row("__cxa_pure_virtual", &[], None).noreturn(),
    row(CLANG_CALL_TERMINATE, &[Ptr], None)
        .noreturn()
        .nounwind(),
    row("_Unwind_Resume", &[Ptr], None).noreturn(),
    row(STD_TERMINATE, &[], None)
        .noreturn()
        .nounwind()
        .declared_by_emitter(),
    row(STD_UNEXPECTED, &[], None).noreturn(),
    row(ITANIUM_PERSONALITY, &[], Some(I32))
        .vararg()
        .not_implicit()
        .declared_by_emitter(),
    // ---- Microsoft (msvcrt / vcruntime) ----
    row("__std_terminate", &[], None).noreturn().nounwind(),
    row(MSVC_THROW, &[Ptr, Ptr], None)
        .noreturn()
        .declared_by_emitter(),
    row(MSVC_TERMINATE, &[], None)
        .noreturn()
        .nounwind()
        .not_implicit()
        .declared_by_emitter(),
    row(MSVC_PERSONALITY, &[], Some(I32))
        .vararg()
        .not_implicit()
        .declared_by_emitter(),
    row(MSVC_UNCAUGHT_EXCEPTION, &[], Some(I32))
        .nounwind()
        .not_implicit()
        .declared_by_emitter(),
];

/// The row of runtime function `name`.
pub fn runtime_function(name: &str) -> Option<&'static RuntimeFunction> {
    RUNTIME_FUNCTIONS.iter().find(|f| f.name == name)
}

/// The signature of a runtime function that lowered CIR may call without writing one
/// (`cir.call @__cxa_begin_catch(%x : !cir.ptr<!void>)`).
pub fn implicit_signature(name: &str, types: &mut TypeStore) -> Option<Type> {
    runtime_function(name)
        .filter(|f| f.implicit_in_cir)
        .map(|f| f.cir_signature(types))
}

/// `(Itanium name, msvcrt export)` of the C++ runtime functions the front end calls by
/// their Itanium names; the signatures agree on x86-64 Windows.
pub const MSVC_RUNTIME_NAMES: &[(&str, &str)] = &[
    (STD_TERMINATE, MSVC_TERMINATE),
    (STD_UNEXPECTED, "?unexpected@@YAXXZ"),
    (
        "_ZSt13set_terminatePFvvE",
        "?set_terminate@@YAP6AXXZP6AXXZ@Z",
    ),
    (
        "_ZSt14set_unexpectedPFvvE",
        "?set_unexpected@@YAP6AXXZP6AXXZ@Z",
    ),
    ("_Znwm", "??2@YAPEAX_K@Z"),
    ("_Znam", "??_U@YAPEAX_K@Z"),
    ("_ZdlPv", "??3@YAXPEAX@Z"),
    ("_ZdaPv", "??_V@YAXPEAX@Z"),
    ("_ZdlPvm", "??3@YAXPEAX@Z"),
    ("_ZdaPvm", "??_V@YAXPEAX@Z"),
];

/// `(Itanium name, msvcrt export)` of C++ runtime functions that code compiled for Windows
/// calls by their msvcrt names, and that ehir never renames from the Itanium one (the
/// sized and `nothrow` forms of `operator new`/`delete`, which [`MSVC_RUNTIME_NAMES`]
/// maps to others, and `std::uncaught_exception`'s helper): with [`MSVC_RUNTIME_NAMES`],
/// what [`itanium_runtime_name`] looks up.
pub const MSVC_CALLED_RUNTIME_NAMES: &[(&str, &str)] = &[
    ("_ZdlPvm", "??3@YAXPEAX_K@Z"),
    ("_ZdaPvm", "??_V@YAXPEAX_K@Z"),
    ("_ZnwmRKSt9nothrow_t", "??2@YAPEAX_KAEBUnothrow_t@std@@@Z"),
    ("_ZnamRKSt9nothrow_t", "??_U@YAPEAX_KAEBUnothrow_t@std@@@Z"),
    ("_ZdlPvRKSt9nothrow_t", "??3@YAXPEAXAEBUnothrow_t@std@@@Z"),
    ("_ZdaPvRKSt9nothrow_t", "??_V@YAXPEAXAEBUnothrow_t@std@@@Z"),
    (STD_UNCAUGHT_EXCEPTION, MSVC_UNCAUGHT_EXCEPTION),
];

/// The Itanium name of the C++ runtime function that the msvcrt export `msvc`
/// implements (`??2@YAPEAX_K@Z` is `_Znwm`), for code compiled for Windows.
pub fn itanium_runtime_name(msvc: &str) -> Option<&'static str> {
    MSVC_RUNTIME_NAMES
        .iter()
        .chain(MSVC_CALLED_RUNTIME_NAMES)
        .find(|(_, name)| *name == msvc)
        .map(|&(itanium, _)| itanium)
}

/// The msvcrt export that implements a C++ runtime function the front end calls by its
/// Itanium name.
pub fn msvc_runtime_name(itanium: &str) -> Option<&'static str> {
    MSVC_RUNTIME_NAMES
        .iter()
        .find(|(name, _)| *name == itanium)
        .map(|&(_, msvc)| msvc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_catch_returns_the_exception_object() {
        let mut types = TypeStore::new();
        let sig = implicit_signature("__cxa_begin_catch", &mut types).expect("known");
        let (void_ptr, u8_ptr) = (types.common().void_ptr, types.common().u8_ptr);
        let (params, ret, vararg) = types.func_info(sig).expect("a function type");
        // Upstream's lowering declares it `(!cir.ptr<!void>) -> !cir.ptr<!u8i>`.
        assert_eq!(
            (params, ret, vararg),
            (&[void_ptr][..], Some(u8_ptr), false)
        );
        assert!(implicit_signature("not_a_runtime_function", &mut types).is_none());
        // Personalities are known but never called from CIR.
        assert!(runtime_function(ITANIUM_PERSONALITY).is_some());
        assert!(implicit_signature(ITANIUM_PERSONALITY, &mut types).is_none());
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = RUNTIME_FUNCTIONS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count);
        let mut itanium: Vec<&str> = MSVC_RUNTIME_NAMES.iter().map(|p| p.0).collect();
        itanium.sort_unstable();
        itanium.dedup();
        assert_eq!(itanium.len(), MSVC_RUNTIME_NAMES.len());
    }

    #[test]
    fn msvc_names_of_itanium_runtime_functions() {
        assert_eq!(msvc_runtime_name(STD_TERMINATE), Some(MSVC_TERMINATE));
        assert_eq!(msvc_runtime_name("_Znwm"), Some("??2@YAPEAX_K@Z"));
        assert_eq!(msvc_runtime_name("__cxa_throw"), None);
        assert_eq!(itanium_runtime_name("??2@YAPEAX_K@Z"), Some("_Znwm"));
        assert_eq!(itanium_runtime_name("??3@YAXPEAX@Z"), Some("_ZdlPv"));
        assert_eq!(itanium_runtime_name("??3@YAXPEAX_K@Z"), Some("_ZdlPvm"));
        assert_eq!(itanium_runtime_name(MSVC_TERMINATE), Some(STD_TERMINATE));
        assert_eq!(
            itanium_runtime_name(MSVC_UNCAUGHT_EXCEPTION),
            Some(STD_UNCAUGHT_EXCEPTION)
        );
        assert_eq!(itanium_runtime_name("_Znwm"), None);
    }
}
