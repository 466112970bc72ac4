//! Differential tests of `lowering-prepare,flatten-cfg` against the interpreter: every
//! structured test program (the seed's structured listings, the inputs of the flatten and
//! lowering-prepare file tests) and a bounded number of generated programs give the same
//! observable trace at the structured and flat phases, with every `--throw-at` choice that
//! hits a distinct call. `EHIR_DIFF_COUNT` sets the number of generated programs (default
//! 300); `cargo run --release -p ehir-passes --example difftest -- --count 10000` is the
//! long run.

#[path = "common/differential.rs"]
mod differential;

use differential::{DiffReport, check_text};
use ehir_passes::testgen::{GenConfig, generate_program};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The defined functions of a module text (each becomes an entry of its own run).
fn entries(text: &str) -> Vec<String> {
    let Ok(m) = ehir_reader::parse_module("x", text) else {
        return Vec::new();
    };
    m.functions
        .values()
        .filter(|f| !f.is_declaration() && f.phase == ehir_core::Phase::Structured)
        .map(|f| m.ctx.name(f.name).to_string())
        .collect()
}

fn check_files(files: &[PathBuf]) -> (usize, usize, Vec<String>) {
    let (mut programs, mut runs, mut mismatches) = (0, 0, Vec::new());
    for file in files {
        let text = std::fs::read_to_string(file).expect("readable test file");
        // Files whose RUN lines expect an error are not runnable programs.
        if text.contains("RUN: not ") {
            continue;
        }
        for entry in entries(&text) {
            programs += 1;
            let name = format!("{}:@{entry}", file.display());
            let r: DiffReport = check_text(&text, Some(&entry), &name);
            runs += r.runs;
            mismatches.extend(r.mismatches);
        }
    }
    (programs, runs, mismatches)
}

fn cir_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "cir"));
    v.sort();
    v
}

#[test]
fn seed_structured_listings_agree_after_flattening() {
    let dir = root().join("tests/seeds/listings");
    let files: Vec<PathBuf> = [
        "03", "05", "07", "09", "12", "14", "16", "18", "25", "28", "31",
    ]
    .iter()
    .map(|n| {
        cir_files(&dir)
            .into_iter()
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{n}-"))
            })
            .expect("listing exists")
    })
    .collect();
    let (programs, runs, mismatches) = check_files(&files);
    assert_eq!(programs, 11);
    assert!(runs >= 11 * 2, "only {runs} runs");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn file_test_programs_agree_after_flattening() {
    let mut files = cir_files(&root().join("tests/filetests/flatten"));
    files.extend(cir_files(&root().join("tests/filetests/lowering-prepare")));
    assert!(files.len() >= 10, "file tests are missing");
    let (programs, runs, mismatches) = check_files(&files);
    assert!(programs >= 10);
    assert!(runs > programs);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn generated_programs_agree_after_flattening() {
    let count: u64 = std::env::var("EHIR_DIFF_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let cfg = GenConfig::default();
    let (mut runs, mut skipped, mut mismatches) = (0, 0, Vec::new());
    for seed in 0..count {
        let text = generate_program(seed, &cfg);
        let r = check_text(&text, Some("main"), &format!("seed {seed}"));
        runs += r.runs;
        skipped += r.skipped as u64;
        if !r.mismatches.is_empty() {
            mismatches.push(format!(
                "{}\n--- program (seed {seed}) ---\n{text}",
                r.mismatches.join("\n")
            ));
        }
    }
    assert!(
        skipped * 10 < count.max(1),
        "{skipped} of {count} programs hit the step limit"
    );
    assert!(runs as u64 > count, "only {runs} runs for {count} programs");
    assert!(
        mismatches.is_empty(),
        "{} mismatching programs; first:\n{}",
        mismatches.len(),
        mismatches[0]
    );
}
