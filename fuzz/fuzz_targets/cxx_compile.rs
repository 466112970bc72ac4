//! Fuzz target: the C++ front end (`ehir_cxx::compile`) on any source text returns a
//! module or diagnostics, never panics; a module it returns verifies.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(module) = ehir_cxx::compile("fuzz.cpp", text) {
        if let Err(d) = ehir_core::verifier::verify_module(&module) {
            panic!("the front end's module does not verify: {d:?}\nsource:\n{text}");
        }
    }
});
