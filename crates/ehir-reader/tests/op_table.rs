//! The op table: every op round-trips `name ↔ code ↔ kind`, is read by the reader, is
//! documented in `docs/syntax.md`, and its row is consistent with itself.

mod common;

use common::{parse_ok, test_file};
use ehir_core::ops::{Count, CountRange, OpCode};
use ehir_core::{OpKind, Phase, PrimaryMap};
use std::collections::BTreeSet;
use std::path::Path;

/// The `OpKind` of every op, one each, as the reader builds them from the canonical
/// file that holds one of each op.
fn one_kind_per_op() -> Vec<OpKind> {
    let text = test_file("canonical/every-op.cir");
    let module = parse_ok("every-op.cir", &text);
    let mut seen = BTreeSet::new();
    let mut kinds = Vec::new();
    for func in module.functions.values() {
        for op in func.walk_ops() {
            let kind = *func.dfg.kind(op);
            if seen.insert(kind.code()) {
                kinds.push(kind);
            }
        }
    }
    kinds
}

#[test]
fn every_op_round_trips_name_and_code() {
    let mut names = BTreeSet::new();
    for (position, &code) in OpCode::ALL.iter().enumerate() {
        let info = code.info();
        assert_eq!(info.code, code, "row {position} is the row of {code:?}");
        assert_eq!(code as usize, position, "{code:?} is at its own position");
        assert_eq!(OpCode::from_name(code.name()), Some(code), "{code:?}");
        assert!(names.insert(code.name()), "{} is named twice", code.name());
        for &alias in info.aliases {
            assert_eq!(OpCode::from_name(alias), Some(code), "alias {alias}");
            assert!(names.insert(alias), "{alias} is named twice");
        }
    }
    assert_eq!(OpCode::from_name("cir.no_such_op"), None);
}

#[test]
fn every_op_round_trips_kind_and_code() {
    let kinds = one_kind_per_op();
    let codes: BTreeSet<OpCode> = kinds.iter().map(|kind| kind.code()).collect();
    let all: BTreeSet<OpCode> = OpCode::ALL.iter().copied().collect();
    assert_eq!(codes, all, "the canonical file holds every op");
    for kind in &kinds {
        // The printed name is the row's name, or one of its aliases where the payload
        // picks upstream's op (a binary op prints as `cir.add`, ...).
        let code = kind.code();
        assert!(
            kind.name() == code.name() || code.info().aliases.contains(&kind.name()),
            "{kind:?}"
        );
        assert_eq!(
            OpCode::from_name(kind.name()),
            Some(kind.code()),
            "{kind:?}"
        );
    }
}

#[test]
fn every_op_is_documented_in_the_syntax() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/syntax.md");
    let doc = std::fs::read_to_string(&path).expect("docs/syntax.md is readable");
    // An op name, not a longer name it starts (`cir.switch` in `cir.switch.flat`).
    let mentions = |name: &str| {
        doc.match_indices(name).any(|(at, _)| {
            let next = doc[at + name.len()..].chars().next();
            !matches!(next, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '.')
        })
    };
    let missing: Vec<&str> = OpCode::ALL
        .iter()
        .map(|code| code.name())
        .filter(|name| !mentions(name))
        .collect();
    assert!(missing.is_empty(), "not in docs/syntax.md: {missing:?}");
}

#[test]
fn every_row_is_consistent() {
    let extras = PrimaryMap::new();
    for kind in one_kind_per_op() {
        let info = kind.info();
        let name = info.name;
        if !info.terminator {
            assert_eq!(info.successors, Count::Exactly(0), "{name} ends no block");
        }
        for phase in [Phase::Structured, Phase::Flat, Phase::Itanium, Phase::Msvc] {
            if info.phases.contains(phase) && phase != Phase::Structured {
                let regions = kind.region_count(&extras).map(|range| range.min);
                assert!(
                    matches!(regions, Ok(0) | Err(_)),
                    "{name} is allowed in flat code, which has no nested regions"
                );
            }
        }
        let operands = kind.operand_count();
        let results = kind.result_count();
        for slot in info.operand_tokens {
            assert!((slot.index as usize) < operands.max, "{name}: operand slot");
        }
        for slot in info.result_tokens {
            assert!((slot.index as usize) < results.max, "{name}: result slot");
        }
        assert!(
            operands.min <= operands.max && results.min <= results.max,
            "{name}"
        );
    }
    assert_eq!(CountRange::exactly(2).describe(), "2");
    assert_eq!(CountRange::at_least(1).describe(), "at least 1");
    assert_eq!(CountRange { min: 0, max: 1 }.describe(), "0 to 1");
}
