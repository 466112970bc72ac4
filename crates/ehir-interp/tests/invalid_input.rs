//! `run_module` verifies its input first: an `int` function that falls off its end is an
//! error, not a run that exits 0.

use ehir_interp::{InterpError, RunConfig, run_module};

#[test]
fn an_invalid_module_is_not_run() {
    let text = "cir.func @main() -> !s32i {\n  cir.return\n}\n";
    let module = ehir_reader::parse_module("bad.cir", text).expect("parses");
    let err = run_module(&module, &RunConfig::default()).unwrap_err();
    let InterpError::InvalidInput(diagnostics) = &err else {
        panic!("expected InvalidInput, got {err:?}");
    };
    assert_eq!(diagnostics.0.len(), 1, "{diagnostics:?}");
    assert!(
        err.to_string()
            .starts_with("input does not verify: @main returns !s32i"),
        "{err}"
    );
}
