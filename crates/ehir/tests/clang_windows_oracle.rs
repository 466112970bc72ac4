//! The oracles of the C++ programs (issue #17).
//!
//! - `tests/cxx-corpus/NN-name.cpp`: each program's `NN-name.expected` is what
//!   `g++ -std=c++17 -O0` makes it print and return (checked here, so a recording cannot
//!   go stale); under Clang for Windows (`clang++-22 --target=x86_64-pc-windows-msvc` with
//!   the project's headers in `crates/ehir-clang/include/msvc`, linked with ehir's own
//!   import libraries and startup object, run under wine) it must behave as recorded in
//!   `NN-name.expected-msvc` where the Microsoft ABI differs from g++ by design, else as
//!   `NN-name.expected`.
//! - `tests/cxx/*.cpp` and `examples/*.cpp`: under Clang for Windows each behaves as its
//!   `NN-name.expected-msvc` when there is one, else as g++ (`-std=c++14`) does. These are
//!   the expectations `msvc_e2e.rs` holds ehir's own Microsoft builds to.
//!
//! Every `.expected-msvc` must differ from g++'s outcome and be explained in
//! `tests/cxx-corpus/README.md`. `tests/cxx-corpus/regenerate.sh` writes the recordings:
//! the g++ ones itself, the Windows ones by running these tests with
//! `EHIR_RECORD_WINDOWS_EXPECTATIONS=1` (which writes or removes each `.expected-msvc`
//! instead of comparing). Nothing is skipped: a missing g++, clang++-22, llc,
//! llvm-dlltool, lld-link or wine fails the tests.

mod common;

use common::root;
use common::windows::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn corpus_dir() -> PathBuf {
    root().join("tests/cxx-corpus")
}

/// The `.cpp` files of `dirs`, sorted.
fn programs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        files.extend(
            std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "cpp")),
        );
    }
    files.sort();
    files
}

fn name(src: &Path) -> String {
    src.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn recording() -> bool {
    std::env::var_os("EHIR_RECORD_WINDOWS_EXPECTATIONS").is_some_and(|v| v == "1")
}

/// g++'s outcome for a program: built with `-std=STD` and run.
fn gxx_outcome(src: &Path, std: &str) -> Result<Outcome, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let exe = dir.path().join("gxx");
    gxx_std(std, &[src.to_path_buf()], &[], &exe)?;
    run_native(&exe, &[])
}

/// The markers of a program that Clang for Windows is not compared on: wine's msvcrt
/// departs from Microsoft's runtime there (`// wine-not-compared: REASON`), or Clang
/// departs from the standard and g++ (`// clang-windows-not-oracle: REASON`; ehir's own
/// Windows builds are held to g++'s outcome there, by `clang_msvc_e2e.rs`).
const NOT_COMPARED: [&str; 2] = ["// wine-not-compared:", "// clang-windows-not-oracle:"];

/// The reason a program is not compared under wine, if it has one.
fn not_compared(src: &Path) -> Result<Option<String>, String> {
    let text = std::fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    Ok(text
        .lines()
        .find_map(|l| {
            NOT_COMPARED
                .iter()
                .find_map(|marker| l.strip_prefix(marker))
        })
        .map(|reason| reason.trim().to_string()))
}

/// How a program fared under Clang for Windows.
enum WindowsResult {
    /// As g++.
    AsGxx,
    /// As its `.expected-msvc`.
    AsRecorded,
    /// Not compared, for the reason given in the program.
    NotCompared(String),
}

/// Compares Clang-for-Windows' outcome with `.expected-msvc` if present, else with
/// `native` (g++'s); in recording mode writes or removes `.expected-msvc` instead.
fn windows_case(src: &Path, native: &Outcome) -> Result<WindowsResult, String> {
    let recorded_path = sibling(src, "expected-msvc");
    let recorded = Outcome::read(&recorded_path)?;
    if let Some(reason) = not_compared(src)? {
        if recorded.is_some() {
            return Err(format!(
                "{} is not compared under wine but has a .expected-msvc",
                name(src)
            ));
        }
        return Ok(WindowsResult::NotCompared(reason));
    }
    let windows = clang_windows_outcome(src)?;
    if recording() {
        if windows == *native {
            if recorded.is_some() {
                std::fs::remove_file(&recorded_path).map_err(|e| e.to_string())?;
            }
            return Ok(WindowsResult::AsGxx);
        }
        std::fs::write(&recorded_path, windows.to_string()).map_err(|e| e.to_string())?;
        return Ok(WindowsResult::AsRecorded);
    }
    if recorded.as_ref() == Some(native) {
        return Err(format!(
            "{} records what g++ does; remove it",
            name(&recorded_path)
        ));
    }
    let expected = recorded.as_ref().unwrap_or(native);
    if windows != *expected {
        let which = if recorded.is_some() {
            name(&recorded_path)
        } else {
            "g++'s outcome".to_string()
        };
        return Err(format!(
            "Clang for Windows under wine differs from {which}\n--- expected ---\n{expected}--- wine ---\n{windows}"
        ));
    }
    Ok(match recorded {
        Some(_) => WindowsResult::AsRecorded,
        None => WindowsResult::AsGxx,
    })
}

