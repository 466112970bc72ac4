//! The LLVM IR text written one function at a time (`emit_module_text`, what `llvm_ir`
//! and `emit-llvm` use) is byte-identical to the text of the whole emitted model
//! (`writer::module_to_string(&emit_module(..))`), for every file-test input that lowers
//! and emits, for both ABIs.

use ehir_core::abi::EhAbi;
use ehir_llvm::{emit, writer};
use ehir_pipeline::{emit_options, lower};
use std::path::Path;

#[test]
fn streamed_text_equals_the_whole_model_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests");
    let files = ehir_testgen::cir_files_under(&root);
    let mut compared = [0usize; 2];
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable file test");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Ok(parsed) = ehir_reader::parse_module(&name, &text) else {
            continue;
        };
        for (slot, abi) in [EhAbi::Itanium, EhAbi::Msvc].into_iter().enumerate() {
            let mut module = parsed.clone();
            if lower(&mut module, abi.phase()).is_err() {
                continue;
            }
            let options = emit_options(abi);
            let Ok(model) = emit::emit_module(&module, &name, &options) else {
                assert!(
                    emit::emit_module_text(&module, &name, &options).is_err(),
                    "{name}: the streamed emitter accepted what the model emitter refused"
                );
                continue;
            };
            let streamed = emit::emit_module_text(&module, &name, &options)
                .unwrap_or_else(|e| panic!("{name}: streamed emit failed: {e:?}"));
            assert_eq!(
                streamed,
                writer::module_to_string(&model),
                "{name} ({abi:?}): streamed text differs"
            );
            compared[slot] += 1;
        }
    }
    // Most file tests lower and emit for both ABIs; a broken walk would compare none.
    assert!(
        compared[0] > 100 && compared[1] > 100,
        "compared only {compared:?} modules"
    );
}
