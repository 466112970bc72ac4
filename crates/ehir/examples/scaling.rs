//! `scaling`: how every stage's time and memory grow as the input doubles in nesting
//! depth (nested cleanup scopes, nested trys) or in width (number of functions).
//!
//! `cargo run --release -p ehir --example scaling -- [--runs R] [--kinds K,..]
//! [--stages S,..] [--sizes KIND=N,N,..]` (or `bash bench/scaling.sh`). For each input
//! size a child process (this program with `--child`) builds the input, brings it to the
//! phase each stage starts from, and times the stage alone (best of R runs; the copy of
//! its input module is made outside the clock). It reports per stage the best time, the
//! peak heap the stage allocated above what was live when it started (a counting
//! allocator), and for the whole child its peak resident set (`VmHWM`). The parent prints
//! one table per kind with the ratio of each size to the previous one: linear cost at a
//! doubling is 2.0; the target is at most 2.3.
//!
//! Stages: `parse`, `verify`, `print`, `lowering-prepare`, `flatten-cfg`, `itanium`,
//! `msvc`, `emit-llvm-itanium`, `emit-llvm-msvc`, `tables-itanium`, `tables-msvc`,
//! `tables-clr`, `run-all` (the interpreter at the structured, flat, Itanium and MSVC
//! phases, as `ehir run --phase all` does).

use ehir_core::Module;
use ehir_passes::PassManager;
use ehir_testgen::heap::{CountingAllocator, LIVE, PEAK};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Every stage, in pipeline order.
const STAGES: &[&str] = &[
    "parse",
    "verify",
    "print",
    "lowering-prepare",
    "flatten-cfg",
    "itanium",
    "msvc",
    "emit-llvm-itanium",
    "emit-llvm-msvc",
    "tables-itanium",
    "tables-msvc",
    "tables-clr",
    "run-all",
];

/// The workload kinds and their default sizes.
const KINDS: &[(&str, &[usize])] = &[
    (
        "deep-cleanups",
        &[1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 100_000],
    ),
    (
        "deep-trys",
        &[1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 100_000],
    ),
    (
        "functions",
        &[10_000, 20_000, 40_000, 80_000, 160_000, 300_000],
    ),
];

/// Stages whose cost is quadratic by construction for a kind, and the largest size they
/// run at: CLR clause tables of N nested trys whose handlers may throw hold a duplicate
/// clause per enclosing try for each nested handler funclet (4,000 deep: 2.5 minutes and
/// 4 GB; 16,000 would exhaust a 24 GiB machine).
const QUADRATIC: &[(&str, &str, usize)] = &[("deep-trys", "tables-clr", 2_000)];

/// The stages that run for `kind` at size `n`.
fn stages_at(kind: &str, n: usize, stages: &[String]) -> Vec<String> {
    stages
        .iter()
        .filter(|stage| {
            !QUADRATIC
                .iter()
                .any(|&(k, s, limit)| k == kind && s == stage.as_str() && n > limit)
        })
        .cloned()
        .collect()
}

fn generate(kind: &str, n: usize) -> String {
    match kind {
        "deep-cleanups" => ehir_testgen::deep_cleanups(n),
        "deep-trys" => ehir_testgen::deep_trys(n),
        "deep-scopes" => ehir_testgen::deep_scopes(n),
        "functions" => ehir_testgen::many_functions(n),
        _ => panic!("unknown kind {kind}"),
    }
}

/// Runs `stage` `runs` times on a fresh copy of `input` each; returns the best time and
/// the largest peak heap above the heap live at its start.
fn measure<T>(input: &Module, runs: usize, stage: impl FnMut(Module) -> T) -> (Duration, usize) {
    measure_with(runs, || input.clone(), stage)
}

/// Runs `stage` `runs` times, each on what `prepare` makes (neither timed nor counted);
/// returns the best time and the largest peak heap above the heap live at its start.
fn measure_with<I, T>(
    runs: usize,
    mut prepare: impl FnMut() -> I,
    mut stage: impl FnMut(I) -> T,
) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut peak = 0;
    for _ in 0..runs {
        let input = prepare();
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let start = Instant::now();
        let out = stage(input);
        best = best.min(start.elapsed());
        peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(base));
        drop(out);
    }
    (best, peak)
}

fn lowered(module: &Module, pipeline: &str) -> Module {
    let mut m = module.clone();
    let mut pm = PassManager::from_pipeline(pipeline).expect("known passes");
    pm.set_verify_each(false);
    pm.run(&mut m).unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    m
}

