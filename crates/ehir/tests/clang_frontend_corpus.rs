//! The C++ corpus (`tests/cxx/*.cpp`, `examples/*.cpp` and `tests/cxx-corpus/*.cpp`)
//! through the Clang front end (`ehir --frontend clang`): each program's stdout and exit
//! status under `ehir run --phase all` (every interpreter phase must agree) and from the
//! executable `ehir build` makes (Itanium, linked by g++) must equal g++'s, the oracle
//! (nothing is written by hand): for `tests/cxx` and `examples`, g++ `-std=c++14` runs
//! each time; for `tests/cxx-corpus`, g++'s recorded outcome (`NN-name.expected`, made by
//! its `regenerate.sh` with `-std=c++17`, the dialect the front end then compiles in).
//!
//! The programs expected to pass are listed in `clang_frontend_passing.txt`: one that
//! fails is a regression (the test fails and says why); one that passes without being
//! listed is reported (and fails the test too, so that the list is kept exact).
//! Needs `clang++-22` (or `$EHIR_CLANG`), g++ and llc-19; fails loudly without them.

mod common;

use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a program run observably did.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Observed {
    stdout: String,
    status: i32,
}

fn observe(output: std::process::Output) -> Observed {
    use std::os::unix::process::ExitStatusExt;
    let status = output
        .status
        .code()
        .unwrap_or_else(|| 128 + output.status.signal().unwrap_or(0));
    Observed {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        status,
    }
}

fn run_exe(exe: &Path) -> Observed {
    let output = Command::new(exe)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    observe(output)
}

/// The corpus whose g++ outcomes are recorded next to each program (`NN-name.expected`).
const RECORDED_CORPUS: &str = "tests/cxx-corpus";

/// Whether `src` belongs to the recorded corpus.
fn is_recorded(src: &Path) -> bool {
    src.parent()
        .is_some_and(|dir| dir.ends_with(RECORDED_CORPUS))
}

/// g++'s recorded outcome of a `tests/cxx-corpus` program: its `.expected` file's first
/// line is `exit STATUS`, the rest is stdout byte for byte.
fn recorded_outcome(src: &Path) -> Observed {
    let path = src.with_extension("expected");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (first, stdout) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    let status = first
        .strip_prefix("exit ")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: first line is not 'exit STATUS'", path.display()));
    Observed {
        stdout: stdout.to_string(),
        status,
    }
}

/// g++'s outcome of `src`, compiled and run now (`-std=c++14`).
fn gxx_outcome(src: &Path, dir: &Path) -> Observed {
    let gxx = dir.join("gxx.exe");
    let out = Command::new("g++")
        .args(["-std=c++14", "-w", "-O0", "-o"])
        .arg(&gxx)
        .arg(src)
        .output()
        .expect("g++ runs");
    assert!(out.status.success(), "g++ rejected {}", src.display());
    run_exe(&gxx)
}

fn programs() -> Vec<PathBuf> {
    let root = common::root();
    let mut files = Vec::new();
    for dir in ["tests/cxx", "examples", RECORDED_CORPUS] {
        files.extend(
            std::fs::read_dir(root.join(dir))
                .expect("directory exists")
                .map(|e| e.expect("entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "cpp")),
        );
    }
    files.sort();
    files
}

fn name(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Why a program fails, or `Ok` when both paths match g++.
fn check(src: &Path) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let (expected, dialect) = if is_recorded(src) {
        (recorded_outcome(src), "--std=c++17")
    } else {
        (gxx_outcome(src, dir.path()), "--std=c++14")
    };
    let front_end = ["--frontend", "clang", dialect];
    let run = Command::new(common::ehir())
        .args(front_end)
        .args(["run", "--phase", "all"])
        .arg(src)
        .stdin(Stdio::null())
        .output()
        .expect("ehir runs");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    let interpreted = observe(run);
    if interpreted != expected {
        return Err(format!(
            "ehir run --phase all: {:?}, g++: {:?}\n{}",
            interpreted,
            expected,
            stderr.lines().take(3).collect::<Vec<_>>().join("\n")
        ));
    }
    let exe = dir.path().join("ehir.exe");
    let build = Command::new(common::ehir())
        .args(front_end)
        .arg("build")
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("ehir runs");
    if !build.status.success() {
        return Err(format!(
            "ehir build: {}",
            String::from_utf8_lossy(&build.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let native = run_exe(&exe);
    if native != expected {
        return Err(format!("ehir build: {native:?}, g++: {expected:?}"));
    }
    Ok(())
}

#[test]
fn the_corpus_through_the_clang_front_end_matches_gxx() {
    let listed: Vec<String> = include_str!("clang_frontend_passing.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let programs = programs();
    for name in &listed {
        assert!(
            programs.iter().any(|p| &self::name(p) == name),
            "clang_frontend_passing.txt lists '{name}', which is not a corpus program"
        );
    }
    let results: Vec<(String, Result<(), String>)> =
        programs.par_iter().map(|p| (name(p), check(p))).collect();
    let passed = results.iter().filter(|(_, r)| r.is_ok()).count();
    println!(
        "clang front end: {passed} of {} programs pass",
        results.len()
    );
    let mut problems = Vec::new();
    for (name, result) in &results {
        match (result, listed.contains(name)) {
            (Err(why), true) => problems.push(format!("REGRESSION {name}: {why}")),
            (Ok(()), false) => problems.push(format!(
                "UNEXPECTED PASS {name}: add it to clang_frontend_passing.txt"
            )),
            (Err(why), false) => println!("expected failure {name}: {why}"),
            (Ok(()), true) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
