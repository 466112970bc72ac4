//! `-j 1` and `-j 2` give byte-identical output, diagnostics and exit status: on a large
//! generated module (the EH pipeline workload and the structured benchmark function) and
//! on every `.cir` input of the file tests, through parse/verify/print and the Itanium and
//! MSVC pipelines.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The pipelines every input goes through (`None`: parse, verify and print only).
const PIPELINES: &[Option<&str>] = &[
    None,
    Some("lowering-prepare,flatten-cfg,eh-abi-lowering=itanium"),
    Some("lowering-prepare,flatten-cfg,eh-abi-lowering=msvc"),
];

/// Stdout, stderr and exit status of `ehir opt -j JOBS [-p PIPELINE] INPUT`.
fn opt(jobs: u32, pipeline: Option<&str>, input: &Path) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ehir"));
    cmd.arg("opt").arg("-j").arg(jobs.to_string());
    if let Some(p) = pipeline {
        cmd.arg("-p").arg(p);
    }
    let out = cmd.arg(input).output().expect("ehir runs");
    (out.stdout, out.stderr, out.status.code())
}

fn assert_same_at_1_and_2(input: &Path) {
    for &pipeline in PIPELINES {
        let one = opt(1, pipeline, input);
        let two = opt(2, pipeline, input);
        assert!(
            one == two,
            "{} with {pipeline:?}: -j 1 and -j 2 differ\n-j 1 stderr: {}\n-j 2 stderr: {}",
            input.display(),
            String::from_utf8_lossy(&one.1),
            String::from_utf8_lossy(&two.1),
        );
    }
}

#[test]
fn large_generated_modules_print_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let eh = dir.path().join("eh.cir");
    std::fs::write(&eh, ehir_testgen::eh_workload(1000).0).unwrap();
    let (out, err, status) = opt(
        2,
        Some("lowering-prepare,flatten-cfg,eh-abi-lowering=itanium"),
        &eh,
    );
    assert_eq!(status, Some(0), "{}", String::from_utf8_lossy(&err));
    assert!(out.len() > 500_000);
    assert_same_at_1_and_2(&eh);
    let structured = dir.path().join("structured.cir");
    std::fs::write(&structured, ehir_testgen::bench_function(100, 8)).unwrap();
    assert_same_at_1_and_2(&structured);
}

fn cir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            cir_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "cir") {
            out.push(path);
        }
    }
}

#[test]
fn every_file_test_input_prints_the_same_bytes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    let mut files = Vec::new();
    cir_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 100, "found only {} inputs", files.len());
    for file in &files {
        assert_same_at_1_and_2(file);
    }
}
