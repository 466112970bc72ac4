//! `emit_bench UNITS DEPTH [--mlir]` prints the benchmark workload
//! (`ehir_testgen::bench_function`) as CIR text, or its MLIR twin (`bench_function_mlir`),
//! and the op count on stderr. Used by `bench/compare-mlir-opt-scf.sh`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let units = args.first().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let depth = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    if args.iter().any(|a| a == "--mlir") {
        let (text, ops) = ehir_testgen::bench_function_mlir(units, depth);
        print!("{text}");
        eprintln!("{ops}");
    } else {
        print!("{}", ehir_testgen::bench_function(units, depth));
        eprintln!("{}", ehir_testgen::bench_function_op_count(units, depth));
    }
}
