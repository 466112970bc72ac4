//! The llc assembly table reader and the structural comparison, on the hand-written LLVM
//! IR of the wine smoke test (`tests/e2e/msvc/smoke.ll`) and its MSVC-phase CIR twin
//! (`tests/e2e/msvc/smoke.cir`).

mod common;

use ehir_tables::llc_asm::{self, AsmTables};
use ehir_tables::structure::{HandlerShape, StateTables, TryShape, canonical};

fn smoke_tables() -> AsmTables {
    let asm = common::llc_asm(&common::root().join("tests/e2e/msvc/smoke.ll"));
    let mut all = llc_asm::parse(&asm).expect("llc tables read");
    assert_eq!(
        all.keys().collect::<Vec<_>>(),
        ["main"],
        "only @main has EH tables"
    );
    all.remove("main").expect("main")
}

#[test]
fn reads_the_tables_llc_writes() {
    let t = smoke_tables();
    assert_eq!(t.max_state, 10);
    let to_states: Vec<i64> = t.unwind_map.iter().map(|e| e.0).collect();
    assert_eq!(to_states, [-1, 0, -1, 2, 3, 2, -1, 6, 6, -1]);
    let cleanups: Vec<usize> = (0..10).filter(|&i| t.unwind_map[i].1.is_some()).collect();
    assert_eq!(cleanups, [1, 4], "the two destructor funclets");
    assert!(
        t.unwind_map[1]
            .1
            .as_deref()
            .is_some_and(|s| s.starts_with("?dtor$")),
        "{:?}",
        t.unwind_map[1]
    );
    let ranges: Vec<(i64, i64, i64)> = t
        .try_map
        .iter()
        .map(|e| (e.try_low, e.try_high, e.catch_high))
        .collect();
    assert_eq!(ranges, [(0, 1, 5), (3, 4, 5), (7, 7, 8), (6, 8, 9)]);
    let handlers: Vec<(i64, Option<&str>, bool)> = t
        .try_map
        .iter()
        .flat_map(|e| &e.handlers)
        .map(|h| {
            (
                h.adjectives,
                h.type_descriptor.as_deref(),
                h.catch_object_offset != 0,
            )
        })
        .collect();
    assert_eq!(
        handlers,
        [
            (0, Some("??_R0H@8"), true),
            (8, Some("??_R0?AUBase@@@8"), true),
            (64, None, false),
            (8, Some("??_R0H@8"), true),
        ]
    );
    assert!(t.try_map[0].handlers[0].handler.starts_with("?catch$"));
}

#[test]
fn ehir_tables_of_the_cir_twin_match_llc() {
    let path = common::root().join("tests/e2e/msvc/smoke.cir");
    let text = std::fs::read_to_string(&path).expect("smoke.cir");
    let module = ehir_reader::parse_module("smoke.cir", &text).expect("parses");
    ehir_core::verifier::verify_module(&module).expect("verifies");
    let main = module.function_named("main").expect("@main");
    let ours = ehir_tables::wineh::function_tables(&module.ctx, &module.functions[main])
        .expect("tables")
        .expect("@main has pads");
    let ours = StateTables::from_wineh(&ours);
    let theirs = smoke_tables().shape();
    assert_eq!(canonical(&ours), canonical(&theirs));
    assert!(canonical(&ours).is_ok());
    // Here the numbering is even the same.
    assert_eq!(ours, theirs);
}

fn handler(t: &str, adjectives: u32) -> HandlerShape {
    HandlerShape {
        type_descriptor: Some(t.to_string()),
        adjectives,
        has_catch_object: false,
    }
}

/// try { cleanup } catch (int) { try {} catch (int) {} } and a second top-level cleanup.
fn sample() -> StateTables {
    StateTables {
        unwind_map: vec![
            (-1, false),
            (0, true),
            (-1, false),
            (2, false),
            (2, false),
            (-1, true),
        ],
        try_map: vec![
            TryShape {
                try_low: 0,
                try_high: 1,
                catch_high: 4,
                handlers: vec![handler("??_R0H@8", 0)],
            },
            TryShape {
                try_low: 3,
                try_high: 3,
                catch_high: 4,
                handlers: vec![handler("??_R0H@8", 8)],
            },
        ],
    }
}

#[test]
fn canonical_form_ignores_the_order_of_siblings() {
    // The same tree numbered with the top-level cleanup first.
    let renumbered = StateTables {
        unwind_map: vec![
            (-1, true),
            (-1, false),
            (1, true),
            (-1, false),
            (3, false),
            (3, false),
        ],
        try_map: vec![
            TryShape {
                try_low: 1,
                try_high: 2,
                catch_high: 5,
                handlers: vec![handler("??_R0H@8", 0)],
            },
            TryShape {
                try_low: 4,
                try_high: 4,
                catch_high: 5,
                handlers: vec![handler("??_R0H@8", 8)],
            },
        ],
    };
    let a = canonical(&sample()).expect("consistent");
    assert_eq!(a, canonical(&renumbered).expect("consistent"));
    assert_eq!(
        a,
        "cleanup() try[??_R0H@8 0](cleanup()){catch(try[??_R0H@8 8](){catch()})}"
    );
}

#[test]
fn canonical_form_sees_structural_differences() {
    let base = canonical(&sample()).expect("consistent");
    let mut other = sample();
    other.try_map[1].handlers[0].adjectives = 0;
    assert_ne!(base, canonical(&other).expect("consistent"));
    let mut other = sample();
    other.unwind_map[1].1 = false;
    assert_ne!(base, canonical(&other).expect("consistent"));
    let mut other = sample();
    other.try_map[1].handlers[0].has_catch_object = true;
    assert_ne!(base, canonical(&other).expect("consistent"));
}

#[test]
fn inconsistent_tables_are_rejected() {
    let mut t = sample();
    t.try_map[0].try_high = 0; // state 1 is under TryLow 0 but outside 0..0
    assert!(
        canonical(&t)
            .unwrap_err()
            .contains("not exactly the states under its TryLow")
    );
    let mut t = sample();
    t.unwind_map[3] = (4, false); // a parent after its child
    assert!(canonical(&t).unwrap_err().contains("does not precede it"));
    let mut t = sample();
    t.try_map[1].catch_high = 9;
    assert!(canonical(&t).unwrap_err().contains("not valid ranges"));
}

#[test]
fn malformed_listings_are_errors() {
    let asm = "$cppxdata$f:\n\t.long\t429065506 # MagicNumber\n\t.long\t1 # MaxState\n\t.long\t0 # NumTryBlocks\n$stateUnwindMap$f:\n\t.long\t-1 # Action\n\t.long\t0 # ToState\n";
    let err = llc_asm::parse(asm).unwrap_err();
    assert!(err.contains("expected field ToState"), "{err}");
    let asm = "$cppxdata$f:\n\t.long\t1 # MaxState\n\t.long\t0 # NumTryBlocks\n";
    assert!(
        llc_asm::parse(asm)
            .unwrap_err()
            .contains("no $stateUnwindMap$f table")
    );
    let asm = "$cppxdata$f:\n\t.long\t0 # MaxState\n";
    assert!(
        llc_asm::parse(asm)
            .unwrap_err()
            .contains("no NumTryBlocks field")
    );
}
