//! Every C++/CIR pair of the design seed, run under the throw scenarios its prose
//! describes, with the trace the prose promises asserted. Where a listing and its
//! prose disagree, the test asserts what the IR says and names the disagreement.

mod common;

use common::*;

const CTOR: &str = "call @_ZN9SomeClassC1Ev(&c+0)";
const DTOR: &str = "call @_ZN9SomeClassD1Ev(&c+0)";
const DO_SOMETHING: &str = "call @_ZN9SomeClass11doSomethingEv(&c+0)";
const THROW_IN_DO: &str = "@_ZN9SomeClass11doSomethingEv=int:7";
const THROW_IN_CTOR: &str = "@_ZN9SomeClassC1Ev=int:7";

// ---- 02/03: automatic storage object cleanup ----------------------------------------

#[test]
fn listing_03_destructor_runs_on_normal_exit() {
    let o = run_text(&listing("03", false), &[], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec![CTOR, DO_SOMETHING, DTOR]);
    assert_in_order(
        &lines(&o),
        &[
            "return @_ZN9SomeClass11doSomethingEv",
            "cleanup normal",
            DTOR,
            "leave @someFunc",
        ],
    );
}

/// The prose says the destructor also runs when `doSomething()` throws, but listing 03
/// marks the cleanup `normal`, so the IR does not run it on the exceptional exit
/// (listing 28, the same function with `cleanup all`, does: see below).
#[test]
fn listing_03_normal_cleanup_is_skipped_by_an_exception() {
    let o = run_text(&listing("03", false), &[THROW_IN_DO], &[]);
    assert_eq!(o.exit_status, 1);
    assert_eq!(calls(&o), vec![CTOR, DO_SOMETHING]);
    assert!(lines(&o).contains(&"escape int 7 (exn#1)".to_string()));
}

#[test]
fn listing_03_constructor_throw_never_enters_the_cleanup_scope() {
    let o = run_text(&listing("03", false), &[THROW_IN_CTOR], &[]);
    assert_eq!(o.exit_status, 1);
    assert_eq!(calls(&o), vec![CTOR]);
    assert!(!lines(&o).iter().any(|l| l.starts_with("cleanup")));
}

// ---- 04/05: multiple automatic objects -----------------------------------------------

fn c(name: &str, f: &str) -> String {
    let callee = match f {
        "ctor" => "_ZN9SomeClassC1Ev",
        "dtor" => "_ZN9SomeClassD1Ev",
        _ => "_ZN9SomeClass11doSomethingEv",
    };
    format!("call @{callee}(&{name}+0)")
}

#[test]
fn listing_05_destructors_in_reverse_construction_order() {
    let o = run_text(&listing("05", false), &[], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec![
            c("c", "ctor"),
            c("c2", "ctor"),
            c("c", "do"),
            c("c3", "ctor"),
            c("c3", "do"),
            c("c3", "dtor"),
            c("c2", "dtor"),
            c("c", "dtor"),
        ]
    );
}

/// Listing 05's cleanups are all `normal`: an exception from `c3`'s constructor leaves
/// without destroying `c2` and `c` (the prose's "destructor must be called for each
/// object that has been constructed" needs `cleanup all`, checked next).
#[test]
fn listing_05_as_written_runs_no_cleanup_on_exception() {
    let o = run_text(&listing("05", false), &["@_ZN9SomeClassC1Ev#3=int:3"], &[]);
    assert_eq!(o.exit_status, 1);
    assert_eq!(
        calls(&o),
        vec![
            c("c", "ctor"),
            c("c2", "ctor"),
            c("c", "do"),
            c("c3", "ctor")
        ]
    );
}

#[test]
fn listing_05_with_all_cleanups_destroys_constructed_objects_in_reverse() {
    let text = listing("05", false).replace("cleanup normal", "cleanup all");
    let o = run_text(&text, &["@_ZN9SomeClassC1Ev#3=int:3"], &[]);
    assert_eq!(o.exit_status, 1);
    assert_eq!(
        calls(&o),
        vec![
            c("c", "ctor"),
            c("c2", "ctor"),
            c("c", "do"),
            c("c3", "ctor"),
            c("c2", "dtor"),
            c("c", "dtor"),
        ]
    );
    // Both destructors run before the exception leaves the function.
    assert_in_order(
        &lines(&o),
        &[&c("c", "dtor"), "unwind @someFunc", "escape int 3 (exn#1)"],
    );
}

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

