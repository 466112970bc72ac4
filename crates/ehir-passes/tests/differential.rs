//! Differential tests of `lowering-prepare,flatten-cfg` against the interpreter: every
//! structured test program (the seed's structured listings, every structured function of
//! the file tests) and a bounded number of generated programs give the same
//! observable trace at the structured and flat phases, with every `--throw-at` choice that
//! hits a distinct call. `EHIR_DIFF_COUNT` sets the number of generated programs (default
//! 300); `cargo run --release -p ehir-passes --example difftest -- --count 10000` is the
//! long run.

use ehir_testgen::differential::{self, DiffReport, check_text};
use ehir_testgen::{GenConfig, generate_program};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The defined functions of a module text (each becomes an entry of its own run).
fn entries(text: &str) -> Vec<String> {
    ehir_reader::parse_module("x", text)
        .map(|m| differential::structured_entries(&m))
        .unwrap_or_default()
}

/// Programs on which the interpreter is known to be wrong (so the comparison of the
/// structured and flat runs must fail), as lit's XFAIL: (file name, entry, why). If one
/// of them starts to agree, the test fails so that the entry is removed.
const XFAIL: &[(&str, &str, &str)] = &[];

fn check_files(files: &[PathBuf]) -> (usize, usize, Vec<String>) {
    let (mut programs, mut runs, mut mismatches) = (0, 0, Vec::new());
    for file in files {
        let text = std::fs::read_to_string(file).expect("readable test file");
        // Files whose RUN lines expect an error are not runnable programs.
        if text.contains("RUN: not ") {
            continue;
        }
        let file_name = file.file_name().unwrap().to_string_lossy().to_string();
        for entry in entries(&text) {
            programs += 1;
            let name = format!("{}:@{entry}", file.display());
            let r: DiffReport = check_text(&text, Some(&entry), &name);
            runs += r.runs;
            if let Some(why) = &r.msvc_not_expressible {
                eprintln!("{name}: msvc phase not compared: {why}");
            }
            let xfail = XFAIL
                .iter()
                .find(|(f, e, _)| *f == file_name && *e == entry);
            match xfail {
                Some((_, _, why)) => {
                    if r.mismatches.is_empty() {
                        mismatches.push(format!(
                            "{name}: expected to differ ({why}) but agrees now: remove it from XFAIL"
                        ));
                    } else {
                        eprintln!("XFAIL {name}: {why}");
                    }
                }
                None => mismatches.extend(r.mismatches),
            }
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
    eprintln!("{programs} seed listings, {runs} run pairs");
    assert_eq!(programs, 11);
    assert!(runs >= 11 * 2, "only {runs} runs");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Every `.cir` file under `dir`, recursively, sorted.
fn cir_files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "cir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn file_test_programs_agree_after_flattening() {
    // Every structured program of the file tests (files that expect errors excepted).
    let files: Vec<PathBuf> = cir_files_under(&root().join("tests/filetests"))
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.contains("expected-error")
                && ehir_reader::parse_module("x", &text)
                    .is_ok_and(|m| ehir_core::verifier::verify_module(&m).is_ok())
        })
        .collect();
    let flatten_tests = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("filetests/flatten/"))
        .count();
    assert!(flatten_tests >= 10, "flatten file tests are missing");
    let (programs, runs, mismatches) = check_files(&files);
    eprintln!(
        "{} files, {programs} entry functions, {runs} run pairs",
        files.len()
    );
    assert!(programs >= 20, "only {programs} programs");
    assert!(runs > programs);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn cpp_file_test_programs_agree_after_flattening() {
    // The C++ file tests, through the Clang front end (files that expect errors, and those
    // that name no Clang, excepted).
    let dir = root().join("tests/filetests/cxx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "cpp"));
    files.sort();
    let (mut programs, mut runs, mut mismatches) = (0, 0, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        if text.contains("RUN: not ")
            || text.contains("expected-error")
            || text.contains("test $? -eq 1")
        {
            continue;
        }
        let name = file.display().to_string();
        // The dialect of the C++ file tests (dynamic exception specifications included).
        let options = ehir_clang::Options {
            clang: ehir_clang::ClangOptions {
                std: Some("c++14".to_string()),
                ..Default::default()
            },
            ..Default::default()
        };
        let module = match ehir_clang::compile_file(file, &text, &options) {
            Ok(m) => m,
            Err(d) => {
                mismatches.push(format!("{name}: does not compile: {d}"));
                continue;
            }
        };
        for entry in differential::structured_entries(&module) {
            programs += 1;
            let r = differential::check_module(&module, Some(&entry), &format!("{name}:@{entry}"));
            runs += r.runs;
            mismatches.extend(r.mismatches);
        }
    }
    eprintln!(
        "{} C++ files, {programs} entry functions, {runs} run pairs",
        files.len()
    );
    assert!(programs >= 10, "only {programs} C++ entry functions");
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
    eprintln!("{count} generated programs, {runs} run pairs, {skipped} skipped");
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
