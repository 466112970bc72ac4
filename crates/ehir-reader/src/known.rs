//! Signatures of C++ runtime functions that lowered IR calls without writing a signature
//! (`cir.call @__cxa_begin_catch(%x : !cir.ptr<!void>)`, `cir.call @__cxa_end_catch()`).

use ehir_core::{Type, TypeStore};

/// Parameter and result shapes of the table.
#[derive(Copy, Clone)]
enum Shape {
    /// `!cir.ptr<!void>`
    Ptr,
    /// `!u64i`
    U64,
}

/// `(name, params, result)`.
const RUNTIME: &[(&str, &[Shape], Option<Shape>)] = &[
    ("__cxa_begin_catch", &[Shape::Ptr], Some(Shape::Ptr)),
    ("__cxa_end_catch", &[], None),
    ("__cxa_rethrow", &[], None),
    ("__cxa_call_unexpected", &[Shape::Ptr], None),
    ("__cxa_allocate_exception", &[Shape::U64], Some(Shape::Ptr)),
    ("__cxa_free_exception", &[Shape::Ptr], None),
    ("__cxa_throw", &[Shape::Ptr, Shape::Ptr, Shape::Ptr], None),
    ("__cxa_get_exception_ptr", &[Shape::Ptr], Some(Shape::Ptr)),
    ("__cxa_end_cleanup", &[], None),
    ("__cxa_bad_cast", &[], None),
    ("__cxa_bad_typeid", &[], None),
    ("__cxa_pure_virtual", &[], None),
    ("__clang_call_terminate", &[Shape::Ptr], None),
    ("_Unwind_Resume", &[Shape::Ptr], None),
    ("_ZSt9terminatev", &[], None),
    ("_ZSt10unexpectedv", &[], None),
    ("__std_terminate", &[], None),
    ("_CxxThrowException", &[Shape::Ptr, Shape::Ptr], None),
];

/// The signature of a known runtime function.
pub(crate) fn runtime_signature(name: &str, types: &mut TypeStore) -> Option<Type> {
    let &(_, params, ret) = RUNTIME.iter().find(|e| e.0 == name)?;
    let common = *types.common();
    let shape = |s: Shape| match s {
        Shape::Ptr => common.void_ptr,
        Shape::U64 => common.u64,
    };
    let params = params.iter().map(|&s| shape(s)).collect();
    Some(types.func(params, ret.map(shape), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_catch_returns_the_exception_object() {
        let mut types = TypeStore::new();
        let sig = runtime_signature("__cxa_begin_catch", &mut types).expect("known");
        let void_ptr = types.common().void_ptr;
        let (params, ret, vararg) = types.func_info(sig).expect("a function type");
        assert_eq!(
            (params, ret, vararg),
            (&[void_ptr][..], Some(void_ptr), false)
        );
        assert!(runtime_signature("not_a_runtime_function", &mut types).is_none());
    }
}
