//! `emit_eh_workload FUNCTIONS [--mlir]` prints the EH-shaped pipeline workload
//! (`ehir_testgen::eh_workload`) as CIR text, or its MLIR twin (`eh_workload_mlir`), and
//! the op count on stderr. Used by `bench/compare-eh-pipeline.sh`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let functions = args.first().and_then(|s| s.parse().ok()).unwrap_or(4000);
    let (text, ops) = if args.iter().any(|a| a == "--mlir") {
        ehir_testgen::eh_workload_mlir(functions)
    } else {
        ehir_testgen::eh_workload(functions)
    };
    print!("{text}");
    eprintln!("{ops}");
}
