//! Helpers shared by the reader's integration tests: locating the seed listings, parsing
//! with rendered diagnostics on failure, round-trip checks and diagnostic positions.

#![allow(dead_code)]

use ehir_core::{Diagnostics, Module, SourceFile, printer};
use std::path::{Path, PathBuf};

/// `tests/seeds/<dir>` of the workspace.
pub fn seeds_dir(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/seeds")
        .join(dir)
}

/// The `.cir` file of `dir` whose name starts with `NN-`.
pub fn seed(dir: &str, number: &str) -> (String, String) {
    let prefix = format!("{number}-");
    let dir = seeds_dir(dir);
    let mut matches: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "cir")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix))
        })
        .collect();
    matches.sort();
    assert_eq!(
        matches.len(),
        1,
        "expected one listing {number} in {}",
        dir.display()
    );
    let path = &matches[0];
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    (
        name,
        std::fs::read_to_string(path).expect("listing is readable"),
    )
}

/// A file of this crate's `tests/` directory.
pub fn test_file(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn render(name: &str, text: &str, d: &Diagnostics) -> String {
    SourceFile::new(name, text).render_all(d)
}

/// Parses or fails the test with the rendered diagnostics.
pub fn parse_ok(name: &str, text: &str) -> Module {
    ehir_reader::parse_module(name, text)
        .unwrap_or_else(|d| panic!("{name} does not parse:\n{}", render(name, text, &d)))
}

/// Parses, prints, parses the print and prints again; both prints must be identical.
/// Returns the canonical print.
pub fn round_trip(name: &str, text: &str) -> String {
    let first = printer::module_to_string(&parse_ok(name, text));
    let again = printer::module_to_string(&parse_ok("printed.cir", &first));
    assert_eq!(first, again, "{name}: printing does not round-trip");
    first
}

/// The diagnostics of a text that must not parse, as `(line, column, message)`.
pub fn errors(name: &str, text: &str) -> Vec<(usize, usize, String)> {
    let d = match ehir_reader::parse_module(name, text) {
        Ok(m) => panic!(
            "{name} parsed but must be rejected; it printed as:\n{}",
            printer::module_to_string(&m)
        ),
        Err(d) => d,
    };
    let source = SourceFile::new(name, text);
    d.0.iter()
        .map(|d| {
            let offset = d.loc.offset().expect("diagnostics carry a location");
            let (line, col) = source.line_col(offset);
            (line, col, d.message.clone())
        })
        .collect()
}

/// The lines of the diagnostics of a rejected text.
pub fn error_lines(name: &str, text: &str) -> Vec<usize> {
    errors(name, text).into_iter().map(|e| e.0).collect()
}

/// Whether the printed module contains `needle`, with a useful failure message.
pub fn assert_contains(printed: &str, needle: &str) {
    assert!(
        printed.contains(needle),
        "expected `{needle}` in:\n{printed}"
    );
}
