//! Development tool: `emit_bench UNITS DEPTH` prints the benchmark workload
//! (`testgen::bench_function`) as CIR text.

fn main() {
    let mut args = std::env::args().skip(1);
    let units = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let depth = args.next().and_then(|s| s.parse().ok()).unwrap_or(8);
    print!("{}", ehir_passes::testgen::bench_function(units, depth));
}
