//! Fuzz target: CIR text that parses and verifies goes through the passes before it (when structured) and `lowering-prepare` without a panic,
//! and what the pass accepts comes out verified.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ehir_fuzz::check_passes_on_verified_input(&["lowering-prepare"], data);
});
