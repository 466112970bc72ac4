//! Runs the `toylang` example (a small non-C++ front end on this crate): every sample
//! program must give the expected output at every interpreter phase and natively (LLVM 19
//! `llc` and `g++` must be installed: a missing tool fails this test), without and with
//! an injected throw.

use std::process::Command;

/// Runs the example with `args` and returns its stdout (it must succeed).
fn run_example(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "run",
            "-q",
            "-p",
            "ehir-builder",
            "--example",
            "toylang",
            "--",
        ])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "toylang {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The expected report: each program's one-line result at every phase and natively.
fn expected(results: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (program, line) in results {
        out.push_str(&format!("program {program}\n"));
        for phase in ["structured", "flat", "itanium", "msvc", "native"] {
            out.push_str(&format!("  {phase:<10} {line}\n"));
        }
    }
    out
}

#[test]
fn toylang_runs_at_every_phase_and_natively() {
    assert_eq!(
        run_example(&["--native"]),
        expected(&[
            ("loops", "exit=0 stdout=100 1 101 2 102 3 103 1007 3 6"),
            ("rethrow", "exit=10 stdout=200 200 200 10"),
        ])
    );
}

#[test]
fn toylang_with_an_injected_throw() {
    // The 2nd call of the external `probe` throws the int 7: `errdefer` runs, the catch
    // in `middle` prints it and rethrows, `defer` runs, `main` catches it.
    assert_eq!(
        run_example(&["--native", "--throw-at", "2:7"]),
        expected(&[
            ("loops", "exit=0 stdout=100 1 101 2 102 3 103 1007 3 6"),
            ("rethrow", "exit=7 stdout=200 -2 7 200 5007 200 7"),
        ])
    );
}
