//! Cost of `lowering-prepare,flatten-cfg` (without verification) as functions grow:
//! - `size`: one function of N statement groups, each 8 constructs deep (scopes, ifs,
//!   cleanup scopes, loops, trys, in rotation); N doubles.
//! - `depth`: 250 groups, each D constructs deep; D doubles (so does the op count).
//! - `chain`: one chain of D nested `cir.scope`s around a cleanup scope; D doubles.
//!
//! Linear cost means each doubling doubles the time. `cargo bench -p ehir-passes --bench
//! flatten`. The module is parsed once per argument; each sample flattens a fresh copy.

use divan::Bencher;
use ehir_core::Module;
use ehir_passes::PassManager;
use ehir_testgen::{bench_function, deep_scopes};

fn main() {
    divan::main();
}

fn parse(text: &str) -> Module {
    ehir_reader::parse_module("bench.cir", text).expect("benchmark input parses")
}

fn flatten(module: &mut Module) {
    let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg").expect("known passes");
    pm.set_verify_each(false);
    pm.run(module).expect("benchmark input flattens");
}

fn bench_module(bencher: Bencher, module: Module) {
    bencher
        .with_inputs(|| module.clone())
        .bench_local_values(|mut m| {
            flatten(&mut m);
            m
        });
}

#[divan::bench(args = [250, 500, 1000, 2000, 4000])]
fn size(bencher: Bencher, units: usize) {
    bench_module(bencher, parse(&bench_function(units, 8)));
}

#[divan::bench(args = [8, 16, 32, 64, 128])]
fn depth(bencher: Bencher, depth: usize) {
    bench_module(bencher, parse(&bench_function(250, depth)));
}

#[divan::bench(args = [1250, 2500, 5000, 10000])]
fn chain(bencher: Bencher, depth: usize) {
    bench_module(bencher, parse(&deep_scopes(depth)));
}
