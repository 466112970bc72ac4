//! Property tests: the reader, the verifier and the printer never panic on mutated seed
//! listings, and every input that parses and verifies round-trips through the printer.

use proptest::prelude::*;
use std::path::Path;

fn listings() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/seeds");
    let mut out = Vec::new();
    for dir in ["listings", "corrected"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cir"))
            .collect();
        paths.sort();
        for p in paths {
            out.push(std::fs::read_to_string(p).expect("listing is readable"));
        }
    }
    assert!(out.len() >= 30, "seed listings not found");
    out
}

/// Parses, verifies and prints; if the module verifies, checks the round trip.
fn exercise(text: &str) {
    let Ok(module) = ehir_reader::parse_module("mutated.cir", text) else {
        return;
    };
    let verified = ehir_core::verifier::verify_module(&module).is_ok();
    let printed = ehir_core::printer::module_to_string(&module);
    if verified {
        let reparsed = ehir_reader::parse_module("printed.cir", &printed)
            .unwrap_or_else(|d| panic!("printed form does not parse: {d:?}\n{printed}"));
        let again = ehir_core::printer::module_to_string(&reparsed);
        assert_eq!(printed, again, "printing does not round-trip");
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    DeleteRange(usize, usize),
    Insert(usize, String),
    Replace(usize, char),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("%0".to_string()),
        Just("^bb1".to_string()),
        Just("cir.yield".to_string()),
        Just("cir.scope {".to_string()),
        Just("!cir.ptr<".to_string()),
        Just(":".to_string()),
        Just(",".to_string()),
        Just("@".to_string()),
        Just("\"".to_string()),
        Just("#cir.int<".to_string()),
        Just("99999999999999999999999999".to_string()),
        Just("\n".to_string()),
        "[ -~]{0,8}",
    ];
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Mutation::DeleteRange(a, n)),
        (any::<usize>(), token).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), any::<char>()).prop_map(|(a, c)| Mutation::Replace(a, c)),
        (any::<usize>(), 0usize..80).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn char_boundary(s: &str, at: usize) -> usize {
    let mut at = at % (s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &mut String, m: &Mutation) {
    match m {
        Mutation::DeleteRange(a, n) => {
            let a = char_boundary(text, *a);
            let b = char_boundary(text, (a + n).min(text.len()));
            if b >= a {
                text.replace_range(a..b, "");
            }
        }
        Mutation::Insert(a, t) => {
            let a = char_boundary(text, *a);
            text.insert_str(a, t);
        }
        Mutation::Replace(a, c) => {
            let a = char_boundary(text, *a);
            if let Some(old) = text[a..].chars().next() {
                text.replace_range(a..a + old.len_utf8(), &c.to_string());
            }
        }
        Mutation::Duplicate(a, n) => {
            let a = char_boundary(text, *a);
            let b = char_boundary(text, (a + n).min(text.len()));
            if b >= a {
                let piece = text[a..b].to_string();
                text.insert_str(b, &piece);
            }
        }
        Mutation::Truncate(a) => {
            let a = char_boundary(text, *a);
            text.truncate(a);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_listings_never_panic(index in any::<usize>(), mutations in proptest::collection::vec(mutation(), 1..4)) {
        let all = listings();
        let mut text = all[index % all.len()].clone();
        for m in &mutations {
            apply(&mut text, m);
        }
        exercise(&text);
    }
}

#[test]
fn every_listing_survives_every_single_byte_deletion() {
    // Exhaustive over one listing's bytes: each deletion of one byte parses or fails cleanly.
    let all = listings();
    let text = &all[0];
    for i in 0..text.len() {
        if !text.is_char_boundary(i) || !text.is_char_boundary(i + 1) {
            continue;
        }
        let mut t = text.clone();
        t.remove(i);
        exercise(&t);
    }
}
