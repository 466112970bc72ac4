//! Fuzz target: any text goes through the reader, the verifier and the printer without a
//! panic, and what verifies prints to a form that parses back to the same print.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = ehir_reader::parse_module("fuzz.cir", text) else {
        return;
    };
    let verified = ehir_core::verifier::verify_module(&module).is_ok();
    let printed = ehir_core::printer::module_to_string(&module);
    if verified {
        let again = ehir_reader::parse_module("printed.cir", &printed)
            .expect("the printed form of a verified module parses");
        assert_eq!(printed, ehir_core::printer::module_to_string(&again));
    }
});
