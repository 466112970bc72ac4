//! The C++ corpus (`tests/cxx/*.cpp` and `examples/*.cpp`) through the Clang front end
//! (`ehir --frontend clang`): each program's stdout and exit status under
//! `ehir run --phase all` (every interpreter phase must agree) and from the executable
//! `ehir build` makes (Itanium, linked by g++) must equal g++'s (`g++ -std=c++14`, the
//! oracle; nothing is written by hand).
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

fn programs() -> Vec<PathBuf> {
    let root = common::root();
    let mut files = Vec::new();
    for dir in ["tests/cxx", "examples"] {
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
    let gxx = dir.path().join("gxx.exe");
    let out = Command::new("g++")
        .args(["-std=c++14", "-w", "-O0", "-o"])
        .arg(&gxx)
        .arg(src)
        .output()
        .expect("g++ runs");
    assert!(out.status.success(), "g++ rejected {}", src.display());
    let expected = run_exe(&gxx);
    let front_end = ["--frontend", "clang", "--std=c++14"];
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
