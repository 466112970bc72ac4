//! The pass manager and `lower_to` verify their input first: a module that does not
//! verify is reported as "input does not verify", not blamed on the first pass.

use ehir_passes::{PassError, PassManager, lower_to};

/// An `int` function that falls off its end: parses, does not verify.
const FALLS_OFF_ITS_END: &str = "cir.func @main() -> !s32i {\n  cir.return\n}\n";

fn invalid_module() -> ehir_core::Module {
    ehir_reader::parse_module("bad.cir", FALLS_OFF_ITS_END).expect("parses")
}

#[test]
fn the_pass_manager_reports_invalid_input_before_any_pass() {
    let mut module = invalid_module();
    let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
    let err = pm.run(&mut module).unwrap_err();
    assert!(matches!(err, PassError::Input { .. }), "{err}");
    assert_eq!(err.pass(), None, "no pass is to blame");
    let message = err.to_string();
    assert!(message.starts_with("input does not verify: "), "{message}");
    assert!(message.contains("has no value"), "{message}");
    let diagnostics = err.diagnostics();
    assert_eq!(diagnostics.0.len(), 1, "{diagnostics:?}");
    assert!(
        diagnostics.0[0]
            .message
            .starts_with("input does not verify: @main returns !s32i"),
        "{diagnostics:?}"
    );
    assert_ne!(diagnostics.0[0].loc, ehir_core::Loc::NONE);
}

#[test]
fn lower_to_reports_invalid_input_even_with_nothing_to_lower() {
    for target in [
        ehir_core::Phase::Structured,
        ehir_core::Phase::Flat,
        ehir_core::Phase::Itanium,
        ehir_core::Phase::Msvc,
    ] {
        let mut module = invalid_module();
        let err = lower_to(&mut module, target).unwrap_err();
        assert!(matches!(err, PassError::Input { .. }), "{target:?}: {err}");
        assert!(
            err.to_string().starts_with("input does not verify"),
            "{err}"
        );
    }
}
