//! Shared pieces of the fuzz targets: running one pass on verified input and checking
//! that its output verifies (the per-pass targets), and emitting LLVM IR from a lowered
//! module (the differential target).

use ehir_core::Module;
use ehir_passes::PassManager;

/// Parses `data` as CIR text; when it verifies, runs the passes of `pipeline` (names of
/// `ehir_passes::KNOWN_PASSES`) on it one by one, the earlier ones bringing structured
/// input to the phase the last one lowers from. A pass may reject the module with
/// diagnostics (then the rest are skipped), but must not panic, and a module it accepts
/// must verify. Inputs that are not UTF-8, do not parse or do not verify are ignored.
pub fn check_passes_on_verified_input(pipeline: &[&str], data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut module) = ehir_reader::parse_module("fuzz.cir", text) else {
        return;
    };
    if ehir_core::verifier::verify_module(&module).is_err() {
        return;
    }
    for pass in pipeline {
        let mut pm = PassManager::from_pipeline(pass).expect("a known pass");
        // The pass manager's own verification would turn a broken output into an
        // error; checking by hand makes it a crash the fuzzer reports.
        pm.set_verify_each(false);
        if pm.run(&mut module).is_err() {
            return;
        }
        if let Err(d) = ehir_core::verifier::verify_module(&module) {
            let printed = ehir_core::printer::module_to_string(&module);
            panic!(
                "verified input, `{pass}` output does not verify: {d:?}\ninput:\n{text}\noutput:\n{printed}"
            );
        }
    }
}

/// Lowers a structured module through `pipeline` and emits LLVM IR with `options`:
/// both must succeed for a module that verifies (the generator's programs do).
pub fn lower_and_emit(module: &Module, pipeline: &str, options: &ehir_llvm::EmitOptions) {
    let mut lowered = module.clone();
    let mut pm = PassManager::from_pipeline(pipeline).expect("known passes");
    if let Err(e) = pm.run(&mut lowered) {
        // The MSVC lowering reports some shapes as not expressible; that is an answer.
        if pipeline.ends_with("msvc") {
            return;
        }
        panic!("`{pipeline}` failed on a generated program: {e}");
    }
    if let Err(d) = ehir_llvm::module_to_llvm_text(&lowered, "fuzz.cir", options) {
        panic!("emit-llvm rejects the module lowered by `{pipeline}`: {d:?}");
    }
}
