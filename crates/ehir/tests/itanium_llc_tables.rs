//! `ehir tables --abi itanium --compare-llc` on every C++ program of the corpus
//! (`tests/cxx/**.cpp` but the g++ halves `*.gxx.cpp` of mixed builds, `examples/*.cpp`)
//! and every C++ file test (`tests/filetests/**.cpp`
//! that the front end accepts; the ones that test its diagnostics are left out), compiled
//! by the Clang front end in C++14 or the dialect the file test's RUN lines give: each is
//! emitted with `ehir emit-llvm --abi itanium`, compiled with `llc-19 -relocation-model=pic`,
//! and ehir's LSDA of every function must equal the `GCC_except_table` llc wrote (exit
//! status 0, no `tables differ`). A missing llc fails the test.
//!
//! Where llc deletes code it proves dead, ehir's table covers calls llc's does not
//! (`llc deleted dead calls: ...`); each such function is listed in [`DEAD_CALLS`] with
//! the reason, and every listed one must still be observed, so the list cannot go stale.

mod common;

use common::{ehir, root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `.cpp` files under `dir`, recursively, sorted.
fn cpp_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.is_dir() {
            cpp_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "cpp") {
            out.push(path);
        }
    }
}

/// (file, function, what `llc deleted dead calls:` reports): the functions whose LSDA
/// covers calls that llc removed as dead code.
///
/// - A landing pad with a single clause and no cleanup is entered only for that clause:
///   llc folds the selector test and drops the `resume` path (`_Unwind_Resume`). (An
///   empty `throw()` filter has no test and no `resume` path to drop: the lowering calls
///   `__cxa_call_unexpected` unconditionally.)
/// - `tests/cxx/61`: the front end branches on a constant (`br i1 false`) to a
///   constructor call whose unwind edge is the only one of its kind there.
const DEAD_CALLS: &[(&str, &str, &str)] = &[
    (
        "tests/cxx/61-ternary-class-values.cpp",
        "main",
        "_ZN6ChoiceC1Ei -> pad action 0",
    ),
    (
        "tests/filetests/cxx/alloca.cpp",
        "_ZL4filli",
        "_Unwind_Resume",
    ),
    (
        "tests/filetests/cxx/msvc-virtual-bases.cpp",
        "_ZL6caughtRK6Shared",
        "_Unwind_Resume",
    ),
    (
        "tests/filetests/cxx/seed-11-simple-try-catch.cpp",
        "someFunc",
        "_Unwind_Resume",
    ),
    (
        "tests/filetests/interp/block-scopes-lowered.cpp",
        "main",
        "_Unwind_Resume",
    ),
    (
        "tests/filetests/tables/itanium-vs-llc.cpp",
        "_Z4speci",
        "_Unwind_Resume",
    ),
];

/// Whether a file test checks front-end diagnostics (its input is meant not to compile:
/// `expected-error` annotations, a RUN line `not %ehir opt`, or one that expects ehir to
/// exit with status 1).
fn tests_diagnostics(text: &str) -> bool {
    text.contains("expected-error")
        || text.contains("RUN: not %ehir opt")
        || text.contains("test $? -eq 1")
}

/// The C++ dialect a program is compiled in: the `--std=` its RUN lines give ehir, else
/// C++14 (the corpus's dialect, which has dynamic exception specifications).
fn dialect(text: &str) -> String {
    text.lines()
        .filter(|line| line.contains("RUN:"))
        .find_map(|line| {
            let at = line.find("%ehir --std=")? + "%ehir ".len();
            line[at..].split_whitespace().next().map(str::to_string)
        })
        .unwrap_or_else(|| "--std=c++14".to_string())
}

#[test]
fn itanium_lsda_equals_llc_on_corpus_and_cpp_file_tests() {
    let llc = ehir_llvm::find_tool(ehir_llvm::Tool::Llc, None).unwrap_or_else(|e| panic!("{e}"));
    let mut files = Vec::new();
    cpp_files(&root().join("tests/filetests"), &mut files);
    for dir in ["tests/cxx", "examples"] {
        let mut found = Vec::new();
        cpp_files(&root().join(dir), &mut found);
        // The corpus programs themselves, not the g++ halves of mixed builds.
        let top = root().join(dir);
        files.extend(found.into_iter().filter(|p| {
            p.parent() == Some(top.as_path()) || !p.to_string_lossy().ends_with(".gxx.cpp")
        }));
    }
    files.sort();
    let scratch = tempfile::tempdir().expect("temporary directory");
    let (mut programs, mut functions) = (0, 0);
    let mut dead_calls: Vec<(String, String, String)> = Vec::new();
    let mut failures = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let text = std::fs::read_to_string(file).expect("readable");
        let name = file
            .strip_prefix(root())
            .unwrap_or(file)
            .display()
            .to_string();
        if tests_diagnostics(&text) {
            continue;
        }
        let ll = scratch.path().join(format!("p{index}.ll"));
        let asm = scratch.path().join(format!("p{index}.s"));
        let std = dialect(&text);
        let emit = Command::new(ehir())
            .arg(&std)
            .args(["emit-llvm", "--abi", "itanium"])
            .arg(file)
            .arg("-o")
            .arg(&ll)
            .output()
            .expect("ehir runs");
        if !emit.status.success() {
            failures.push(format!(
                "{name}: emit-llvm fails: {}",
                String::from_utf8_lossy(&emit.stderr)
            ));
            continue;
        }
        let compiled = Command::new(&llc)
            .arg("-relocation-model=pic")
            .arg(&ll)
            .arg("-o")
            .arg(&asm)
            .output()
            .expect("llc runs");
        if !compiled.status.success() {
            failures.push(format!(
                "{name}: llc fails: {}",
                String::from_utf8_lossy(&compiled.stderr)
            ));
            continue;
        }
        let compare = Command::new(ehir())
            .arg(&std)
            .args(["tables", "--abi", "itanium", "--compare-llc"])
            .arg(&asm)
            .arg(file)
            .output()
            .expect("ehir runs");
        let report = String::from_utf8_lossy(&compare.stdout);
        if !compare.status.success() || report.contains("tables differ") {
            failures.push(format!(
                "{name}: {report}{}",
                String::from_utf8_lossy(&compare.stderr)
            ));
            continue;
        }
        programs += 1;
        functions += report.matches("tables match").count();
        for line in report.lines() {
            let Some((head, dead)) = line.split_once("; llc deleted dead calls: ") else {
                continue;
            };
            let function = head
                .strip_prefix("function @")
                .and_then(|h| h.split_once(':'))
                .map_or(head, |(f, _)| f);
            dead_calls.push((name.clone(), function.to_string(), dead.to_string()));
        }
    }
    eprintln!(
        "itanium LSDA vs llc: {programs} programs, {functions} functions with an LSDA equal \
         ({} after llc deleted dead calls)",
        dead_calls.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let expected: Vec<(String, String, String)> = DEAD_CALLS
        .iter()
        .map(|(f, g, d)| (f.to_string(), g.to_string(), d.to_string()))
        .collect();
    dead_calls.sort();
    assert_eq!(
        dead_calls, expected,
        "functions where llc deleted dead calls (observed vs DEAD_CALLS)"
    );
    assert!(programs >= 90, "only {programs} programs compared");
    assert!(functions >= 150, "only {functions} functions compared");
}
