//! Helpers shared by the end-to-end tests of both ABIs (`itanium_e2e.rs`, `msvc_e2e.rs`):
//! the workspace root, the `ehir` binary, the seed listings, and the harness's entries
//! and scripted runs; `windows`: wine, and the Clang-for-Windows oracle.

#![allow(dead_code)]

pub mod windows;

use std::path::{Path, PathBuf};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// The `ehir` binary under test (`EHIR_BIN` overrides it).
pub fn ehir() -> PathBuf {
    std::env::var_os("EHIR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ehir")))
}

/// The seed listing `NN-*` with extension `ext` in `tests/seeds/DIR`.
pub fn listing(dir: &str, number: &str, ext: &str) -> PathBuf {
    let dir = root().join("tests/seeds").join(dir);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&format!("{number}-")) && name.ends_with(ext)
        })
        .collect();
    found.sort();
    assert_eq!(found.len(), 1, "listing {number}{ext} in {}", dir.display());
    found.remove(0)
}

pub fn seed(number: &str) -> PathBuf {
    listing("listings", number, ".cir")
}

pub fn seed_cpp(number: &str) -> PathBuf {
    listing("listings", number, ".cpp")
}

pub fn corrected(number: &str) -> PathBuf {
    listing("corrected", number, ".cir")
}

/// The entry the harness calls.
#[derive(Copy, Clone)]
pub enum Entry {
    /// `void someFunc()`
    Void,
    /// `int someFunc()`
    Int,
    /// `Derived::Derived()` (base-object constructor `_ZN7DerivedC2Ev`)
    Derived,
}

impl Entry {
    /// The preprocessor definitions that select this entry in the harness.
    pub fn define(self) -> &'static [&'static str] {
        match self {
            Entry::Void => &[],
            Entry::Int => &["-DEHIR_ENTRY_INT"],
            Entry::Derived => &["-DEHIR_ENTRY_DERIVED"],
        }
    }
}

/// One scripted run: `--throw-at` specs and `--returns` specs (the interpreter's
/// spelling), space-separated.
pub type Script = (&'static str, &'static str);

pub const NO_THROW: Script = ("", "");
pub const CTOR_THROWS: Script = ("@_ZN9SomeClassC1Ev=int:1", "");
pub const DTOR_THROWS: Script = ("@_ZN9SomeClassD1Ev=int:2", "");
pub const DO_SOMETHING_THROWS: Script = ("@_ZN9SomeClass11doSomethingEv=int:7", "");
pub const SOMECLASS_RUNS: &[Script] = &[NO_THROW, DO_SOMETHING_THROWS, CTOR_THROWS, DTOR_THROWS];

/// `SomeClass` as the harness defines it; the listings leave `!rec_SomeClass` undeclared.
pub const SOMECLASS_RECORD: &str = "!rec_SomeClass = !cir.record<class \"SomeClass\" {!s32i}>\n";
