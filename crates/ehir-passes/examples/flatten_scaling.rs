//! `scaling`: the best-of-N time of `lowering-prepare,flatten-cfg` on the benchmark
//! workloads as size or depth doubles, with the ratio of each step to the previous one
//! (linear cost: 2.0). `cargo run --release -p ehir-passes --example flatten_scaling [-- N]`.

use ehir_core::Module;
use ehir_passes::PassManager;
use ehir_testgen::{bench_function, deep_scopes};
use std::time::{Duration, Instant};

fn best(module: &Module, runs: usize) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let mut m = module.clone();
        let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
        pm.set_verify_each(false);
        let t = Instant::now();
        pm.run(&mut m).expect("flattens");
        best = best.min(t.elapsed());
    }
    best
}

fn series(name: &str, texts: Vec<(usize, String)>, runs: usize) {
    println!("{name}:");
    let mut prev: Option<Duration> = None;
    for (arg, text) in texts {
        let module = ehir_reader::parse_module("bench.cir", &text).expect("parses");
        let ops: usize = module.functions.values().map(|f| f.dfg.ops.len()).sum();
        let t = best(&module, runs);
        let ratio = prev.map(|p| format!("{:.2}x", t.as_secs_f64() / p.as_secs_f64()));
        println!(
            "  {arg:>6}: {:>10.3} ms  {:>6.0} ns/op  {}",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e9 / ops as f64,
            ratio.unwrap_or_default()
        );
        prev = Some(t);
    }
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    series(
        "size (units, depth 8)",
        [250, 500, 1000, 2000, 4000]
            .iter()
            .map(|&u| (u, bench_function(u, 8)))
            .collect(),
        runs,
    );
    series(
        "depth (250 units)",
        [8, 16, 32, 64, 128]
            .iter()
            .map(|&d| (d, bench_function(250, d)))
            .collect(),
        runs,
    );
    series(
        "chain (nested scopes)",
        [1250, 2500, 5000, 10000]
            .iter()
            .map(|&d| (d, deep_scopes(d)))
            .collect(),
        runs,
    );
}
