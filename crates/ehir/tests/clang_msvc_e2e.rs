//! The C++ front end on the Microsoft target (issue #17): `ehir build --abi msvc` of the
//! C++ corpus (`tests/cxx/*.cpp`, `examples/*.cpp`, `tests/cxx-corpus/*.cpp`), run under
//! wine and compared with Clang for Windows, the Microsoft oracle: the program's
//! `NN-name.expected-msvc` where one is recorded (where Clang for Windows differs from
//! g++ by design), else `NN-name.expected` (g++'s recorded outcome, `tests/cxx-corpus`),
//! else g++ `-std=c++14` run now (`tests/cxx`, `examples`). The interpreter must agree
//! too: `ehir run --abi msvc --phase all` (the program compiled for Windows, at the
//! structured, flat and msvc phases) behaves as the oracle, except that an abort
//! (std::terminate) ends with the interpreter's status 134 and glibc's loss of buffered
//! output, where msvcrt exits with 3 and writes it out. Programs marked
//! `// wine-not-compared:` are left out, as the oracle test does; those marked
//! `// clang-windows-not-oracle:` (where Clang departs from the standard and g++) are held
//! to g++'s recorded outcome.
//!
//! The programs expected to pass are listed in `clang_msvc_passing.txt`: one that fails
//! is a regression, one that passes without being listed fails the test too, so the list
//! stays exact. The first failure of every other program is printed.
//!
//! Needs `clang++-22` (or `$EHIR_CLANG`), llc, llvm-dlltool, lld-link, g++ and wine; fails
//! loudly without them.

mod common;

use common::windows::*;
use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The marker of a program whose Clang-for-Windows run is not compared under wine.
const NOT_COMPARED: &str = "// wine-not-compared:";

/// The corpus programs and the `-std=` each is compiled with.
fn programs() -> Vec<(PathBuf, &'static str)> {
    let mut files = Vec::new();
    for (dir, std) in [
        ("tests/cxx", "c++14"),
        ("examples", "c++14"),
        ("tests/cxx-corpus", "c++17"),
    ] {
        let dir = root().join(dir);
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
            .collect();
        found.sort();
        files.extend(found.into_iter().map(|f| (f, std)));
    }
    files
}

/// `DIR/NAME`, the name a program has in the passing list.
fn listed_name(src: &Path) -> String {
    let dir = src
        .parent()
        .and_then(|d| d.file_name())
        .unwrap_or_default()
        .to_string_lossy();
    let stem = src.file_stem().unwrap_or_default().to_string_lossy();
    format!("{dir}/{stem}")
}

/// What Clang for Windows does with the program (see the module documentation).
fn expected(src: &Path, std: &str, dir: &Path) -> Result<Outcome, String> {
    if let Some(outcome) = Outcome::read(&sibling(src, "expected-msvc"))? {
        return Ok(outcome);
    }
    if let Some(outcome) = Outcome::read(&sibling(src, "expected"))? {
        return Ok(outcome);
    }
    let native = dir.join("gxx");
    gxx_std(std, &[src.to_path_buf()], &[], &native)?;
    run_native(&native, &[])
}

/// How one program fared under wine.
enum Checked {
    /// Marked `// wine-not-compared:`, with the reason.
    NotCompared(String),
    /// Its builds behave as Clang for Windows; how the interpreter did (its first
    /// difference).
    Passed(Result<(), String>),
}

