//! `ehir tables --abi itanium --compare-llc` on every C++ program of the corpus
//! (`tests/cxx/**.cpp` but the g++ halves `*.gxx.cpp` of mixed builds, `examples/*.cpp`)
//! and every C++ file test (`tests/filetests/**.cpp`
//! that the front end accepts; the ones that test its diagnostics are left out): each is
//! emitted with `ehir emit-llvm --abi itanium`, compiled with `llc-19 -relocation-model=pic`,
//! and ehir's LSDA of every function must equal the `GCC_except_table` llc wrote (exit
//! status 0, no `tables differ`). A missing llc fails the test.

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

/// Whether a file test checks front-end diagnostics (its input is meant not to compile:
/// `expected-error` annotations, or a RUN line `not %ehir opt`).
fn tests_diagnostics(text: &str) -> bool {
    text.contains("expected-error") || text.contains("RUN: not %ehir opt")
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
    let (mut programs, mut functions, mut up_to_dead_calls) = (0, 0, 0);
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
        let emit = Command::new(ehir())
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
        up_to_dead_calls += report.matches("llc deleted dead calls").count();
    }
    eprintln!(
        "itanium LSDA vs llc: {programs} programs, {functions} functions with an LSDA equal \
         ({up_to_dead_calls} after llc deleted dead calls)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(programs >= 90, "only {programs} programs compared");
    assert!(functions >= 150, "only {functions} functions compared");
}
