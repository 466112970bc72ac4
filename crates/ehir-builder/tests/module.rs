//! The module builder: several functions under construction at once, callees declared on
//! first call, string literals shared, standalone builders' items, and the errors only
//! the whole module reveals.

use ehir_builder::{BuilderErrorKind, FunctionBuilder, ModuleBuilder};
use ehir_core::{CallFlags, Module};

#[test]
fn two_functions_under_construction_at_once() {
    let mut mb = ModuleBuilder::new();
    let s32 = mb.ctx().types.common().s32;
    let sig = mb.ctx().types.func(vec![], Some(s32), false);
    let take = mb.ctx().types.func(vec![s32], None, false);
    let mut pending = vec![
        Some(mb.function("first", sig, &[]).suspend()),
        Some(mb.function("second", sig, &[]).suspend()),
    ];
    let mut kept = Vec::new();
    for round in 0..3 {
        for slot in pending.iter_mut() {
            let Some(suspended) = slot.take() else {
                continue;
            };
            let mut b = mb.resume(suspended);
            let value = b.const_int(s32, round);
            b.call_named("sink", take, &[value], CallFlags::default());
            kept.push(value); // handles stay valid across suspend / resume
            *slot = Some(b.suspend());
        }
    }
    for slot in pending {
        let mut b = mb.resume(slot.expect("suspended"));
        let zero = b.const_int(s32, 0);
        b.emit_return(Some(zero));
        b.define().expect("builds");
    }
    let module = mb.finish().expect("module");
    ehir_core::verifier::verify_module(&module).expect("verifies");
    let text = ehir_core::printer::module_to_string(&module);
    assert_eq!(text.matches("cir.call @sink").count(), 6, "{text}");
    assert_eq!(kept.len(), 6);
}

#[test]
fn callees_are_declared_once_and_strings_deduplicated() {
    let mut mb = ModuleBuilder::new();
    let s32 = mb.ctx().types.common().s32;
    let sig = mb.ctx().types.func(vec![], Some(s32), false);
    let take = mb.ctx().types.func(vec![s32], None, false);
    for name in ["f", "g"] {
        let mut b = mb.function(name, sig, &[]);
        let hello = b.string_literal(b"hello");
        let other = b.string_literal(b"other");
        assert_ne!(hello, other);
        let one = b.const_int(s32, 1);
        b.call_named("ext", take, &[one], CallFlags::default());
        b.emit_return(Some(one));
        b.define().expect("builds");
    }
    let module = mb.finish().expect("module");
    ehir_core::verifier::verify_module(&module).expect("verifies");
    let text = ehir_core::printer::module_to_string(&module);
    assert_eq!(text.matches("cir.global").count(), 2, "{text}");
    assert_eq!(text.matches("cir.func @ext").count(), 1, "{text}");
}

#[test]
fn a_standalone_builder_returns_its_items() {
    let mut module = Module::new();
    let s32 = module.ctx.types.common().s32;
    let sig = module.ctx.types.func(vec![], Some(s32), false);
    let take = module.ctx.types.func(vec![s32], None, false);
    let b = FunctionBuilder::new(&mut module.ctx, "main", sig, &[]);
    let suspended = b.suspend();
    let mut b = suspended.resume(&mut module.ctx);
    let text = b.string_literal(b"hi");
    let _ = text;
    let zero = b.const_int(s32, 0);
    b.call_named("ext", take, &[zero], CallFlags::default());
    b.emit_return(Some(zero));
    let (func, items) = b.finish_with_items().expect("builds");
    assert_eq!(items.callees().len(), 1);
    items.add_to(&mut module);
    module.add_function(func);
    ehir_core::verifier::verify_module(&module).expect("verifies");
}

#[test]
fn module_level_errors_are_reported_by_finish() {
    // Defined twice.
    let mut mb = ModuleBuilder::new();
    let sig = mb.ctx().types.func(vec![], None, false);
    mb.function("f", sig, &[]).define().expect("first");
    mb.function("f", sig, &[]).define().expect("second");
    let errors = mb.finish().unwrap_err();
    assert!(errors.to_string().contains("defined twice"), "{errors}");

    // Called with another signature than defined.
    let mut mb = ModuleBuilder::new();
    let s32 = mb.ctx().types.common().s32;
    let sig = mb.ctx().types.func(vec![], None, false);
    let int_sig = mb.ctx().types.func(vec![], Some(s32), false);
    let mut b = mb.function("caller", sig, &[]);
    b.call_named("callee", int_sig, &[], CallFlags::default());
    b.define().expect("caller");
    mb.function("callee", sig, &[]).define().expect("callee");
    let errors = mb.finish().unwrap_err();
    assert!(errors.has(BuilderErrorKind::SignatureMismatch), "{errors}");

    // Declared twice with different signatures.
    let mut mb = ModuleBuilder::new();
    mb.declare_function("g", sig, true).expect("first");
    let err = mb.declare_function("g", int_sig, true).unwrap_err();
    assert_eq!(err.kind, BuilderErrorKind::SignatureMismatch);
}
