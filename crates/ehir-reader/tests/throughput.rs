//! Parse throughput on a generated structured module (the shape of the `opt_throughput`
//! benchmark). Ignored by default; run in release for a number:
//! `cargo test --release -p ehir-reader --test throughput -- --ignored --nocapture`.

use ehir_testgen::structured_workload as workload;
use std::time::Instant;

#[test]
fn workload_parses_and_round_trips() {
    let (text, ops) = workload(250);
    let module = ehir_reader::parse_module("workload.cir", &text).expect("parses");
    let counted: usize = module
        .functions
        .values()
        .filter(|f| !f.is_declaration())
        .map(|f| f.walk_ops().len() + 1)
        .sum();
    assert_eq!(counted, ops);
    let printed = ehir_core::printer::module_to_string(&module);
    let again = ehir_reader::parse_module("printed.cir", &printed).expect("reparses");
    assert_eq!(ehir_core::printer::module_to_string(&again), printed);
}

/// CPU time of this thread in seconds (Linux `schedstat`), so a loaded machine does not
/// distort the measurement; `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

#[test]
#[ignore = "a measurement; run in release with --ignored --nocapture"]
fn parse_throughput() {
    let (text, ops) = workload(300_000 / 13 + 1);
    let mut best_wall = f64::MAX;
    let mut best_cpu = f64::MAX;
    for _ in 0..7 {
        let c0 = thread_cpu_seconds();
        let t0 = Instant::now();
        let module = ehir_reader::parse_module("workload.cir", &text).expect("parses");
        let wall = t0.elapsed().as_secs_f64();
        let cpu = thread_cpu_seconds().zip(c0).map(|(b, a)| b - a);
        best_wall = best_wall.min(wall);
        best_cpu = best_cpu.min(cpu.unwrap_or(wall));
        drop(module);
    }
    for (what, t) in [("wall", best_wall), ("cpu", best_cpu)] {
        println!(
            "parse ({what}): {ops} ops, {} bytes in {:.1} ms = {:.2} Mops/s ({:.0} MB/s)",
            text.len(),
            t * 1e3,
            ops as f64 / t / 1e6,
            text.len() as f64 / t / 1e6
        );
    }
}