/// Runs the Windows comparison over `cases`, prints a summary, fails with every failure.
fn check_windows(what: &str, cases: &[(PathBuf, Result<Outcome, String>)]) {
    let start = Instant::now();
    let results = in_parallel(cases, |(src, native)| match native {
        Ok(native) => windows_case(src, native),
        Err(e) => Err(e.clone()),
    });
    let mut differing = Vec::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for ((src, _), result) in cases.iter().zip(results) {
        match result {
            Ok(WindowsResult::AsGxx) => {}
            Ok(WindowsResult::AsRecorded) => differing.push(name(src)),
            Ok(WindowsResult::NotCompared(reason)) => {
                println!("  not compared: {}: {reason}", name(src));
                skipped.push(name(src));
            }
            Err(e) => failures.push(format!("=== {}\n{e}", name(src))),
        }
    }
    println!(
        "{what}: {} programs, {} behave as g++, {} as their .expected-msvc, {} not compared, {} fail ({:.1} s){}",
        cases.len(),
        cases.len() - differing.len() - skipped.len() - failures.len(),
        differing.len(),
        skipped.len(),
        failures.len(),
        start.elapsed().as_secs_f64(),
        if recording() { ", recorded" } else { "" }
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs misbehave:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let readme = std::fs::read_to_string(corpus_dir().join("README.md")).expect("README.md");
    for program in &differing {
        let stem = program.trim_end_matches(".cpp");
        assert!(
            readme.contains(&format!("{stem}.expected-msvc")),
            "tests/cxx-corpus/README.md does not explain {stem}.expected-msvc"
        );
    }
    for program in &skipped {
        assert!(
            readme.contains(program.as_str()),
            "tests/cxx-corpus/README.md does not say why {program} is not compared under wine"
        );
    }
}

#[test]
fn corpus_recordings_are_what_gxx_does() {
    let files = programs(&[corpus_dir()]);
    assert!(files.len() >= 40, "the corpus has {} programs", files.len());
    let results = in_parallel(&files, |src| gxx_outcome(src, "c++17"));
    let mut failures = Vec::new();
    for (src, result) in files.iter().zip(results) {
        let recorded = Outcome::read(&sibling(src, "expected"));
        match (result, recorded) {
            (Ok(got), Ok(Some(recorded))) if got == recorded => {}
            (Ok(got), Ok(Some(recorded))) => failures.push(format!(
                "=== {}: g++ no longer does what is recorded (run tests/cxx-corpus/regenerate.sh)\n--- recorded ---\n{recorded}--- g++ ---\n{got}",
                name(src)
            )),
            (Ok(_), Ok(None)) => failures.push(format!(
                "=== {}: no .expected (run tests/cxx-corpus/regenerate.sh)",
                name(src)
            )),
            (Err(e), _) | (_, Err(e)) => failures.push(format!("=== {}\n{e}", name(src))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_under_clang_for_windows_behaves_as_recorded() {
    require_msvc_tools();
    clang_windows();
    let cases: Vec<(PathBuf, Result<Outcome, String>)> = programs(&[corpus_dir()])
        .into_iter()
        .map(|src| {
            let expected = Outcome::read(&sibling(&src, "expected")).and_then(|o| {
                o.ok_or_else(|| "no .expected (run tests/cxx-corpus/regenerate.sh)".to_string())
            });
            (src, expected)
        })
        .collect();
    check_windows("corpus under Clang for Windows", &cases);
}

#[test]
fn cxx_tests_under_clang_for_windows_behave_as_recorded() {
    require_msvc_tools();
    clang_windows();
    let files = programs(&[root().join("tests/cxx"), root().join("examples")]);
    let natives = in_parallel(&files, |src| gxx_outcome(src, "c++14"));
    let cases: Vec<(PathBuf, Result<Outcome, String>)> = files.into_iter().zip(natives).collect();
    check_windows("tests/cxx under Clang for Windows", &cases);
}

#[test]
fn expectations_round_trip() {
    let outcome = Outcome {
        stdout: "a\n\nb".into(),
        status: 134,
    };
    assert_eq!(Outcome::parse(&outcome.to_string()), Ok(outcome));
    assert!(Outcome::parse("status 1\n").is_err());
}
