//! The design seed's CIR listings where the check needs the trace as data: structured
//! and flattened forms of the same program (31/32, 25/26/33/34/37/38, 28/29,
//! 35/36/39/40, the partial array cleanup of 19/20) must produce the same observable
//! trace, and listing 07's `continue` path must alternate destructor and constructor on
//! every iteration until the step budget stops it. The listings checked on their own,
//! under the throw scenarios their prose describes, are file tests under
//! `tests/filetests/interp/seeds/`. Where a listing and its prose disagree, the test
//! asserts what the IR says and names the disagreement.

mod common;

use common::*;

const CTOR: &str = "call @_ZN9SomeClassC1Ev(&c+0)";
const DTOR: &str = "call @_ZN9SomeClassD1Ev(&c+0)";
const DO_SOMETHING: &str = "call @_ZN9SomeClass11doSomethingEv(&c+0)";
const THROW_IN_DO: &str = "@_ZN9SomeClass11doSomethingEv=int:7";
const THROW_IN_CTOR: &str = "@_ZN9SomeClassC1Ev=int:7";

// ---- 06/07 and 30/31/32: branch through cleanup, shared cleanups --------------------

const GET: &str = "@_ZN9SomeClass3getEv";

/// Iterations: i = 1, i = 2, i = 7 (from `get()`), then the fourth iteration breaks.
fn check_break_path(o: &ehir_interp::RunOutcome) {
    assert_eq!(o.exit_status, 0);
    let l = lines(o);
    // Each iteration constructs, and destroys before the next construction; the
    // `break` iteration destroys before the function returns.
    let ctor_dtor: Vec<&String> = l
        .iter()
        .filter(|s| {
            s.starts_with("call @_ZN9SomeClassC1Ev") || s.starts_with("call @_ZN9SomeClassD1Ev")
        })
        .collect();
    assert_eq!(ctor_dtor.len(), 8);
    for pair in ctor_dtor.chunks(2) {
        assert_eq!(pair[0], CTOR);
        assert_eq!(pair[1], DTOR);
    }
    assert_eq!(
        l.iter()
            .filter(|s| s.starts_with(&format!("call {GET}")))
            .count(),
        3
    );
    assert_in_order(
        &l,
        &[
            CTOR,
            DTOR,
            CTOR,
            DTOR,
            CTOR,
            DTOR,
            CTOR,
            DTOR,
            "leave @someFunc = 7",
        ],
    );
}

/// `i == 3` makes the loop `continue` forever; each `continue` runs the cleanup (the
/// destructor) before the condition is evaluated again. The step budget stops the run.
#[test]
fn listing_07_continue_runs_the_cleanup_first() {
    let o = run_with(
        &listing("07", false),
        &[],
        &["@_ZN9SomeClass3getEv=3"],
        |c| c.step_limit = 2_000,
    );
    assert_eq!(o.exit_status, ehir_interp::EXIT_RUNTIME_ERROR);
    let err = o
        .runtime_error
        .as_ref()
        .expect("stopped by the step budget");
    assert!(
        err.message.contains("step budget of 2000 exceeded"),
        "{}",
        err.message
    );
    let l = lines(&o);
    // After the first get() returns 3, every iteration is ctor, cleanup, dtor with no
    // get() in between.
    let first_get = l
        .iter()
        .position(|s| s == "return @_ZN9SomeClass3getEv = 3")
        .unwrap();
    let rest: Vec<&String> = l[first_get..]
        .iter()
        .filter(|s| s.starts_with("call @"))
        .collect();
    assert!(rest.len() > 20);
    for pair in rest.chunks_exact(2) {
        assert_eq!(pair[0], DTOR);
        assert_eq!(pair[1], CTOR);
    }
}

#[test]
fn listing_31_and_32_take_the_same_paths() {
    let structured = run_text(&listing("31", false), &[], &["@_ZN9SomeClass3getEv=1,2,7"]);
    let flat = run_text(&listing("32", false), &[], &["@_ZN9SomeClass3getEv=1,2,7"]);
    check_break_path(&structured);
    check_break_path(&flat);
    assert_eq!(observable(&structured), observable(&flat));
}

// ---- 15/16 and 24/25/26: try-catch with cleanup -----------------------------------------

fn check_try_catch_with_cleanup(text: &str, structured: bool) -> Vec<Vec<String>> {
    let mut runs = Vec::new();
    // No exception: construct, use, destroy.
    let o = run_text(text, &[], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec![CTOR, DO_SOMETHING, DTOR]);
    runs.push(observable(&o));
    // doSomething throws: the destructor runs before the handler gets control.
    let o = run_text(text, &[THROW_IN_DO], &[]);
    assert_eq!(o.exit_status, 0);
    let mut expected = vec![DO_SOMETHING, "throw int 7 (exn#1)"];
    if structured {
        expected.push("cleanup eh");
    }
    expected.extend([DTOR, "catch int (exn#1) in handler ...", "leave @someFunc"]);
    assert_in_order(&lines(&o), &expected);
    runs.push(observable(&o));
    // The constructor throws: nothing to destroy, caught.
    let o = run_text(text, &[THROW_IN_CTOR], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec![CTOR]);
    assert!(lines(&o).contains(&"catch int (exn#1) in handler ...".to_string()));
    runs.push(observable(&o));
    runs
}

