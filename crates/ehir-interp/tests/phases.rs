//! The EH ops of the lowered phases, on hand-written programs: flat tokens and dispatch
//! keys (catch, catch_all, unwind, filter, terminate), `cir.throw` with an unwind
//! successor, the EH-cleanup terminate boundary; Itanium landing pads (selectors,
//! `cir.eh.typeid`, cleanup pads, skipped pads, filter clauses, `cir.resume.flat`,
//! `__cxa_*`); MSVC funclets (catchswitch chains, catchpad slots, catchret,
//! cleanuppad/cleanupret, unwinding out of a catch funclet).

mod common;

use common::*;

// ---- flat ---------------------------------------------------------------------------------

/// `main` catches everything that leaves `@f` and marks 9; `@f` is given per test.
fn flat_program(f: &str) -> String {
    format!(
        r#"
{f}
cir.func @main() -> !s32i {{
  cir.try_call @f() ^bb1, ^bb2 : () -> ()
^bb1:
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
^bb2:
  %t = cir.eh.initiate : !cir.eh_token
  cir.eh.dispatch %t : !cir.eh_token [
    catch_all : ^bb3
  ]
^bb3(%t2: !cir.eh_token):
  %c = cir.begin_catch %t2 : !cir.eh_token -> !cir.catch_token
  %nine = cir.const #cir.int<9> : !s32i
  cir.call @mark(%nine) : (!s32i) -> ()
  cir.end_catch %c : !cir.catch_token
  cir.br ^bb1
}}
"#
    )
}

