//! Runs the file tests of this crate's passes (`tests/filetests/flatten/`,
//! `tests/filetests/lowering-prepare/`) in-process, without the `ehir` binary: each `RUN:`
//! line of the form `[not] %ehir opt [-p PIPELINE] %s [2>&1] | REST` parses the file,
//! verifies it, runs the pipeline (verifying after each pass) and prints the module (or
//! the rendered diagnostics), and pipes that into `REST` (LLVM 19's `FileCheck`) under
//! `bash -o pipefail`. The workspace runner (`cargo test -p ehir --test filetests`) runs the
//! same lines through the real command line.

use ehir_core::SourceFile;
use ehir_passes::PassManager;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn llvm_bindir() -> String {
    std::env::var("EHIR_LLVM_BINDIR").unwrap_or_else(|_| {
        let out = Command::new("llvm-config-19")
            .arg("--bindir")
            .output()
            .expect("llvm-config-19 runs (install llvm-19)");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    })
}

/// Output of `ehir opt`: (success, stdout, stderr).
fn opt(path: &Path, pipeline: Option<&str>) -> (bool, String, String) {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).expect("readable test file");
    let src = SourceFile::new(&name, &text);
    let mut module = match ehir_reader::parse_module(&name, &text) {
        Ok(m) => m,
        Err(d) => return (false, String::new(), src.render_all(&d)),
    };
    if let Err(d) = ehir_core::verifier::verify_module(&module) {
        return (false, String::new(), src.render_all(&d));
    }
    if let Some(p) = pipeline {
        let mut pm = match PassManager::from_pipeline(p) {
            Ok(pm) => pm,
            Err(e) => return (false, String::new(), format!("{name}: error: {e}\n")),
        };
        if let Err(e) = pm.run(&mut module) {
            return (false, String::new(), src.render_all(&e.diagnostics()));
        }
    }
    (
        true,
        ehir_core::printer::module_to_string(&module),
        String::new(),
    )
}

fn run_line(path: &Path, line: &str) -> Result<(), String> {
    let (head, rest) = line
        .split_once('|')
        .ok_or_else(|| format!("RUN line without a pipe: {line}"))?;
    let mut words: Vec<&str> = head.split_whitespace().collect();
    let expect_failure = words.first() == Some(&"not");
    if expect_failure {
        words.remove(0);
    }
    if words.first() != Some(&"%ehir") || words.get(1) != Some(&"opt") {
        return Err(format!("unsupported RUN line: {line}"));
    }
    let mut pipeline = None;
    let mut merge_stderr = false;
    let mut i = 2;
    while i < words.len() {
        match words[i] {
            "-p" => {
                pipeline = words.get(i + 1).copied();
                i += 1;
            }
            "%s" => {}
            "2>&1" => merge_stderr = true,
            w => return Err(format!("unsupported argument '{w}' in: {line}")),
        }
        i += 1;
    }
    let (ok, stdout, stderr) = opt(path, pipeline);
    if ok == expect_failure {
        return Err(format!(
            "ehir opt {}: {line}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
            if ok {
                "succeeded unexpectedly"
            } else {
                "failed"
            }
        ));
    }
    let input = if merge_stderr {
        format!("{stdout}{stderr}")
    } else {
        stdout
    };
    let cmd = rest.replace("%s", &path.display().to_string());
    let path_env = format!(
        "{}:{}",
        llvm_bindir(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("bash")
        .args(["-o", "pipefail", "-c", &cmd])
        .env("PATH", path_env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{}: `{}` failed:\n{}{}\n--- input ---\n{input}",
            path.display(),
            rest.trim(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

fn run_dir(dir: &str) -> usize {
    let dir = root().join("tests/filetests").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("test directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cir"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut lines_run = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let lines: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once("RUN:").map(|(_, r)| r.trim()))
            .collect();
        if lines.is_empty() {
            failures.push(format!("{}: no RUN lines", file.display()));
        }
        for line in lines {
            lines_run += 1;
            if let Err(e) = run_line(file, line) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    lines_run
}

#[test]
fn flatten_file_tests() {
    assert!(run_dir("flatten") >= 10);
}

#[test]
fn lowering_prepare_file_tests() {
    assert!(run_dir("lowering-prepare") >= 3);
}
