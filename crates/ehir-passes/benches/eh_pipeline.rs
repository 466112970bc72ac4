//! Each stage of `ehir opt -p lowering-prepare,flatten-cfg,eh-abi-lowering=itanium` on the
//! EH workload of `bench/compare-eh-pipeline.sh` (`ehir_testgen::eh_workload`, 500
//! functions): parse, verify (structured, flat, Itanium), each pass, print (structured and
//! Itanium). Every stage starts from the output of the one before, made once per argument.
//! Runs on the default rayon pool; set `RAYON_NUM_THREADS=1` for single-threaded figures.
//! `cargo bench -p ehir-passes --bench eh_pipeline`.

use divan::Bencher;
use ehir_core::Module;
use ehir_passes::PassManager;

/// Functions in the benchmark module.
const FUNCTIONS: usize = 500;

fn main() {
    divan::main();
}

fn text() -> String {
    ehir_testgen::eh_workload(FUNCTIONS).0
}

fn parse(text: &str) -> Module {
    ehir_reader::parse_module("eh.cir", text).expect("the workload parses")
}

/// The module after `pipeline` (no verification).
fn after(pipeline: &str) -> Module {
    let mut module = parse(&text());
    run(&mut module, pipeline);
    module
}

fn run(module: &mut Module, pipeline: &str) {
    let mut pm = PassManager::from_pipeline(pipeline).expect("known passes");
    pm.set_verify_each(false);
    pm.run(module).expect("the workload lowers");
}

#[divan::bench]
fn parse_text(bencher: Bencher) {
    let text = text();
    bencher.bench_local(|| parse(&text));
}

#[divan::bench(args = ["structured", "flat", "itanium"])]
fn verify(bencher: Bencher, phase: &str) {
    let module = match phase {
        "structured" => parse(&text()),
        "flat" => after("lowering-prepare,flatten-cfg"),
        _ => after("lowering-prepare,flatten-cfg,eh-abi-lowering=itanium"),
    };
    bencher.bench_local(|| ehir_core::verifier::verify_module(&module).expect("verifies"));
}

/// Runs `pass` on fresh copies of the module the passes before it produce.
fn bench_pass(bencher: Bencher, before: Option<&str>, pass: &str) {
    let module = match before {
        Some(p) => after(p),
        None => parse(&text()),
    };
    bencher
        .with_inputs(|| module.clone())
        .bench_local_values(|mut m| {
            run(&mut m, pass);
            m
        });
}

#[divan::bench]
fn lowering_prepare(bencher: Bencher) {
    bench_pass(bencher, None, "lowering-prepare");
}

#[divan::bench]
fn flatten_cfg(bencher: Bencher) {
    bench_pass(bencher, Some("lowering-prepare"), "flatten-cfg");
}

#[divan::bench]
fn eh_abi_itanium(bencher: Bencher) {
    bench_pass(
        bencher,
        Some("lowering-prepare,flatten-cfg"),
        "eh-abi-lowering=itanium",
    );
}

#[divan::bench(args = ["structured", "itanium"])]
fn print(bencher: Bencher, phase: &str) {
    let module = match phase {
        "structured" => parse(&text()),
        _ => after("lowering-prepare,flatten-cfg,eh-abi-lowering=itanium"),
    };
    bencher.bench_local(|| {
        let mut out = Vec::with_capacity(1 << 24);
        ehir_core::printer::print_module(&mut out, &module).expect("prints");
        out
    });
}
