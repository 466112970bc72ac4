//! Parse + verify + print throughput and peak heap per op on a generated structured module
//! (issue: foundation benchmark). `cargo bench -p ehir --bench opt_throughput` reports
//! ops/s and peak bytes/op; `-- --emit-cir F --emit-mlir G --units N` writes the same-size
//! workloads for `bench/compare-mlir-opt.sh`.

use ehir_testgen::heap::{CountingAllocator, LIVE, PEAK};
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The structured CIR workload; its ops per generated unit are identical to
/// [`mlir_workload`]'s: load, const, cmp, if, call, yield, cleanup-scope/execute_region,
/// call, yield, call, yield, scope-yield... counted there.
fn cir_workload(units: usize) -> (String, usize) {
    ehir_testgen::structured_workload(units)
}

/// The same shape in upstream MLIR dialects (func, arith, memref, scf).
fn mlir_workload(units: usize) -> (String, usize) {
    let mut s = String::new();
    let mut ops = 0;
    let per_func = 100;
    let funcs = units.div_ceil(per_func);
    s.push_str("func.func private @g(i32)\nfunc.func private @h()\nfunc.func private @d()\n");
    ops += 3;
    for f in 0..funcs {
        let _ = writeln!(s, "func.func @f{f}(%arg0: memref<i32>) {{");
        ops += 1;
        for u in 0..per_func.min(units - f * per_func) {
            let _ = write!(
                s,
                "  scf.execute_region {{
    %a{u} = memref.load %arg0[] : memref<i32>
    %b{u} = arith.constant {u} : i32
    %c{u} = arith.cmpi eq, %a{u}, %b{u} : i32
    scf.if %c{u} {{
      func.call @g(%a{u}) : (i32) -> ()
      scf.yield
    }}
    scf.execute_region {{
      func.call @h() : () -> ()
      scf.yield
    }}
    scf.execute_region {{
      func.call @d() : () -> ()
      scf.yield
    }}
    scf.yield
  }}
"
            );
            ops += 13;
        }
        s.push_str("  func.return\n}\n");
        ops += 1;
    }
    (s, ops)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let units: usize = arg("--units")
        .and_then(|u| u.parse().ok())
        .unwrap_or(300_000 / 13 + 1);
    if let Some(path) = arg("--emit-cir") {
        let (text, ops) = cir_workload(units);
        std::fs::write(&path, text).expect("write CIR workload");
        eprintln!("wrote {path}: {ops} ops");
    }
    if let Some(path) = arg("--emit-mlir") {
        let (text, ops) = mlir_workload(units);
        std::fs::write(&path, text).expect("write MLIR workload");
        eprintln!("wrote {path}: {ops} ops");
    }
    if arg("--emit-cir").is_some() || arg("--emit-mlir").is_some() {
        return;
    }

    let (text, ops) = cir_workload(units);
    let mut best = [f64::MAX; 3];
    let mut peak_ir = 0usize;
    // Heap held by the parsed module, and the peak of each phase above the heap it
    // started with (the text for parsing, text + module for verifying and printing).
    let mut module_bytes = 0usize;
    let mut phase_peaks = [0usize; 3];
    let mut out_len = 0;
    for _ in 0..5 {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t0 = Instant::now();
        let module = ehir_reader::parse_module("workload.cir", &text).expect("workload parses");
        let t1 = Instant::now();
        let after_parse = LIVE.load(Ordering::Relaxed);
        let parse_peak = PEAK.load(Ordering::Relaxed);
        PEAK.store(after_parse, Ordering::Relaxed);
        let t1b = Instant::now();
        ehir_core::verifier::verify_module(&module).expect("workload verifies");
        let t2 = Instant::now();
        let verify_peak = PEAK.load(Ordering::Relaxed);
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let t2b = Instant::now();
        let mut sink = Sink(0);
        ehir_core::printer::print_module(&mut sink, &module).expect("print");
        let t3 = Instant::now();
        let print_peak = PEAK.load(Ordering::Relaxed);
        drop(module);
        out_len = sink.0;
        module_bytes = after_parse - base;
        phase_peaks = [
            parse_peak - base,
            verify_peak - after_parse,
            print_peak - after_parse,
        ];
        peak_ir = (parse_peak.max(verify_peak).max(print_peak)) - base;
        for (b, d) in best.iter_mut().zip([t1 - t0, t2 - t1b, t3 - t2b]) {
            *b = b.min(d.as_secs_f64());
        }
    }
    let total: f64 = best.iter().sum();
    println!(
        "workload: {ops} ops, {} bytes of text, {out_len} bytes printed",
        text.len()
    );
    println!(
        "parse  {:8.2} ms  {:6.2} Mops/s",
        best[0] * 1e3,
        ops as f64 / best[0] / 1e6
    );
    println!(
        "verify {:8.2} ms  {:6.2} Mops/s",
        best[1] * 1e3,
        ops as f64 / best[1] / 1e6
    );
    println!(
        "print  {:8.2} ms  {:6.2} Mops/s",
        best[2] * 1e3,
        ops as f64 / best[2] / 1e6
    );
    println!(
        "total  {:8.2} ms  {:6.2} Mops/s (parse+verify+print)",
        total * 1e3,
        ops as f64 / total / 1e6
    );
    let per_op = |b: usize| b as f64 / ops as f64;
    println!(
        "heap: module {:.1} bytes/op; peak while parsing {:.1}, verifying +{:.1}, printing +{:.1} bytes/op",
        per_op(module_bytes),
        per_op(phase_peaks[0]),
        per_op(phase_peaks[1]),
        per_op(phase_peaks[2])
    );
    println!(
        "peak heap above the input text: {} bytes = {:.1} bytes/op",
        peak_ir,
        per_op(peak_ir)
    );
}

/// Counts printed bytes without storing them (as printing to /dev/null would).
struct Sink(usize);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
