//! The table builders verify their input first: a module or function that does not
//! verify gives `TablesError::Input` ("input does not verify: ..."), never a table or a
//! panic.

use ehir_tables::{TableFormat, TablesError, clr, function_tables, lsda, module_tables, wineh};

fn invalid_module(phase: &str) -> ehir_core::Module {
    let text = format!("cir.func @main() -> !s32i phase({phase}) {{\n  cir.return\n}}\n");
    ehir_reader::parse_module("bad.cir", &text).expect("parses")
}

fn assert_input_error(err: &TablesError) {
    assert!(matches!(err, TablesError::Input(_)), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("input does not verify: @main returns !s32i"),
        "{err}"
    );
    assert!(
        err.diagnostic()
            .message
            .starts_with("input does not verify")
    );
}

#[test]
fn module_tables_refuse_an_invalid_module() {
    for (format, phase) in [
        (TableFormat::Itanium, "itanium"),
        (TableFormat::Msvc, "msvc"),
        (TableFormat::Clr, "msvc"),
    ] {
        let module = invalid_module(phase);
        let errors = module_tables(&module, format).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_input_error(&errors[0]);
    }
}

#[test]
fn function_table_builders_refuse_an_invalid_function() {
    let itanium = invalid_module("itanium");
    let func = &itanium.functions[itanium.function_named("main").unwrap()];
    assert_input_error(&function_tables(&itanium.ctx, func, TableFormat::Itanium).unwrap_err());
    assert_input_error(&lsda::module_function_lsda(&itanium, func).unwrap_err());
    let msvc = invalid_module("msvc");
    let func = &msvc.functions[msvc.function_named("main").unwrap()];
    assert_input_error(&wineh::function_tables(&msvc.ctx, func).unwrap_err());
    assert_input_error(&clr::function_clauses(&msvc.ctx, func).unwrap_err());
}
