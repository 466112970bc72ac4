//! Setting up a run through the API: a bad `--throw-at` value and an unknown entry are
//! reported as the `InterpError` variants the CLI turns into messages. The modelled
//! C++ runtime's behaviour (exception lifetime, catch matching, exception
//! specifications, terminate cases, exit statuses, scripted externals) is tested by
//! the file tests under `tests/filetests/interp/`.

mod common;

use common::*;

#[test]
fn bad_throw_specs_are_setup_errors() {
    let module = parse("cir.func @run() {\n  cir.call @f() : () -> ()\n  cir.return\n}\n");
    let mut config = ehir_interp::RunConfig::default();
    config
        .throw_at
        .push(ehir_interp::parse_throw_spec("@f=int:abc").unwrap());
    assert!(matches!(
        ehir_interp::run_module(&module, &config),
        Err(ehir_interp::InterpError::BadSpec(_))
    ));
    let config = ehir_interp::RunConfig {
        entry: Some("nope".into()),
        ..Default::default()
    };
    assert_eq!(
        ehir_interp::run_module(&module, &config).unwrap_err(),
        ehir_interp::InterpError::NoSuchEntry("nope".into())
    );
}
