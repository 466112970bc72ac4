//! Helpers shared by the interpreter's integration tests: loading seed listings and
//! inline CIR, running them with throw/return scripts, and reading traces.

#![allow(dead_code)]

pub mod program;

use ehir_interp::{Event, RunConfig, RunOutcome, parse_return_spec, parse_throw_spec, run_module};
use std::path::PathBuf;

/// The workspace's `tests/` directory.
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests")
}

/// The text of seed listing `NN` (`tests/seeds/listings/NN-*.cir`), or of its corrected
/// copy (`tests/seeds/corrected/NN-*.cir`) when `corrected`.
pub fn listing(number: &str, corrected: bool) -> String {
    let dir = tests_dir()
        .join("seeds")
        .join(if corrected { "corrected" } else { "listings" });
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{number}-")) && n.ends_with(".cir"))
        })
        .collect();
    entries.sort();
    let path = entries
        .first()
        .unwrap_or_else(|| panic!("no listing {number} in {}", dir.display()));
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses CIR text; panics with the diagnostics when it does not parse.
pub fn parse(text: &str) -> ehir_core::Module {
    match ehir_reader::parse_module("test.cir", text) {
        Ok(m) => m,
        Err(d) => {
            let file = ehir_core::SourceFile::new("test.cir", text);
            panic!("does not parse:\n{}", file.render_all(&d))
        }
    }
}

/// Runs CIR text with `--throw-at` and `--returns` specs.
pub fn run_text(text: &str, throws: &[&str], returns: &[&str]) -> RunOutcome {
    run_with(text, throws, returns, |_| {})
}

/// Runs CIR text with specs and a final adjustment of the configuration.
pub fn run_with(
    text: &str,
    throws: &[&str],
    returns: &[&str],
    adjust: impl FnOnce(&mut RunConfig),
) -> RunOutcome {
    let module = parse(text);
    let mut config = RunConfig::default();
    for t in throws {
        config
            .throw_at
            .push(parse_throw_spec(t).expect("valid --throw-at"));
    }
    for r in returns {
        config
            .returns
            .push(parse_return_spec(r).expect("valid --returns"));
    }
    adjust(&mut config);
    run_module(&module, &config).expect("the run starts")
}

/// The whole trace, one line per event.
pub fn lines(o: &RunOutcome) -> Vec<String> {
    o.trace.iter().map(|e| e.to_string()).collect()
}

/// The observable trace, one line per event.
pub fn observable(o: &RunOutcome) -> Vec<String> {
    o.trace
        .iter()
        .filter(|e| e.is_observable())
        .map(|e| e.to_string())
        .collect()
}

/// External calls only (`call @f(...)`), the events the seed's prose talks about.
pub fn calls(o: &RunOutcome) -> Vec<String> {
    o.trace
        .iter()
        .filter(|e| matches!(e, Event::Call { .. }))
        .map(|e| e.to_string())
        .collect()
}

/// Asserts that `needles` occur in `haystack` in this order (not necessarily adjacent).
pub fn assert_in_order(haystack: &[String], needles: &[&str]) {
    let mut at = 0;
    for n in needles {
        match haystack[at..].iter().position(|l| l == n) {
            Some(i) => at += i + 1,
            None => panic!(
                "expected `{n}` (after position {at}) in the trace:\n{}",
                haystack.join("\n")
            ),
        }
    }
}

pub fn stdout(o: &RunOutcome) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &RunOutcome) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
