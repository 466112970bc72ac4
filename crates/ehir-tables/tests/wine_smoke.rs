//! The Microsoft toolchain the MSVC pipeline targets, proven on hand-written LLVM IR
//! (`tests/e2e/msvc/*.ll`): llc for x86_64-pc-windows-msvc, an import library for wine's
//! msvcrt.dll made by llvm-dlltool, lld-link, and the executable run under wine. The runs
//! share one wine prefix and run one after another (the first creates the prefix).

mod common;

use std::path::Path;

fn build_and_run(name: &str, dir: &Path) -> (String, i32) {
    let ll = common::root()
        .join("tests/e2e/msvc")
        .join(format!("{name}.ll"));
    let exe = common::build_exe(&ll, dir);
    common::run_wine(&exe)
}

#[test]
fn funclet_programs_run_under_wine() {
    let dir = tempfile_dir();
    // Cleanups, nested catchswitches, catch by value and by reference, a derived object
    // caught by its base class, catch-all, rethrow.
    let (out, status) = build_and_run("smoke", &dir);
    assert_eq!(
        out,
        "~Obj 1\ncaught int 42\n~Obj 2\ncaught Base 7\nrethrowing\nouter caught 42\ndone\n"
    );
    assert_eq!(status, 0);
    // The terminate handler eh-abi-lowering=msvc gives a noexcept boundary: the callee's
    // cleanup runs, then msvcrt's terminate aborts with status 3.
    let (out, status) = build_and_run("terminate", &dir);
    assert_eq!(out, "start\ncleanup\nterminating\n");
    assert_eq!(status, 3);
    // An uncaught exception: wine unwinds (the cleanup runs) and exits with status 99,
    // where g++'s build terminates with 134 before unwinding.
    let (out, status) = build_and_run("uncaught", &dir);
    assert_eq!(out, "start\ncleanup\n");
    assert_eq!(status, 99);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh directory for the build products.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ehir-wine-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    dir
}
