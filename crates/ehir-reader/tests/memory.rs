//! Heap per op of a parsed module and peak heap of parse + verify + print, measured with a
//! counting allocator on the shape of the `opt_throughput` benchmark (functions of 100
//! units of 13 ops). The performance target is at most 100 bytes of peak heap per op.

use ehir_testgen::heap::{CountingAllocator, LIVE, PEAK};
use ehir_testgen::structured_workload as workload;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

/// Measurements must not overlap (tests run on several threads).
static MEASURING: Mutex<()> = Mutex::new(());

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn peak_heap_per_op_is_at_most_100_bytes() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (text, ops) = workload(3_000);
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let module = ehir_reader::parse_module("workload.cir", &text).expect("parses");
    let module_bytes = LIVE.load(Ordering::Relaxed) - base;
    ehir_core::verifier::verify_module(&module).expect("verifies");
    let mut printed = 0usize;
    {
        struct Count<'a>(&'a mut usize);
        impl std::io::Write for Count<'_> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                *self.0 += buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        ehir_core::printer::print_module(&mut Count(&mut printed), &module).expect("prints");
    }
    let peak = PEAK.load(Ordering::Relaxed) - base;
    drop(module);
    assert!(printed > text.len() / 2, "the module was printed");
    let per_op = |b: usize| b as f64 / ops as f64;
    assert!(
        per_op(module_bytes) <= 100.0 && per_op(peak) <= 100.0,
        "module {:.1} bytes/op, peak {:.1} bytes/op",
        per_op(module_bytes),
        per_op(peak)
    );
}

#[test]
fn one_large_function_keeps_no_spare_room() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // One function of 2000 units: its tables grow while it is parsed and are trimmed
    // when it is complete.
    let (text, _) = workload(2_000);
    let text = text
        .lines()
        .filter(|l| !l.starts_with("cir.func") && *l != "}" && *l != "  cir.return")
        .fold(
            String::from("cir.func @f(%arg0: !cir.ptr<!s32i>) {\n"),
            |mut s, l| {
                s.push_str(l);
                s.push('\n');
                s
            },
        )
        + "  cir.return\n}\n";
    let ops = 2_000 * 13 + 2;
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let module = ehir_reader::parse_module("one.cir", &text).expect("parses");
    let module_bytes = LIVE.load(Ordering::Relaxed) - base;
    let peak = PEAK.load(Ordering::Relaxed) - base;
    assert_eq!(module.functions.len(), 4, "@f and the three callees");
    let per_op = |b: usize| b as f64 / ops as f64;
    eprintln!(
        "one function: module {:.1} bytes/op, peak while parsing {:.1} bytes/op",
        per_op(module_bytes),
        per_op(peak)
    );
    assert!(per_op(module_bytes) <= 100.0, "{:.1}", per_op(module_bytes));
}
