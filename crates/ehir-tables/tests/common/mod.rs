//! Helpers shared by the integration tests: the workspace root, LLVM 19's tools and the
//! wine runner.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// LLVM 19's bin directory: `EHIR_LLVM_BINDIR`, else `llvm-config-19 --bindir`. A missing
/// LLVM is a failure, not a skip.
pub fn llvm_bindir() -> PathBuf {
    if let Ok(d) = std::env::var("EHIR_LLVM_BINDIR") {
        return PathBuf::from(d);
    }
    let out = Command::new("llvm-config-19")
        .arg("--bindir")
        .output()
        .expect("llvm-config-19 runs (install the Debian package llvm-19)");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

pub fn llvm_tool(name: &str) -> PathBuf {
    let path = llvm_bindir().join(name);
    assert!(
        path.exists(),
        "{} not found (install the Debian packages llvm-19, lld-19)",
        path.display()
    );
    path
}

/// Runs a command and returns its output; panics with its stderr when it fails.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The x64 Windows assembly llc writes for an LLVM IR file.
pub fn llc_asm(ll: &Path) -> String {
    let out = run_ok(
        Command::new(llvm_tool("llc"))
            .arg("-mtriple=x86_64-pc-windows-msvc")
            .arg("-filetype=asm")
            .arg(ll)
            .arg("-o")
            .arg("-"),
    );
    String::from_utf8(out.stdout).expect("llc writes text")
}

/// The functions the wine tests import from wine's msvcrt.dll.
const MSVCRT_EXPORTS: &[&str] = &[
    "printf",
    "puts",
    "fflush",
    "exit",
    "abort",
    "_CxxThrowException",
    "__CxxFrameHandler3",
    "?terminate@@YAXXZ",
];

/// Builds a PE executable from x86_64-pc-windows-msvc LLVM IR: llc, an import library
/// for msvcrt.dll made by llvm-dlltool, lld-link. Unlike `ehir build --abi msvc` it links
/// no startup object: `main` is the entry, so an uncaught exception shows wine's own
/// behaviour.
pub fn build_exe(ll: &Path, dir: &Path) -> PathBuf {
    let name = ll
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .to_string();
    let def = dir.join("msvcrt.def");
    let lib = dir.join("msvcrt.lib");
    let text = ehir_llvm::msvc_toolchain::def_file("msvcrt", MSVCRT_EXPORTS);
    std::fs::write(&def, text).expect("write the .def");
    run_ok(
        Command::new(llvm_tool("llvm-dlltool"))
            .args(["-m", "i386:x86-64", "-d"])
            .arg(&def)
            .arg("-l")
            .arg(&lib),
    );
    let obj = dir.join(format!("{name}.obj"));
    run_ok(
        Command::new(llvm_tool("llc"))
            .arg("-mtriple=x86_64-pc-windows-msvc")
            .arg("-filetype=obj")
            .arg(ll)
            .arg("-o")
            .arg(&obj),
    );
    let exe = dir.join(format!("{name}.exe"));
    let mut out = std::ffi::OsString::from("/out:");
    out.push(&exe);
    run_ok(
        Command::new(llvm_tool("lld-link"))
            .args([
                "/nologo",
                "/entry:main",
                "/subsystem:console",
                "/nodefaultlib",
                "/machine:x64",
            ])
            .arg(out)
            .arg(&obj)
            .arg(&lib),
    );
    exe
}

/// Runs a PE executable under wine (`ehir_testgen::wine`), headless; returns stdout with
/// `\r` removed and the exit status. A missing wine is a failure (install the Debian
/// packages wine, wine64).
pub fn run_wine(exe: &Path) -> (String, i32) {
    ehir_testgen::wine::wine_ready();
    let out = ehir_testgen::wine::wine_command(exe)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run wine ({e}); install the Debian packages wine and wine64")
        });
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    (stdout, out.status.code().unwrap_or(-1))
}