#[test]
fn listing_07_break_runs_the_cleanup_first() {
    let o = run_text(&listing("07", false), &[], &["@_ZN9SomeClass3getEv=1,2,7"]);
    check_break_path(&o);
    // On the `break` iteration no get() happens between construction and destruction.
    let l = lines(&o);
    let last_ctor = l
        .iter()
        .rposition(|s| s == CTOR)
        .expect("a constructor call");
    assert_eq!(l[last_ctor + 2], "cleanup normal");
    assert_eq!(l[last_ctor + 3], DTOR);
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

#[test]
fn listing_31_exception_from_get_runs_the_all_cleanup() {
    let o = run_text(
        &listing("31", false),
        &["@_ZN9SomeClass3getEv#2=int:5"],
        &["@_ZN9SomeClass3getEv=1"],
    );
    assert_eq!(o.exit_status, 1);
    assert_in_order(
        &lines(&o),
        &[
            CTOR,
            "throw int 5 (exn#1)",
            "cleanup eh",
            DTOR,
            "unwind @someFunc",
            "escape int 5 (exn#1)",
        ],
    );
}

// ---- 08/09: EH-only cleanup ------------------------------------------------------------

#[test]
fn listing_09_base_destructor_only_on_exception() {
    let normal = run_text(&listing("09", false), &[], &[]);
    assert_eq!(normal.exit_status, 0);
    assert_eq!(
        calls(&normal),
        vec!["call @_ZN4BaseC2Ev(&arg0+0)", "call @_Z1fv()"]
    );
    let thrown = run_text(&listing("09", false), &["@_Z1fv=int:1"], &[]);
    assert_eq!(thrown.exit_status, 1);
    assert_eq!(
        calls(&thrown),
        vec![
            "call @_ZN4BaseC2Ev(&arg0+0)",
            "call @_Z1fv()",
            "call @_ZN4BaseD2Ev(&arg0+0)"
        ]
    );
    assert_in_order(
        &lines(&thrown),
        &[
            "throw int 1 (exn#1)",
            "cleanup eh",
            "call @_ZN4BaseD2Ev(&arg0+0)",
            "unwind @_ZN7DerivedC2Ev",
            "escape int 1 (exn#1)",
        ],
    );
}

// ---- 11/12: simple try-catch -----------------------------------------------------------

#[test]
fn listing_12_catches_std_exception_and_unwinds_others() {
    let caught = run_text(&listing("12", false), &["@_Z1fv=std::exception"], &[]);
    assert_eq!(caught.exit_status, 0);
    assert_in_order(
        &lines(&caught),
        &[
            "throw std::exception (exn#1)",
            "catch std::exception (exn#1) in handler std::exception",
            "destroy std::exception (exn#1)",
            "leave @someFunc",
        ],
    );
    let other = run_text(&listing("12", false), &["@_Z1fv=int:2"], &[]);
    assert_eq!(other.exit_status, 1);
    assert_in_order(
        &lines(&other),
        &[
            "throw int 2 (exn#1)",
            "cleanup unwind",
            "unwind @someFunc",
            "escape int 2 (exn#1)",
        ],
    );
    assert!(!lines(&other).iter().any(|l| l.starts_with("catch")));
}

/// A class derived from std::exception is caught by `catch (std::exception&)`.
#[test]
fn listing_12_catches_a_derived_standard_exception() {
    let o = run_text(&listing("12", false), &["@_Z1fv=std::runtime_error"], &[]);
    assert_eq!(o.exit_status, 0);
    assert!(
        lines(&o)
            .contains(&"catch std::runtime_error (exn#1) in handler std::exception".to_string())
    );
}

// ---- 13/14: try-catch with catch all ----------------------------------------------------

#[test]
fn listing_14_first_matching_handler_wins() {
    let exc = run_text(&listing("14", false), &["@_Z1fv=std::exception"], &[]);
    assert_eq!(exc.exit_status, 0);
    assert!(
        lines(&exc).contains(&"catch std::exception (exn#1) in handler std::exception".to_string())
    );
    let int = run_text(&listing("14", false), &["@_Z1fv=int:2"], &[]);
    assert_eq!(int.exit_status, 0);
    assert!(lines(&int).contains(&"catch int (exn#1) in handler ...".to_string()));
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
fn listing_16_destructor_before_the_handler() {
    check_try_catch_with_cleanup(&listing("16", false), true);
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

// ---- 17/18: try-catch within a cleanup region ------------------------------------------

#[test]
fn listing_18_caught_exception_then_normal_cleanup() {
    let o = run_text(
        &listing("18", false),
        &["@_ZN9SomeClass11doSomethingEv=std::exception"],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_in_order(
        &lines(&o),
        &[
            "throw std::exception (exn#1)",
            "catch std::exception (exn#1) in handler std::exception",
            "destroy std::exception (exn#1)",
            "cleanup normal",
            DTOR,
            "leave @someFunc",
        ],
    );
}

#[test]
fn listing_18_uncaught_exception_runs_the_cleanup_via_resume() {
    let o = run_text(&listing("18", false), &[THROW_IN_DO], &[]);
    assert_eq!(o.exit_status, 1);
    assert_in_order(
        &lines(&o),
        &[
            "throw int 7 (exn#1)",
            "cleanup unwind",
            "cleanup eh",
            DTOR,
            "unwind @someFunc",
            "escape int 7 (exn#1)",
        ],
    );
    assert!(!lines(&o).iter().any(|l| l.starts_with("catch")));
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
