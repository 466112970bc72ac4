//! The seed listings: every well-formed one parses exactly as written and round-trips,
//! every defective one is rejected at its defect, and the corrected copies and wrapped
//! fragments parse and round-trip.

mod common;

use common::*;
use ehir_core::{OpKind, Phase, TypeData, printer};

const STRUCTURED: [&str; 11] = [
    "03", "05", "07", "09", "12", "14", "16", "18", "25", "28", "31",
];
const FLAT: [&str; 5] = ["26", "29", "32", "33", "37"];

/// The phase `Function::inferred_phase` gives a listing without `phase(...)`. Listing 32
/// uses no flat-only op, but a body of several blocks without structured ops is flat.
fn expected_phase(number: &str) -> Phase {
    match number {
        n if FLAT.contains(&n) => Phase::Flat,
        _ => Phase::Structured,
    }
}

#[test]
fn well_formed_listings_parse_and_round_trip() {
    for numbers in [&STRUCTURED[..], &FLAT[..]] {
        for number in numbers {
            let phase = expected_phase(number);
            let (name, text) = seed("listings", number);
            let module = parse_ok(&name, &text);
            let some_func = module
                .function_named("someFunc")
                .or_else(|| module.function_named("_ZN7DerivedC2Ev"));
            let func =
                &module.functions[some_func.unwrap_or_else(|| panic!("{name}: no function"))];
            assert_eq!(func.phase, phase, "{name}: inferred phase");
            assert!(!func.is_declaration(), "{name}");
            round_trip(&name, &text);
        }
    }
}

#[test]
fn listing_07_reuses_names_in_sibling_regions() {
    // `%5` is defined in the while condition and again in the body's scope; `%7`..`%9` in
    // two sibling scopes. Each definition is a distinct value.
    let (name, text) = seed("listings", "07");
    let printed = round_trip(&name, &text);
    assert_contains(&printed, "%3 = cir.const #true");
    assert_contains(&printed, "%4 = cir.alloca !rec_SomeClass");
    assert_contains(&printed, "%10 = cir.cmp eq %8, %9 : !s32i");
    // The listing writes 3 `cir.yield`s; the 4 regions without a terminator (two `if`
    // scopes, the loop body's scope, the outer scope) get an implicit one.
    assert_eq!(text.matches("cir.yield").count(), 3);
    assert_eq!(printed.matches("cir.yield").count(), 7, "{printed}");
}

#[test]
fn undeclared_callees_and_records() {
    let (name, text) = seed("listings", "03");
    let module = parse_ok(&name, &text);
    let ctor = module
        .function_named("_ZN9SomeClassC1Ev")
        .expect("callee declared");
    let ctor = &module.functions[ctor];
    assert!(ctor.is_declaration());
    let (params, ret, vararg) = module.ctx.types.func_info(ctor.sig).expect("function type");
    assert_eq!((params.len(), ret, vararg), (1, None, false));
    let TypeData::Ptr(pointee, _) = module.ctx.types.get(params[0]) else {
        panic!("parameter is a pointer")
    };
    let TypeData::Record(alias) = module.ctx.types.get(*pointee) else {
        panic!("pointee is a record")
    };
    assert_eq!(module.ctx.name(*alias), "rec_SomeClass");
    assert!(
        module.ctx.record(*alias).is_none(),
        "an undeclared record stays opaque"
    );
    assert_eq!(module.functions.len(), 4);
}

#[test]
fn flat_listings_keep_their_cfg() {
    let (name, text) = seed("listings", "32");
    let module = parse_ok(&name, &text);
    let func = &module.functions[module.function_named("someFunc").expect("someFunc")];
    let body = func.body.expect("body");
    assert_eq!(func.layout.blocks(body).count(), 13);
    let switch = func
        .walk_ops()
        .into_iter()
        .find(|&op| matches!(func.dfg.kind(op), OpKind::SwitchFlat { .. }))
        .expect("a cir.switch.flat");
    assert_eq!(func.dfg.successors(switch).len(), 4);
    // The dispatch successors of 26 declare the token the dispatch passes implicitly.
    let (name, text) = seed("listings", "26");
    let module = parse_ok(&name, &text);
    let func = &module.functions[module.function_named("someFunc").expect("someFunc")];
    let dispatch = func
        .walk_ops()
        .into_iter()
        .find(|&op| matches!(func.dfg.kind(op), OpKind::EhDispatch { .. }))
        .expect("a cir.eh.dispatch");
    let succ = func.dfg.successors(dispatch)[0];
    assert!(func.dfg.successor_args(succ).is_empty());
    assert_eq!(
        func.dfg.block_params(func.dfg.successor_block(succ)).len(),
        1
    );
}

