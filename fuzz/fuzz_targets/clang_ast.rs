//! Fuzz target: the C++ front end's own code — reading Clang's JSON AST (`ehir_clang::ast`)
//! and generating structured CIR from it (`ehir_clang::cirgen`) — on mutated AST dumps.
//! The input is the JSON text of a translation unit whose main file is `fuzz.cpp`
//! (`fuzz/run.sh` seeds the corpus with the dumps of the repository's C++ programs, made
//! once by `cargo run -p ehir-clang --example dump_ast`; Clang never runs per input). For
//! both EH ABIs, `ehir_clang::compile_json` returns a module or diagnostics, never panics;
//! a module it returns verifies.
#![no_main]

use ehir_core::abi::EhAbi;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = std::str::from_utf8(data) else {
        return;
    };
    for abi in EhAbi::ALL {
        let options = ehir_clang::Options {
            abi,
            ..Default::default()
        };
        if let Ok(module) = ehir_clang::compile_json(json, "fuzz.cpp", &options)
            && let Err(d) = ehir_core::verifier::verify_module(&module)
        {
            panic!(
                "the front end's module ({}) does not verify: {d:?}",
                abi.name()
            );
        }
    }
});
