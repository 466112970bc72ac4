//! The Clang front end on the Microsoft target (issue #17): `ehir --frontend clang build
//! --abi msvc` of the C++ corpus (`tests/cxx/*.cpp`, `examples/*.cpp`,
//! `tests/cxx-corpus/*.cpp`), run under wine and compared with Clang for Windows, the
//! Microsoft oracle: the program's `NN-name.expected-msvc` where one is recorded (where
//! Clang for Windows differs from g++ by design), else `NN-name.expected` (g++'s recorded
//! outcome, `tests/cxx-corpus`), else g++ `-std=c++14` run now (`tests/cxx`, `examples`).
//! Programs marked `// wine-not-compared:` are left out, as the oracle test does.
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

/// How one program fared: `Ok(None)` when it passes, `Ok(Some(reason))` when it is not
/// compared, `Err(first failure)` otherwise.
fn check_program(src: &Path, std: &str) -> Result<Option<String>, String> {
    let text = std::fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    if let Some(reason) = text.lines().find_map(|l| l.strip_prefix(NOT_COMPARED)) {
        return Ok(Some(reason.trim().to_string()));
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let want = expected(src, std, dir.path())?;
    for (i, (build, flags)) in MSVC_BUILDS.iter().enumerate() {
        let exe = dir.path().join(format!("ehir-{i}.exe"));
        let mut cmd = Command::new(ehir());
        cmd.args(["--frontend", "clang"])
            .arg(format!("--std={std}"))
            .args(["build", "--abi", "msvc"])
            .args(*flags)
            .arg(src)
            .arg("-o")
            .arg(&exe);
        check(
            cmd,
            &format!("ehir --frontend clang build --abi msvc ({build})"),
        )?;
        let got = run_wine(&exe, &[])?;
        if got != want {
            return Err(format!(
                "({build}) under wine differs from Clang for Windows\n--- expected ---\n{want}--- wine ---\n{got}"
            ));
        }
    }
    Ok(None)
}

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
    for ((src, _), result) in files.iter().zip(results) {
        let name = listed_name(src);
        match result {
            Ok(Some(_)) => not_compared += 1,
            Ok(None) => {
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
        .args(["--frontend", "clang", "build", "--abi", "msvc"])
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