#[test]
fn listings_25_26_33_34_37_38_agree_at_every_phase() {
    let structured = check_try_catch_with_cleanup(&listing("25", false), true);
    let flat = check_try_catch_with_cleanup(&listing("26", false), false);
    let flat33 = check_try_catch_with_cleanup(&listing("33", false), false);
    let itanium = check_try_catch_with_cleanup(&listing("34", true), false);
    let flat37 = check_try_catch_with_cleanup(&listing("37", false), false);
    let msvc = check_try_catch_with_cleanup(&listing("38", true), false);
    assert_eq!(structured, flat);
    assert_eq!(structured, flat33);
    assert_eq!(structured, itanium);
    assert_eq!(structured, flat37);
    assert_eq!(structured, msvc);
}

// ---- 27/28/29: cleanup with unhandled exception -----------------------------------------

#[test]
fn listings_28_29_destructor_then_unwind_to_caller() {
    for (text, structured) in [(listing("28", false), true), (listing("29", false), false)] {
        let o = run_text(&text, &[THROW_IN_DO], &[]);
        assert_eq!(o.exit_status, 1);
        let mut expected = vec![DO_SOMETHING, "throw int 7 (exn#1)"];
        if structured {
            expected.push("cleanup eh");
        }
        expected.extend([DTOR, "unwind @someFunc", "escape int 7 (exn#1)"]);
        assert_in_order(&lines(&o), &expected);
    }
    let a = run_text(&listing("28", false), &[THROW_IN_DO], &[]);
    let b = run_text(&listing("29", false), &[THROW_IN_DO], &[]);
    assert_eq!(observable(&a), observable(&b));
    let a = run_text(&listing("28", false), &[], &[]);
    let b = run_text(&listing("29", false), &[], &[]);
    assert_eq!(calls(&a), vec![CTOR, DO_SOMETHING, DTOR]);
    assert_eq!(observable(&a), observable(&b));
}

// ---- 35/36/39/40: multiple catch handlers --------------------------------------------------

#[test]
fn listings_35_36_39_40_dispatch_to_the_first_matching_handler() {
    let texts = [
        listing("35", true),
        listing("36", true),
        listing("39", true),
        listing("40", true),
    ];
    for (thrown, handler) in [
        ("int:1", "int"),
        ("float:2.5", "float"),
        ("double:3", "..."),
        ("std::exception", "..."),
    ] {
        let mut reference: Option<Vec<String>> = None;
        for text in &texts {
            let o = run_text(text, &[&format!("@f={thrown}")], &[]);
            assert_eq!(o.exit_status, 0, "{thrown}");
            let catches: Vec<String> = lines(&o)
                .into_iter()
                .filter(|l| l.starts_with("catch"))
                .collect();
            assert_eq!(catches.len(), 1, "{thrown}: {catches:?}");
            assert!(
                catches[0].ends_with(&format!("in handler {handler}")),
                "{thrown}: {}",
                catches[0]
            );
            let obs = observable(&o);
            match &reference {
                None => reference = Some(obs),
                Some(r) => assert_eq!(r, &obs),
            }
        }
    }
}

// ---- 19/20: partial array cleanup -----------------------------------------------------------

const ARRAY_CTOR: &str = r#"
cir.func @constructArray(%0: !cir.ptr<!cir.array<!rec_SomeClass x 16>>) {
  cir.array.ctor(%0 : !cir.ptr<!cir.array<!rec_SomeClass x 16>>) {
  ^bb0(%arg0: !cir.ptr<!rec_SomeClass>):
    cir.call @_ZN9SomeClassC1Ev(%arg0) : (!cir.ptr<!rec_SomeClass>) -> ()
    cir.yield
  } cleanup {
  ^bb0(%arg0: !cir.ptr<!rec_SomeClass>):
    cir.call @_ZN9SomeClassD1Ev(%arg0) : (!cir.ptr<!rec_SomeClass>) -> ()
    cir.yield
  }
  cir.return
}
"#;

fn array_calls(o: &ehir_interp::RunOutcome) -> Vec<String> {
    calls(o)
}

#[test]
fn partial_array_destruction_in_reverse() {
    // Listing 19 wrapped in a function (structured `cir.array.ctor`), and listing 20
    // (corrected) which is what lowering-prepare makes of it.
    for text in [ARRAY_CTOR.to_string(), listing("20", true)] {
        let o = run_text(&text, &["@_ZN9SomeClassC1Ev#4=int:9"], &[]);
        assert_eq!(o.exit_status, 1);
        assert_eq!(
            array_calls(&o),
            vec![
                "call @_ZN9SomeClassC1Ev(&arg0+0)",
                "call @_ZN9SomeClassC1Ev(&arg0+8)",
                "call @_ZN9SomeClassC1Ev(&arg0+16)",
                "call @_ZN9SomeClassC1Ev(&arg0+24)",
                "call @_ZN9SomeClassD1Ev(&arg0+16)",
                "call @_ZN9SomeClassD1Ev(&arg0+8)",
                "call @_ZN9SomeClassD1Ev(&arg0+0)",
            ]
        );
        // The first constructor throwing destroys nothing.
        let o = run_text(&text, &["@_ZN9SomeClassC1Ev#1=int:9"], &[]);
        assert_eq!(array_calls(&o), vec!["call @_ZN9SomeClassC1Ev(&arg0+0)"]);
        // No exception: 16 constructions, no destruction.
        let o = run_text(&text, &[], &[]);
        assert_eq!(o.exit_status, 0);
        let c = array_calls(&o);
        assert_eq!(c.len(), 16);
        assert_eq!(c[15], "call @_ZN9SomeClassC1Ev(&arg0+120)");
    }
    let a = run_text(ARRAY_CTOR, &["@_ZN9SomeClassC1Ev#4=int:9"], &[]);
    let b = run_text(&listing("20", true), &["@_ZN9SomeClassC1Ev#4=int:9"], &[]);
    assert_eq!(observable(&a), observable(&b));
}