const FLAT_FILTER: &str = r#"
cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate : !cir.eh_token
  cir.eh.dispatch %t : !cir.eh_token [
    filter ([#cir.global_view<@_ZTIi>]) : ^bb3
    unwind : ^bb4
  ]
^bb3:
  cir.unreachable
^bb4(%t2: !cir.eh_token):
  cir.resume %t2 : !cir.eh_token
}
"#;

#[test]
fn flat_filter_key() {
    let o = run_text(&flat_program(FLAT_FILTER), &["@g=int:1"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec!["call @g()", "call @mark(9)"]);
    let o = run_text(&flat_program(FLAT_FILTER), &["@g=double:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_in_order(
        &lines(&o),
        &[
            "unexpected double (exn#1)",
            "terminate: terminate called after throwing an instance of 'double'",
        ],
    );
}

/// A `terminate` key (noexcept): the inner frame's cleanup runs, then terminate.
#[test]
fn flat_terminate_key_after_inner_cleanup() {
    let f = r#"
cir.func @inner() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate cleanup : !cir.eh_token
  %c = cir.begin_cleanup %t : !cir.eh_token -> !cir.cleanup_token
  cir.call @dtor() : () -> ()
  cir.end_cleanup %c : !cir.cleanup_token
  cir.resume %t : !cir.eh_token
}
cir.func @f() {
  cir.try_call @inner() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate : !cir.eh_token
  cir.eh.dispatch %t : !cir.eh_token [
    terminate : ^bb3
  ]
^bb3:
  cir.unreachable
}
"#;
    let o = run_text(&flat_program(f), &["@g=int:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()", "call @dtor()"]);
    assert_in_order(
        &lines(&o),
        &[
            "unwind @inner",
            "terminate: terminate called after throwing an instance of 'int'",
        ],
    );
}

/// `cir.throw ... unwind ^bb` lands in the same function; the handler reads the value
/// through `cir.begin_catch`'s pointer.
#[test]
fn flat_throw_with_unwind_successor() {
    let o = run_text(
        r#"
cir.func @main() -> !s32i {
  %e = cir.alloc.exception 4 -> !cir.ptr<!s32i>
  %v = cir.const #cir.int<5> : !s32i
  cir.store %v, %e : !s32i, !cir.ptr<!s32i>
  cir.throw %e : !cir.ptr<!s32i>, @_ZTIi unwind ^bb1
^bb1:
  %t = cir.eh.initiate : !cir.eh_token
  cir.eh.dispatch %t : !cir.eh_token [
    catch (#cir.global_view<@_ZTIf> : !u32i) : ^bb4
    catch (#cir.global_view<@_ZTIi> : !u32i) : ^bb2
    unwind : ^bb3
  ]
^bb2(%t2: !cir.eh_token):
  %c, %p = cir.begin_catch %t2 : !cir.eh_token -> (!cir.catch_token, !cir.ptr<!s32i>)
  %x = cir.load %p : !cir.ptr<!s32i>, !s32i
  cir.call @mark(%x) : (!s32i) -> ()
  cir.end_catch %c : !cir.catch_token
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
^bb3(%t3: !cir.eh_token):
  cir.resume %t3 : !cir.eh_token
^bb4(%t4: !cir.eh_token):
  cir.unreachable
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(calls(&o), vec!["call @mark(5)"]);
    assert_in_order(
        &lines(&o),
        &[
            "throw int 5 (exn#1)",
            "catch int (exn#1) in handler int",
            "destroy int (exn#1)",
            "leave @main = 0",
        ],
    );
}

/// An exception escaping the code between `cir.begin_cleanup` and `cir.end_cleanup` of
/// another exception terminates (a destructor throwing during unwinding).
#[test]
fn flat_exception_escaping_an_eh_cleanup_terminates() {
    let f = r#"
cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate cleanup : !cir.eh_token
  %c = cir.begin_cleanup %t : !cir.eh_token -> !cir.cleanup_token
  cir.call @dtor() : () -> ()
  cir.end_cleanup %c : !cir.cleanup_token
  cir.resume %t : !cir.eh_token
}
"#;
    let o = run_text(&flat_program(f), &["@g=int:1", "@dtor=int:2"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()", "call @dtor()"]);
    assert_in_order(
        &lines(&o),
        &[
            "throw int 2 (exn#2)",
            "terminate: terminate called after throwing an instance of 'int'",
        ],
    );
    // Without the second exception the cleanup completes and main catches.
    let o = run_text(&flat_program(f), &["@g=int:1"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec!["call @g()", "call @dtor()", "call @mark(9)"]
    );
}

/// g++'s noexcept rule in flat form, case A: the landing pad's code leads through a
/// cleanup to a `terminate` key only, so the cleanup does not run.
#[test]
fn flat_noexcept_cleanups_before_the_boundary_do_not_run() {
    let f = r#"
cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate cleanup : !cir.eh_token
  %c = cir.begin_cleanup %t : !cir.eh_token -> !cir.cleanup_token
  cir.call @dtor_fa() : () -> ()
  cir.end_cleanup %c : !cir.cleanup_token
  cir.br ^bb3(%t : !cir.eh_token)
^bb3(%t2: !cir.eh_token):
  cir.eh.dispatch %t2 : !cir.eh_token [
    terminate : ^bb4
  ]
^bb4:
  cir.unreachable
}
"#;
    let o = run_text(&flat_program(f), &["@g=int:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()"]);
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'int'\n"
    );
}

/// Case B: a dispatch with a non-matching catch key, then an `unwind` path through a
/// cleanup to the `terminate` key: the inner cleanup runs, the outer one does not, and
/// terminate has no active exception.
#[test]
fn flat_noexcept_after_a_non_matching_dispatch() {
    let f = r#"
cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate cleanup : !cir.eh_token
  %c = cir.begin_cleanup %t : !cir.eh_token -> !cir.cleanup_token
  cir.call @dtor_ta() : () -> ()
  cir.end_cleanup %c : !cir.cleanup_token
  cir.eh.dispatch %t : !cir.eh_token [
    catch (#cir.global_view<@_ZTIf> : !cir.ptr<!u8i>) : ^bb3
    unwind : ^bb4
  ]
^bb3(%t3: !cir.eh_token):
  %k = cir.begin_catch %t3 : !cir.eh_token -> !cir.catch_token
  cir.end_catch %k : !cir.catch_token
  cir.call @dtor_fa() : () -> ()
  cir.return
^bb4(%t4: !cir.eh_token):
  %c2 = cir.begin_cleanup %t4 : !cir.eh_token -> !cir.cleanup_token
  cir.call @dtor_fa() : () -> ()
  cir.end_cleanup %c2 : !cir.cleanup_token
  cir.eh.dispatch %t4 : !cir.eh_token [
    terminate : ^bb5
  ]
^bb5:
  cir.unreachable
}
"#;
    let o = run_text(&flat_program(f), &["@g=int:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()", "call @dtor_ta()"]);
    assert_eq!(stderr(&o), "terminate called without an active exception\n");
    let o = run_text(&flat_program(f), &["@g=float:1"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec!["call @g()", "call @dtor_ta()", "call @dtor_fa()"]
    );
}

/// What flatten-cfg makes of a throwing destructor during unwinding: the destructor
/// call in the EH cleanup unwinds to `cir.eh.terminate %token`, which terminates naming
/// the new exception.
#[test]
fn flat_eh_terminate_names_its_exception() {
    let f = r#"
cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate cleanup : !cir.eh_token
  %c = cir.begin_cleanup %t : !cir.eh_token -> !cir.cleanup_token
  cir.try_call @dtor() ^bb3, ^bb4 : () -> ()
^bb3:
  cir.end_cleanup %c : !cir.cleanup_token
  cir.resume %t : !cir.eh_token
^bb4:
  %t2 = cir.eh.initiate : !cir.eh_token
  cir.eh.terminate %t2 : !cir.eh_token
}
"#;
    let o = run_text(&flat_program(f), &["@g=int:1", "@dtor=double:2"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'double'\n"
    );
    assert_eq!(calls(&o), vec!["call @g()", "call @dtor()"]);
}

// ---- itanium ---------------------------------------------------------------------------------

/// `main`: landing pad `[@_ZTIi, null]`, compares the selector with the int type id.
fn itanium_program(f: &str) -> String {
    format!(
        r#"
{f}
cir.func @main() -> !s32i #personality_fn = @__gxx_personality_v0 {{
  cir.try_call @f() ^bb1, ^bb2 : () -> ()
^bb1:
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
^bb2:
  %exn, %sel = cir.eh.landingpad [@_ZTIi, null] : (!cir.ptr<!void>, !u32i)
  %id = cir.eh.typeid @_ZTIi : !u32i
  %is = cir.cmp(eq, %sel, %id) : !u32i, !cir.bool
  cir.brcond %is ^bb3, ^bb4
^bb3:
  %p = cir.call @__cxa_begin_catch(%exn) : (!cir.ptr<!void>) -> !cir.ptr<!s32i>
  %v = cir.load %p : !cir.ptr<!s32i>, !s32i
  cir.call @mark(%v) : (!s32i) -> ()
  cir.call @__cxa_end_catch() : () -> ()
  cir.br ^bb1
^bb4:
  %q = cir.call @__cxa_begin_catch(%exn) : (!cir.ptr<!void>) -> !cir.ptr<!void>
  %h = cir.const #cir.int<100> : !s32i
  cir.call @mark(%h) : (!s32i) -> ()
  cir.call @__cxa_end_catch() : () -> ()
  cir.br ^bb1
}}
"#
    )
}

const ITANIUM_CLEANUP: &str = r#"
cir.func @f() #personality_fn = @__gxx_personality_v0 {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.call @dtor() : () -> ()
  cir.return
^bb2:
  %exn, %sel = cir.eh.landingpad cleanup [] : (!cir.ptr<!void>, !u32i)
  cir.call @dtor() : () -> ()
  cir.resume.flat %exn, %sel : !cir.ptr<!void>, !u32i
}
"#;

#[test]
fn itanium_selector_picks_the_handler() {
    let o = run_text(&itanium_program(ITANIUM_CLEANUP), &["@g=int:7"], &[]);
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(
        calls(&o),
        vec!["call @g()", "call @dtor()", "call @mark(7)"]
    );
    assert_in_order(
        &lines(&o),
        &[
            "unwind @f",
            "catch int (exn#1) in handler int",
            "destroy int (exn#1)",
        ],
    );
    let o = run_text(&itanium_program(ITANIUM_CLEANUP), &["@g=double:7"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec!["call @g()", "call @dtor()", "call @mark(100)"]
    );
    assert!(lines(&o).contains(&"catch double (exn#1) in handler ...".to_string()));
}

/// A landing pad whose clauses do not match and that has no cleanup is not entered.
#[test]
fn itanium_non_matching_pad_is_skipped() {
    let f = r#"
cir.func @f() #personality_fn = @__gxx_personality_v0 {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %exn, %sel = cir.eh.landingpad [@_ZTIf] : (!cir.ptr<!void>, !u32i)
  %one = cir.const #cir.int<1> : !s32i
  cir.call @mark(%one) : (!s32i) -> ()
  %p = cir.call @__cxa_begin_catch(%exn) : (!cir.ptr<!void>) -> !cir.ptr<!void>
  cir.call @__cxa_end_catch() : () -> ()
  cir.return
}
"#;
    let o = run_text(&itanium_program(f), &["@g=int:3"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec!["call @g()", "call @mark(3)"]);
    let o = run_text(&itanium_program(f), &["@g=float:3"], &[]);
    assert_eq!(calls(&o), vec!["call @g()", "call @mark(1)"]);
}

/// A filter clause: negative selector, `__cxa_call_unexpected`.
#[test]
fn itanium_filter_clause_calls_unexpected() {
    let f = r#"
cir.func @f() #personality_fn = @__gxx_personality_v0 {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %exn, %sel = cir.eh.landingpad [filter [@_ZTIi]] : (!cir.ptr<!void>, !u32i)
  %s = cir.cast integral %sel : !u32i -> !s32i
  %z = cir.const #cir.int<0> : !s32i
  %neg = cir.cmp(lt, %s, %z) : !s32i, !cir.bool
  cir.brcond %neg ^bb3, ^bb4
^bb3:
  cir.call @__cxa_call_unexpected(%exn) : (!cir.ptr<!void>) -> ()
  cir.unreachable
^bb4:
  cir.resume.flat %exn, %sel : !cir.ptr<!void>, !u32i
}
"#;
    let o = run_text(&itanium_program(f), &["@g=double:2"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_in_order(
        &lines(&o),
        &[
            "unexpected double (exn#1)",
            "terminate: terminate called after throwing an instance of 'double'",
        ],
    );
    let o = run_text(&itanium_program(f), &["@g=int:2"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec!["call @g()", "call @mark(2)"]);
}

/// Exceptions thrown with `__cxa_allocate_exception` + `__cxa_throw`, rethrown with
/// `__cxa_rethrow`.
#[test]
fn itanium_runtime_calls_throw_and_rethrow() {
    let text = r#"
cir.func @f() #personality_fn = @__gxx_personality_v0 {
  %four = cir.const #cir.int<4> : !u64i
  %e = cir.call @__cxa_allocate_exception(%four) : (!u64i) -> !cir.ptr<!s32i>
  %v = cir.const #cir.int<11> : !s32i
  cir.store %v, %e : !s32i, !cir.ptr<!s32i>
  %ti = cir.const #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>
  %null = cir.const #cir.ptr<null> : !cir.ptr<!void>
  cir.try_call @__cxa_throw(%e, %ti, %null) ^bb1, ^bb2 : (!cir.ptr<!s32i>, !cir.ptr<!u8i>, !cir.ptr<!void>) -> ()
^bb1:
  cir.unreachable
^bb2:
  %exn, %sel = cir.eh.landingpad [null] : (!cir.ptr<!void>, !u32i)
  %p = cir.call @__cxa_begin_catch(%exn) : (!cir.ptr<!void>) -> !cir.ptr<!void>
  cir.try_call @__cxa_rethrow() ^bb1, ^bb3 : () -> ()
^bb3:
  %exn2, %sel2 = cir.eh.landingpad cleanup [] : (!cir.ptr<!void>, !u32i)
  cir.call @__cxa_end_catch() : () -> ()
  cir.resume.flat %exn2, %sel2 : !cir.ptr<!void>, !u32i
}
"#;
    let o = run_text(&itanium_program(text), &[], &[]);
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(calls(&o), vec!["call @mark(11)"]);
    assert_in_order(
        &lines(&o),
        &[
            "throw int 11 (exn#1)",
            "catch int (exn#1) in handler ...",
            "rethrow int (exn#1)",
            "unwind @f",
            "catch int (exn#1) in handler int",
            "destroy int (exn#1)",
        ],
    );
    assert_eq!(
        lines(&o)
            .iter()
            .filter(|l| l.starts_with("destroy"))
            .count(),
        1
    );
}

// ---- msvc ------------------------------------------------------------------------------------

const MSVC_MAIN: &str = r#"
cir.func @main() -> !s32i #personality_fn = @__CxxFrameHandler3 {
  %slot = cir.alloca !s32i, !cir.ptr<!s32i>, ["e"]
  cir.try_call @f() ^bb1, ^bb2 : () -> ()
^bb1:
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
^bb2:
  %cs = cir.catchswitch within none [^bb3, ^bb4] unwind to caller
^bb3:
  %c = cir.catchpad within %cs [@"??_R0H@8", 0, %slot : !cir.ptr<!s32i>] : !cir.catch_token
  %v = cir.load %slot : !cir.ptr<!s32i>, !s32i
  cir.call @mark(%v) : (!s32i) -> ()
  cir.catchret from %c to ^bb1
^bb4:
  %c2 = cir.catchpad within %cs [null, 64, null] : !cir.catch_token
  %h = cir.const #cir.int<100> : !s32i
  cir.call @mark(%h) : (!s32i) -> ()
  cir.catchret from %c2 to ^bb1
}
"#;

const MSVC_CLEANUP: &str = r#"
cir.func @f() #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.call @dtor() : () -> ()
  cir.return
^bb2:
  %c = cir.cleanuppad within none : !cir.cleanup_token
  cir.call @dtor() : () -> ()
  cir.cleanupret from %c unwind to caller
}
"#;

#[test]
fn msvc_catchswitch_catchpad_slot_and_cleanup_funclet() {
    let text = format!("{MSVC_CLEANUP}\n{MSVC_MAIN}");
    let o = run_text(&text, &["@g=int:6"], &[]);
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(
        calls(&o),
        vec!["call @g()", "call @dtor()", "call @mark(6)"]
    );
    assert_in_order(
        &lines(&o),
        &[
            "unwind @f",
            "catch int (exn#1) in handler int",
            "destroy int (exn#1)",
            "leave @main = 0",
        ],
    );
    let o = run_text(&text, &["@g=E"], &[]);
    assert_eq!(
        calls(&o),
        vec!["call @g()", "call @dtor()", "call @mark(100)"]
    );
}

/// An inner catchswitch that does not match unwinds to an outer one in the same
/// function.
#[test]
fn msvc_catchswitch_chain() {
    let f = r#"
cir.func @f() #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %cs = cir.catchswitch within none [^bb3] unwind to ^bb4
^bb3:
  %c = cir.catchpad within %cs [@"??_R0M@8", 0, null] : !cir.catch_token
  %one = cir.const #cir.int<1> : !s32i
  cir.call @mark(%one) : (!s32i) -> ()
  cir.catchret from %c to ^bb1
^bb4:
  %cs2 = cir.catchswitch within none [^bb5] unwind to caller
^bb5:
  %c2 = cir.catchpad within %cs2 [@"??_R0H@8", 0, null] : !cir.catch_token
  %two = cir.const #cir.int<2> : !s32i
  cir.call @mark(%two) : (!s32i) -> ()
  cir.catchret from %c2 to ^bb1
}
"#;
    let text = format!("{f}\n{MSVC_MAIN}");
    assert_eq!(
        calls(&run_text(&text, &["@g=float:1"], &[])),
        vec!["call @g()", "call @mark(1)"]
    );
    assert_eq!(
        calls(&run_text(&text, &["@g=int:1"], &[])),
        vec!["call @g()", "call @mark(2)"]
    );
    // Neither: out to main's catch-all.
    assert_eq!(
        calls(&run_text(&text, &["@g=double:1"], &[])),
        vec!["call @g()", "call @mark(100)"]
    );
}

/// A new exception leaving a catch funclet ends that catch (the old exception dies).
#[test]
fn msvc_exception_leaving_a_catch_funclet_ends_the_catch() {
    let f = r#"
cir.func @f() #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %cs = cir.catchswitch within none [^bb3] unwind to caller
^bb3:
  %c = cir.catchpad within %cs [null, 64, null] : !cir.catch_token
  cir.call @h() : () -> ()
  cir.catchret from %c to ^bb1
}
"#;
    let text = format!("{f}\n{MSVC_MAIN}");
    let o = run_text(&text, &["@g=double:1", "@h=int:4"], &[]);
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(calls(&o), vec!["call @g()", "call @h()", "call @mark(4)"]);
    assert_in_order(
        &lines(&o),
        &[
            "catch double (exn#1) in handler ...",
            "throw int 4 (exn#2)",
            "destroy double (exn#1)",
            "catch int (exn#2) in handler int",
            "destroy int (exn#2)",
        ],
    );
}

/// An exception escaping a cleanup funclet of another exception terminates.
#[test]
fn msvc_exception_escaping_a_cleanup_funclet_terminates() {
    let text = format!("{MSVC_CLEANUP}\n{MSVC_MAIN}");
    let o = run_text(&text, &["@g=int:6", "@dtor=int:7"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()", "call @dtor()"]);
}
