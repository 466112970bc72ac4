//! Every entry point that takes a module refuses each invalid module of the verifier's
//! file tests with "input does not verify", and none panics: the pass manager (through
//! `lower_to` and the pipeline), the interpreter, the LLVM emitter for both ABIs and the
//! table builders for every format.

use ehir_core::{Module, Phase};
use ehir_pipeline::EhAbi;
use std::path::{Path, PathBuf};

const PREFIX: &str = "input does not verify";

fn verifier_file_tests() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests/verifier");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the verifier's file tests")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cir"))
        .collect();
    files.sort();
    files
}

/// The modules of the verifier's file tests that parse but do not verify.
fn invalid_modules() -> Vec<(String, Module)> {
    let mut out = Vec::new();
    for path in verifier_file_tests() {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        let Ok(module) = ehir_reader::parse_module(&name, &text) else {
            continue;
        };
        if ehir_core::verifier::verify_module(&module).is_err() {
            out.push((name, module));
        }
    }
    out
}

fn check(what: &str, name: &str, message: Option<String>) {
    match message {
        Some(m) => assert!(m.starts_with(PREFIX), "{name}: {what}: {m}"),
        None => panic!("{name}: {what} accepted an invalid module"),
    }
}

#[test]
fn every_entry_point_refuses_every_invalid_module_without_panicking() {
    let modules = invalid_modules();
    assert!(modules.len() >= 8, "only {} invalid modules", modules.len());
    for (name, module) in &modules {
        for phase in [Phase::Structured, Phase::Flat, Phase::Itanium, Phase::Msvc] {
            let mut m = module.clone();
            let err = ehir_passes::lower_to(&mut m, phase).err();
            check("lower_to", name, err.map(|e| e.to_string()));
            let mut pm = ehir_passes::PassManager::new();
            let err = pm.run(&mut module.clone()).err();
            check("PassManager::run", name, err.map(|e| e.to_string()));
        }
        for abi in [EhAbi::Itanium, EhAbi::Msvc] {
            let mut m = module.clone();
            let err = ehir_pipeline::llvm_ir(&mut m, abi, name).err();
            check("llvm_ir", name, err.map(|e| e.to_string()));
            let options = ehir_pipeline::emit_options(abi);
            let err = ehir_llvm::module_to_llvm_text(module, name, &options).err();
            check(
                "module_to_llvm_text",
                name,
                err.map(|d| d.0[0].message.clone()),
            );
        }
        let err = ehir_interp::run_module(module, &ehir_interp::RunConfig::default()).err();
        check("run_module", name, err.map(|e| e.to_string()));
        for format in [
            ehir_tables::TableFormat::Itanium,
            ehir_tables::TableFormat::Msvc,
            ehir_tables::TableFormat::Clr,
        ] {
            let err = ehir_tables::module_tables(module, format).err();
            check("module_tables", name, err.map(|e| e[0].to_string()));
        }
    }
}
