//! Runs the C++ file tests of `tests/filetests/cxx` in process: the two RUN-line forms
//! they use, `%ehir opt %s | FileCheck %s` and `not %ehir opt %s 2>&1 | FileCheck %s`,
//! with the front end (plus the verifier) standing in for `ehir opt` and LLVM's
//! FileCheck checking the output. (The workspace's file-test runner runs the same files
//! through the real CLI.)

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn filecheck() -> &'static str {
    for name in ["FileCheck-19", "FileCheck"] {
        if Command::new(name)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            return name;
        }
    }
    panic!("FileCheck (llvm-19-tools) is required by the C++ file tests");
}

/// What `ehir opt FILE.cpp` prints: the module on stdout, or diagnostics on stderr.
fn opt(path: &str, text: &str) -> Result<String, String> {
    let module = ehir_cxx::compile(path, text)
        .map_err(|ds| ehir_core::SourceFile::new(path, text).render_all(&ds))?;
    ehir_core::verifier::verify_module(&module)
        .map_err(|ds| ehir_core::SourceFile::new(path, text).render_all(&ds))?;
    Ok(ehir_core::printer::module_to_string(&module))
}

#[test]
fn cxx_file_tests() {
    let fc = filecheck();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests/cxx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/filetests/cxx exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "C++ file tests missing");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let name = f.display().to_string();
        let runs: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("// RUN:"))
            .map(str::trim)
            .collect();
        assert!(!runs.is_empty(), "{name} has no RUN line");
        for run in runs {
            let (expect_ok, input) = match run {
                "%ehir opt %s | FileCheck %s" => (true, opt(&name, &text)),
                "not %ehir opt %s 2>&1 | FileCheck %s" => (false, opt(&name, &text)),
                other => panic!("{name}: RUN form not handled here: {other}"),
            };
            let stream = match (expect_ok, input) {
                (true, Ok(out)) => out,
                (false, Err(err)) => err,
                (true, Err(err)) => {
                    failures.push(format!("{name}: expected success, got:\n{err}"));
                    continue;
                }
                (false, Ok(_)) => {
                    failures.push(format!("{name}: expected an error, but it compiled"));
                    continue;
                }
            };
            let mut child = Command::new(fc)
                .arg(f)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("FileCheck runs");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(stream.as_bytes())
                .expect("write");
            let out = child.wait_with_output().expect("FileCheck finishes");
            if !out.status.success() {
                failures.push(format!(
                    "{name}: FileCheck failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