fn run_pass(mut m: Module, pass: &str) -> Module {
    let mut pm = PassManager::from_pipeline(pass).expect("known pass");
    pm.set_verify_each(false);
    pm.run(&mut m).unwrap_or_else(|e| panic!("{pass}: {e}"));
    m
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// The child: measures `stages` on one input; prints `stage seconds peak_heap` lines and
/// `rss KIB`.
fn child(kind: &str, n: usize, runs: usize, stages: &[String]) {
    let text = generate(kind, n);
    let wants = |s: &str| stages.iter().any(|x| x == s);
    let parsed = ehir_reader::parse_module("bench.cir", &text).expect("parses");
    let report = |stage: &str, (t, heap): (Duration, usize)| {
        println!("{stage} {:.6} {heap}", t.as_secs_f64());
    };
    if wants("parse") {
        report(
            "parse",
            measure_with(
                runs,
                || (),
                |()| ehir_reader::parse_module("bench.cir", &text).expect("parses"),
            ),
        );
    }
    if wants("verify") {
        report(
            "verify",
            measure(&parsed, runs, |m| {
                ehir_core::verifier::verify_module(&m).is_ok()
            }),
        );
    }
    if wants("print") {
        report(
            "print",
            measure(&parsed, runs, |m| {
                ehir_core::printer::module_to_string(&m).len()
            }),
        );
    }
    let needs_flat = stages
        .iter()
        .any(|s| s != "parse" && s != "verify" && s != "print");
    if !needs_flat {
        println!("rss {}", peak_rss_kib());
        return;
    }
    if wants("lowering-prepare") {
        report(
            "lowering-prepare",
            measure(&parsed, runs, |m| run_pass(m, "lowering-prepare")),
        );
    }
    let prepared = lowered(&parsed, "lowering-prepare");
    if wants("flatten-cfg") {
        report(
            "flatten-cfg",
            measure(&prepared, runs, |m| run_pass(m, "flatten-cfg")),
        );
    }
    let flat = lowered(&prepared, "flatten-cfg");
    drop(prepared);
    if wants("itanium") {
        report(
            "itanium",
            measure(&flat, runs, |m| run_pass(m, "eh-abi-lowering=itanium")),
        );
    }
    if wants("msvc") {
        report(
            "msvc",
            measure(&flat, runs, |m| run_pass(m, "eh-abi-lowering=msvc")),
        );
    }
    let any = |prefix: &str| {
        stages
            .iter()
            .any(|s| s.starts_with(prefix) || s == "run-all")
    };
    let itanium = any("").then(|| lowered(&flat, "eh-abi-lowering=itanium"));
    let msvc = any("").then(|| lowered(&flat, "eh-abi-lowering=msvc"));
    let emit = |m: Module, options: &ehir_llvm::EmitOptions| {
        ehir_llvm::module_to_llvm_text(&m, "bench.cir", options).map(|t| t.len())
    };
    let per_abi = [
        (
            &itanium,
            "emit-llvm-itanium",
            ehir_llvm::EmitOptions::default(),
            &[("tables-itanium", ehir_tables::TableFormat::Itanium)][..],
        ),
        (
            &msvc,
            "emit-llvm-msvc",
            ehir_llvm::EmitOptions::msvc(),
            &[
                ("tables-msvc", ehir_tables::TableFormat::Msvc),
                ("tables-clr", ehir_tables::TableFormat::Clr),
            ][..],
        ),
    ];
    for (module, emit_stage, options, table_stages) in per_abi {
        let Some(module) = module else {
            continue;
        };
        if wants(emit_stage) {
            report(
                emit_stage,
                measure(module, runs, |m| emit(m, &options).expect("emits")),
            );
        }
        for &(stage, format) in table_stages {
            if wants(stage) {
                report(
                    stage,
                    measure(module, runs, |m| {
                        ehir_tables::module_tables(&m, format)
                            .expect("tables")
                            .len()
                    }),
                );
            }
        }
    }
    if wants("run-all")
        && let (Some(it), Some(ms)) = (&itanium, &msvc)
    {
        let config = ehir_interp::RunConfig::default();
        let run_all = |()| {
            for m in [&parsed, &flat, it, ms] {
                let outcome = ehir_interp::run_module(m, &config);
                if let Err(e) = outcome {
                    eprintln!("run-all: {e}");
                }
            }
        };
        report("run-all", measure_with(runs, || (), run_all));
    }
    println!("rss {}", peak_rss_kib());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let kind = &args[1];
        let n: usize = args[2].parse().expect("size");
        let runs: usize = args[3].parse().expect("runs");
        let stages: Vec<String> = args[4].split(',').map(str::to_string).collect();
        child(kind, n, runs, &stages);
        return;
    }
    let mut runs = 3usize;
    let mut kinds: Vec<(String, Vec<usize>)> = KINDS
        .iter()
        .map(|(k, sizes)| (k.to_string(), sizes.to_vec()))
        .collect();
    let mut stages: Vec<String> = STAGES.iter().map(|s| s.to_string()).collect();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let value = it.next().unwrap_or_default();
        match a.as_str() {
            "--runs" => runs = value.parse().unwrap_or(runs),
            "--kinds" => {
                let wanted: Vec<&str> = value.split(',').collect();
                kinds.retain(|(k, _)| wanted.contains(&k.as_str()));
            }
            "--stages" => stages = value.split(',').map(str::to_string).collect(),
            "--sizes" => {
                let (kind, list) = value.split_once('=').unwrap_or(("", ""));
                let sizes: Vec<usize> = list.split(',').filter_map(|s| s.parse().ok()).collect();
                match kinds.iter_mut().find(|(k, _)| k == kind) {
                    Some(entry) => entry.1 = sizes,
                    None => kinds.push((kind.to_string(), sizes)),
                }
            }
            _ => {
                eprintln!(
                    "usage: scaling [--runs R] [--kinds K,..] [--stages S,..] [--sizes KIND=N,N,..]"
                );
                std::process::exit(2);
            }
        }
    }
    let exe = std::env::current_exe().expect("own path");
    for (kind, sizes) in &kinds {
        println!("## {kind} (best of {runs}; ratios per doubling of the size)");
        println!(
            "{:<18} {:>8} {:>12} {:>8} {:>12} {:>8} {:>11} {:>8}",
            "stage", "size", "time ms", "ratio", "heap KiB", "ratio", "rss KiB", "ratio"
        );
        let mut prev: std::collections::BTreeMap<String, (f64, f64, f64, usize)> =
            Default::default();
        for &n in sizes {
            let here = stages_at(kind, n, &stages);
            if here.len() < stages.len() {
                println!(
                    "({kind} {n}: quadratic by construction, left out: {})",
                    stages
                        .iter()
                        .filter(|s| !here.contains(s))
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            if here.is_empty() {
                continue;
            }
            let out = std::process::Command::new(&exe)
                .args([
                    "--child",
                    kind,
                    &n.to_string(),
                    &runs.to_string(),
                    &here.join(","),
                ])
                .output()
                .expect("child runs");
            if !out.status.success() {
                println!(
                    "{kind} {n}: child failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                );
                continue;
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let rss: f64 = text
                .lines()
                .find_map(|l| l.strip_prefix("rss "))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
            for line in text.lines().filter(|l| !l.starts_with("rss ")) {
                let mut parts = line.split_whitespace();
                let (Some(stage), Some(t), Some(h)) = (parts.next(), parts.next(), parts.next())
                else {
                    continue;
                };
                let t: f64 = t.parse().unwrap_or(0.0);
                let h: f64 = h.parse::<f64>().unwrap_or(0.0) / 1024.0;
                let ratio = |now: f64, before: Option<f64>| match before {
                    Some(b) if b > 0.0 => format!("{:.2}x", now / b),
                    _ => String::new(),
                };
                let p = prev.get(stage).copied();
                // Ratios are per doubling: a step of another factor is scaled to one.
                let steps = p
                    .map(|(_, _, _, pn)| (n as f64 / pn as f64).log2())
                    .unwrap_or(1.0);
                let per_doubling = |now: f64, before: Option<f64>| match before {
                    Some(b) if b > 0.0 && steps > 0.0 => {
                        format!("{:.2}x", (now / b).powf(1.0 / steps))
                    }
                    _ => ratio(now, None),
                };
                println!(
                    "{stage:<18} {n:>8} {:>12.2} {:>8} {:>12.0} {:>8} {:>11.0} {:>8}",
                    t * 1e3,
                    per_doubling(t, p.map(|x| x.0)),
                    h,
                    per_doubling(h, p.map(|x| x.1)),
                    rss,
                    per_doubling(rss, p.map(|x| x.2)),
                );
                prev.insert(stage.to_string(), (t, h, rss, n));
            }
        }
        println!();
    }
}