/// `(listing, expected lines of all diagnostics)`: the first is the defect's line.
#[test]
fn defective_listings_are_rejected_at_the_defect() {
    let cases: [(&str, &[usize]); 6] = [
        // `&type_id`: a syntax error stops the function.
        ("34", &[11]),
        ("36", &[7]),
        // `%catch.token` defined at 15, 19 and 23.
        ("35", &[19, 23]),
        ("39", &[19, 23]),
        // `@ __CxxFrameHandler3`.
        ("38", &[1]),
        // `%0` redefined by ^bb3's parameter, `%2` by the catchpad after ^bb4(%2).
        ("40", &[7, 11]),
    ];
    for (number, lines) in cases {
        let (name, text) = seed("listings", number);
        assert_eq!(error_lines(&name, &text), lines, "{name}");
    }
}

#[test]
fn defect_columns_and_messages() {
    let (name, text) = seed("listings", "34");
    let e = &errors(&name, &text)[0];
    assert_eq!((e.0, e.1), (11, 21), "{e:?}");
    assert!(e.2.contains("unexpected character '&'"), "{e:?}");

    let (name, text) = seed("listings", "38");
    let e = &errors(&name, &text)[0];
    assert_eq!((e.0, e.1), (1, 40), "at the '@': {e:?}");
    assert!(e.2.contains("directly after '@'"), "{e:?}");

    let (name, text) = seed("listings", "35");
    let d = ehir_reader::parse_module(&name, &text).expect_err("rejected");
    assert_eq!(d.0[0].message, "redefinition of value '%catch.token'");
    let source = ehir_core::SourceFile::new(&name, &text);
    let notes: Vec<(usize, usize)> = d.0[0]
        .notes
        .iter()
        .map(|(l, _)| source.line_col(l.0 as usize))
        .collect();
    assert_eq!(notes, vec![(15, 3)], "note at the first definition");

    let (name, text) = seed("listings", "40");
    let e = errors(&name, &text);
    assert_eq!(
        (e[0].0, e[0].1, e[0].2.as_str()),
        (7, 6, "redefinition of value '%0'")
    );
    assert_eq!(
        (e[1].0, e[1].1, e[1].2.as_str()),
        (11, 3, "redefinition of value '%2'")
    );
}

#[test]
fn listing_20_is_rejected_at_cir_do() {
    // As written, the listing is a bare `cir.scope` at module level (line 1) whose while
    // loop continues with `cir.do` instead of `do` (line 25, column 7).
    let (name, text) = seed("listings", "20");
    let e = errors(&name, &text);
    assert_eq!(
        e.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
        vec![(1, 1), (25, 7)]
    );
    assert!(e[1].2.contains("expected 'do'"), "{e:?}");
    // Wrapped in a function, the first (and only) diagnostic is the `cir.do`.
    let wrapped = format!("cir.func @f() {{\n{text}  cir.return\n}}\n");
    let e = errors(&name, &wrapped);
    assert_eq!(
        e.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
        vec![(26, 7)]
    );
    // With the loop fixed, the undefined `%0` is reported at its use.
    let fixed = wrapped.replace("} cir.do {", "} do {");
    let e = errors(&name, &fixed);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (4, 35));
    assert_eq!(e[0].2, "use of undefined value '%0'");
}

#[test]
fn corrected_listings_parse_and_round_trip() {
    for number in ["20", "34", "35", "36", "38", "39", "40"] {
        let (name, text) = seed("corrected", number);
        let (listing_name, _) = seed("listings", number);
        assert_eq!(
            name, listing_name,
            "a corrected copy keeps the listing's name"
        );
        round_trip(&name, &text);
    }
}

