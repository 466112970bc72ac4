//! The emitter's entry points verify their input first: a module that does not verify
//! gives "input does not verify" diagnostics and no LLVM IR.

use ehir_llvm::{EmitOptions, emit_module, module_to_llvm_text};

#[test]
fn an_invalid_module_is_not_emitted() {
    let text = "cir.func @main() -> !s32i phase(itanium) {\n  cir.return\n}\n";
    let module = ehir_reader::parse_module("bad.cir", text).expect("parses");
    for options in [EmitOptions::default(), EmitOptions::msvc()] {
        let errors = module_to_llvm_text(&module, "bad.cir", &options).unwrap_err();
        assert_eq!(errors.0.len(), 1, "{errors:?}");
        assert!(
            errors.0[0]
                .message
                .starts_with("input does not verify: @main returns !s32i"),
            "{errors:?}"
        );
        assert_ne!(errors.0[0].loc, ehir_core::Loc::NONE);
        let errors = emit_module(&module, "bad.cir", &options).unwrap_err();
        assert!(
            errors.0[0].message.starts_with("input does not verify"),
            "{errors:?}"
        );
    }
}
