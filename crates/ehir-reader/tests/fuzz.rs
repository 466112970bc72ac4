//! Deterministic mutation fuzzing of the seed listings, the corrected copies, the wrapped
//! fragments and the canonical every-op file: the reader never panics, every diagnostic
//! points into the input, and every accepted input prints to a fixed point
//! (`print(parse(print(parse(x)))) == print(parse(x))`).

mod common;

use common::*;
use ehir_core::printer;
use std::path::Path;

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn corpus() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["listings", "corrected"] {
        let mut paths: Vec<_> = std::fs::read_dir(seeds_dir(dir))
            .expect("seed directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cir"))
            .collect();
        paths.sort();
        out.extend(
            paths
                .iter()
                .map(|p| std::fs::read_to_string(p).expect("readable")),
        );
    }
    let fragments = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fragments");
    let mut paths: Vec<_> = std::fs::read_dir(fragments)
        .expect("fragments")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    out.extend(
        paths
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("readable")),
    );
    out.push(test_file("canonical/every-op.cir"));
    out
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "%0",
    "%1",
    "%arg0",
    "^bb0",
    "^bb1",
    "^bb2",
    "cir.yield",
    "cir.scope {",
    "cir.return",
    "!cir.ptr<",
    "!s32i",
    "!rec_X",
    ":",
    ",",
    "=",
    "->",
    "@",
    "@f",
    "\"",
    "#cir.int<",
    "#true",
    "99999999999999999999999999999999999999999",
    "-1",
    "\n",
    " ",
    "cir.br ^bb1",
    "cir.func @g() {",
    "...",
    "//",
    "&",
    "é",
    "\\",
    "0x",
    "1.5e",
    "cir.try {",
    "} catch all {",
    "cir.eh.dispatch %0 : !cir.eh_token [",
    "catch_all : ^bb1",
];

fn char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(rng: &mut Rng, text: &mut String) {
    let len = text.len();
    match rng.below(6) {
        0 => {
            let a = char_boundary(text, rng.below(len + 1));
            let b = char_boundary(text, a + rng.below(40));
            text.replace_range(a..b.max(a), "");
        }
        1 | 2 => {
            let a = char_boundary(text, rng.below(len + 1));
            let t = TOKENS[rng.below(TOKENS.len())];
            text.insert_str(a, t);
        }
        3 => {
            let a = char_boundary(text, rng.below(len + 1));
            if let Some(old) = text[a..].chars().next() {
                let c = char::from_u32(rng.below(0x250) as u32).unwrap_or('?');
                text.replace_range(a..a + old.len_utf8(), &c.to_string());
            }
        }
        4 => {
            let a = char_boundary(text, rng.below(len + 1));
            let b = char_boundary(text, a + rng.below(80));
            let piece = text[a..b.max(a)].to_string();
            text.insert_str(b.max(a), &piece);
        }
        _ => {
            let a = char_boundary(text, rng.below(len + 1));
            text.truncate(a);
        }
    }
}

fn check(text: &str) {
    match ehir_reader::parse_module("mutated.cir", text) {
        Ok(module) => {
            let printed = printer::module_to_string(&module);
            let reparsed = ehir_reader::parse_module("printed.cir", &printed).unwrap_or_else(|d| {
                panic!(
                    "the print of an accepted input does not parse:\n{}\n--- input:\n{text}\n--- printed:\n{printed}",
                    render("printed.cir", &printed, &d)
                )
            });
            let again = printer::module_to_string(&reparsed);
            assert_eq!(printed, again, "not a fixed point; input:\n{text}");
        }
        Err(d) => {
            assert!(!d.0.is_empty());
            for diag in &d.0 {
                if let Some(offset) = diag.loc.offset() {
                    assert!(
                        offset <= text.len(),
                        "diagnostic outside the input: {diag:?}"
                    );
                }
                // Rendering must not panic either.
                let _ = ehir_core::SourceFile::new("mutated.cir", text).render(diag);
            }
        }
    }
}

#[test]
fn mutated_inputs_never_panic_and_accepted_ones_round_trip() {
    let corpus = corpus();
    assert!(corpus.len() >= 40, "corpus found: {}", corpus.len());
    // `EHIR_FUZZ_ITERATIONS` and `EHIR_FUZZ_SEED` scale and vary longer runs.
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let mut rng = Rng(env("EHIR_FUZZ_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15) | 1);
    let iterations = env("EHIR_FUZZ_ITERATIONS").unwrap_or(6_000) as usize;
    let mut accepted = 0;
    for _ in 0..iterations {
        let mut text = corpus[rng.below(corpus.len())].clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut rng, &mut text);
        }
        let result = std::panic::catch_unwind(|| check(&text));
        if let Err(e) = result {
            panic!("failure on input:\n{text}\n{e:?}");
        }
        accepted += ehir_reader::parse_module("m.cir", &text).is_ok() as usize;
    }
    // Some mutations (comments, whitespace, duplicated ops) keep the input valid.
    assert!(
        accepted > iterations / 50,
        "only {accepted} mutated inputs were accepted"
    );
}

#[test]
fn single_byte_deletions() {
    // Every byte of a flat listing; every 7th byte of the (larger) every-op file.
    for (text, stride) in [
        (seed("listings", "33").1, 1),
        (test_file("canonical/every-op.cir"), 7),
    ] {
        for i in (0..text.len()).step_by(stride) {
            if !text.is_char_boundary(i) || !text.is_char_boundary(i + 1) {
                continue;
            }
            let mut t = text.clone();
            t.remove(i);
            check(&t);
        }
    }
}
