//! Fuzz target: a random structured program (`ehir_testgen::generate_program`, seed and
//! size limits from the fuzzer's bytes) must behave the same when interpreted at the
//! structured, flat, Itanium and MSVC phases (`ehir_testgen::differential::check_text`,
//! with every `--throw-at` choice that hits a distinct call), and `emit-llvm` must accept
//! its Itanium and MSVC lowerings.
#![no_main]

use ehir_testgen::{GenConfig, differential, generate_program};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut seed_bytes = [0u8; 8];
    for (dst, src) in seed_bytes.iter_mut().zip(data) {
        *dst = *src;
    }
    let seed = u64::from_le_bytes(seed_bytes);
    let knob = |i: usize, below: u32| data.get(8 + i).map_or(0, |&b| u32::from(b) % below);
    let cfg = GenConfig {
        max_depth: 1 + knob(0, 7),
        max_stmts: 1 + knob(1, 6),
        max_functions: 1 + knob(2, 3),
        budget: 10 + knob(3, 50),
    };
    let text = generate_program(seed, &cfg);
    let report = differential::check_text(&text, Some("main"), &format!("seed {seed}"));
    assert!(
        report.mismatches.is_empty(),
        "{}\nprogram:\n{text}",
        report.mismatches.join("\n")
    );
    let module = ehir_reader::parse_module("gen.cir", &text).expect("generated programs parse");
    ehir_fuzz::lower_and_emit(
        &module,
        "lowering-prepare,flatten-cfg,eh-abi-lowering=itanium",
        &ehir_llvm::EmitOptions::default(),
    );
    ehir_fuzz::lower_and_emit(
        &module,
        "lowering-prepare,flatten-cfg,eh-abi-lowering=msvc",
        &ehir_llvm::EmitOptions::msvc(),
    );
});