/// How one program fared: `Err(first failure)` when a build under wine does not behave
/// as Clang for Windows.
fn check_program(src: &Path, std: &str) -> Result<Checked, String> {
    let text = std::fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    if let Some(reason) = text.lines().find_map(|l| l.strip_prefix(NOT_COMPARED)) {
        return Ok(Checked::NotCompared(reason.trim().to_string()));
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let want = expected(src, std, dir.path())?;
    for (i, (build, flags)) in MSVC_BUILDS.iter().enumerate() {
        let exe = dir.path().join(format!("ehir-{i}.exe"));
        let mut cmd = Command::new(ehir());
        cmd.arg(format!("--std={std}"))
            .args(["build", "--abi", "msvc"])
            .args(*flags)
            .arg(src)
            .arg("-o")
            .arg(&exe);
        check(cmd, &format!("ehir build --abi msvc ({build})"))?;
        let got = run_wine(&exe, &[])?;
        if got != want {
            return Err(format!(
                "({build}) under wine differs from Clang for Windows\n--- expected ---\n{want}--- wine ---\n{got}"
            ));
        }
    }
    Ok(Checked::Passed(check_interpreted(src, std, &want)))
}

/// `ehir run --abi msvc --phase all` of the program behaves as Clang for Windows (see
/// the module documentation for an abort).
fn check_interpreted(src: &Path, std: &str, want: &Outcome) -> Result<(), String> {
    let mut cmd = Command::new(ehir());
    cmd.arg(format!("--std={std}"))
        .args(["run", "--abi", "msvc", "--phase", "all"])
        .arg(src);
    let interpreted = run(cmd, "ehir run --abi msvc --phase all")?;
    let aborted_alike =
        want.status == MSVCRT_ABORT_STATUS && interpreted.status == INTERPRETER_ABORT_STATUS;
    if interpreted != *want && !aborted_alike {
        return Err(format!(
            "ehir run --abi msvc --phase all differs from Clang for Windows\n--- expected ---\n{want}--- interpreted ---\n{interpreted}"
        ));
    }
    Ok(())
}

/// Programs whose builds behave as Clang for Windows but whose interpreted run (`ehir run
/// --abi msvc --phase all`) does not, each with the reason; each must still differ, so
/// that the list stays exact.
const INTERPRETER_DIFFERS: &[(&str, &str)] = &[
    (
        "cxx-corpus/31-catch-copy-ctor-throws",
        "a by-value catch object's copy constructor throws while the runtime builds it: \
         Microsoft's vcruntime aborts (an `__except` around the copy in \
         `BuildCatchObjectInternal`) and so does the interpreter, while wine's msvcrt, the \
         recorded oracle, lets the new exception reach the sibling `catch (int)`",
    ),
    (
        "cxx-corpus/30-throw-nullptr",
        "`throw nullptr` is not caught by `void*` handlers in the interpreter (issue #17: \
         the phase-aware rule for null pointer conversions in handlers is missing)",
    ),
];

/// The exit status of `abort` (so of `std::terminate`) under msvcrt.
const MSVCRT_ABORT_STATUS: i32 = 3;

/// The interpreter's exit status of `abort` ([`ehir_interp::EXIT_ABORT`], as on Linux).
const INTERPRETER_ABORT_STATUS: i32 = 134;

/// The first line of a failure that says what went wrong.
fn first_failure(error: &str) -> String {
    error
        .lines()
        .find(|l| l.contains("error") || l.contains("unsupported") || l.contains("differs"))
        .unwrap_or_else(|| error.lines().next().unwrap_or(""))
        .trim()
        .chars()
        .take(200)
        .collect()
}

#[test]
fn corpus_through_clang_for_msvc_matches_clang_for_windows_under_wine() {
    require_msvc_tools();
    clang_windows();
    let start = Instant::now();
    let files = programs();
    let list_path = root().join("crates/ehir/tests/clang_msvc_passing.txt");
    let listed: BTreeSet<String> = std::fs::read_to_string(&list_path)
        .unwrap_or_else(|e| panic!("{}: {e}", list_path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let results = in_parallel(&files, |(src, std)| check_program(src, std));
    let mut passing = Vec::new();
    let mut regressions = Vec::new();
    let mut unexpected = Vec::new();
    let mut not_compared = 0;
    let mut failures = Vec::new();
    let mut interpreter_failures = Vec::new();
    let mut interpreter_fixed = Vec::new();
    for ((src, _), result) in files.iter().zip(results) {
        let name = listed_name(src);
        match result {
            Ok(Checked::NotCompared(reason)) => {
                not_compared += 1;
                println!("not compared {name}: {reason}");
            }
            Ok(Checked::Passed(interpreted)) => {
                let known = INTERPRETER_DIFFERS.iter().any(|(p, _)| *p == name);
                match (interpreted, known) {
                    (Err(e), false) => interpreter_failures.push(format!("=== {name}\n{e}")),
                    (Ok(()), true) => interpreter_fixed.push(name.clone()),
                    _ => {}
                }
                if !listed.contains(&name) {
                    unexpected.push(name.clone());
                }
                passing.push(name);
            }
            Err(e) => {
                failures.push(format!("  {name}: {}", first_failure(&e)));
                if listed.contains(&name) {
                    regressions.push(format!("=== {name}\n{e}"));
                }
            }
        }
    }
    println!(
        "clang front end, --abi msvc: {} of {} programs behave as Clang for Windows under wine, {} fail, {not_compared} not compared ({:.1} s)",
        passing.len(),
        files.len(),
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    for f in &failures {
        println!("{f}");
    }
    let stale: Vec<&String> = listed
        .iter()
        .filter(|l| !files.iter().any(|(f, _)| listed_name(f) == **l))
        .collect();
    assert!(
        stale.is_empty(),
        "clang_msvc_passing.txt names programs not in the corpus: {stale:?}"
    );
    assert!(
        regressions.is_empty(),
        "{} listed programs fail:\n{}",
        regressions.len(),
        regressions.join("\n")
    );
    assert!(
        unexpected.is_empty(),
        "programs pass but are not in clang_msvc_passing.txt (add them): {unexpected:?}"
    );
    assert!(
        interpreter_failures.is_empty(),
        "{} programs run under wine as Clang for Windows, but not in the interpreter:\n{}",
        interpreter_failures.len(),
        interpreter_failures.join("\n")
    );
    assert!(
        interpreter_fixed.is_empty(),
        "INTERPRETER_DIFFERS lists programs the interpreter now runs as Clang for Windows (remove them): {interpreter_fixed:?}"
    );
    for (name, _) in INTERPRETER_DIFFERS {
        assert!(
            listed.contains(*name),
            "INTERPRETER_DIFFERS names {name}, which is not in clang_msvc_passing.txt"
        );
    }
}

/// A header the shipped Windows headers lack is a clear diagnostic, and the temporary
/// directory the headers were written to is gone once `ehir` exits.
#[test]
fn a_missing_windows_header_is_diagnosed_and_the_headers_are_removed() {
    clang_windows();
    let dir = tempfile::tempdir().expect("temporary directory");
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).expect("writable");
    let src = dir.path().join("vec.cpp");
    std::fs::write(
        &src,
        "#include <vector>\nint main() { std::vector<int> v; return 0; }\n",
    )
    .expect("writable");
    let out = Command::new(ehir())
        .args(["build", "--abi", "msvc"])
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("vec.exe"))
        .env("TMPDIR", &temp)
        .output()
        .expect("ehir runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ehir accepted <vector>");
    assert!(
        stderr.contains("'vector' file not found")
            && stderr.contains("--abi msvc")
            && stderr.contains("stdexcept"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(&temp)
        .expect("readable")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}