#[test]
fn corrected_listings_have_the_phase_of_their_section() {
    let expect = [
        ("20", Phase::Structured),
        ("34", Phase::Itanium),
        ("35", Phase::Flat),
        ("36", Phase::Itanium),
        ("38", Phase::Msvc),
        ("39", Phase::Flat),
        ("40", Phase::Msvc),
    ];
    for (number, phase) in expect {
        let (name, text) = seed("corrected", number);
        let module = parse_ok(&name, &text);
        let defined: Vec<_> = module
            .functions
            .values()
            .filter(|f| !f.is_declaration())
            .collect();
        assert_eq!(defined.len(), 1, "{name}");
        assert_eq!(defined[0].phase, phase, "{name}");
    }
}

#[test]
fn corrected_36_lands_on_the_three_clauses() {
    let (name, text) = seed("corrected", "36");
    let printed = printer::module_to_string(&parse_ok(&name, &text));
    assert_contains(
        &printed,
        "%exception_ptr, %type_id = cir.eh.inflight_exception catch_all [@_ZTIi, @_ZTIf]\n",
    );
    assert_contains(
        &printed,
        "%5 = cir.call @__cxa_begin_catch(%4) : (!cir.ptr<!void>) -> !cir.ptr<!u8i>",
    );
    // `__cxa_begin_catch`/`__cxa_end_catch` are declared from the runtime table.
    assert_contains(
        &printed,
        "cir.func @__cxa_begin_catch(!cir.ptr<!void>) -> !cir.ptr<!u8i>\n",
    );
    assert_contains(&printed, "cir.func @__cxa_end_catch()\n");
}

#[test]
fn wrapped_fragments_parse_and_round_trip() {
    for (file, phase) in [
        (
            "fragments/10-try-operations-and-exception-handling.cir",
            Phase::Structured,
        ),
        ("fragments/19-partial-array-cleanup.cir", Phase::Structured),
        ("fragments/21-exception-handling.cir", Phase::Flat),
        ("fragments/22-exception-handling.cir", Phase::Flat),
        ("fragments/23-exception-handling.cir", Phase::Flat),
    ] {
        let text = test_file(file);
        let module = parse_ok(file, &text);
        for f in module.functions.values().filter(|f| !f.is_declaration()) {
            assert_eq!(f.phase, phase, "{file}");
        }
        round_trip(file, &text);
    }
}

#[test]
fn wrapped_fragments_contain_the_listing_verbatim() {
    for (number, file) in [
        (
            "10",
            "fragments/10-try-operations-and-exception-handling.cir",
        ),
        ("19", "fragments/19-partial-array-cleanup.cir"),
        ("21", "fragments/21-exception-handling.cir"),
        ("22", "fragments/22-exception-handling.cir"),
        ("23", "fragments/23-exception-handling.cir"),
    ] {
        let (_, listing) = seed("listings", number);
        let wrapped = test_file(file);
        for line in listing
            .lines()
            .filter(|l| !l.trim().is_empty() && l.trim() != "...")
        {
            assert!(wrapped.contains(line.trim()), "{file} lacks `{line}`");
        }
    }
}

#[test]
fn fragments_at_module_level_are_rejected_with_their_syntax_checked() {
    // Fragments are not module items; the ops in them are still checked for syntax.
    for number in ["10", "19", "21", "22", "23"] {
        let (name, text) = seed("listings", number);
        let e = errors(&name, &text);
        assert_eq!((e[0].0, e[0].1), (1, 1), "{name}: {e:?}");
        assert!(e[0].2.contains("not allowed at module level"), "{e:?}");
        let expected_more = if number == "10" { 1 } else { 0 };
        assert_eq!(e.len(), 1 + expected_more, "{name}: {e:?}");
    }
    // Listing 10's `...` line is the second error.
    let (name, text) = seed("listings", "10");
    assert_eq!(error_lines(&name, &text), vec![1, 6]);
}

#[test]
fn every_op_in_canonical_form_is_a_fixed_point() {
    // One of each op (and each attribute and type form), exactly as the printer prints it.
    let text = test_file("canonical/every-op.cir");
    let module = parse_ok("every-op.cir", &text);
    assert_eq!(printer::module_to_string(&module), text);
    let mut kinds: Vec<&str> = module
        .functions
        .values()
        .flat_map(|f| f.walk_ops().into_iter().map(|op| f.dfg.kind(op).name()))
        .collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds.len(),
        ehir_core::ops::OpCode::ALL.len(),
        "every OpKind appears: {kinds:?}"
    );
}
