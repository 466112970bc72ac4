//! The modelled C++ runtime (libstdc++ behaviour): exception object lifetime, two-phase
//! search, catch matching, rethrow, nested exceptions, exception specifications,
//! terminate cases and exit statuses. Programs call an undefined `@mark(i)` to make
//! points of execution visible in the trace (`call @mark(1)`).

mod common;

use common::*;

/// An exception class `E` with an external destructor, plus `D : B` with B at offset 4.
const CLASSES: &str = r#"
!rec_E = !cir.record<struct "E" {!s32i}>
!rec_B = !cir.record<struct "B" {!s32i}>
!rec_D = !cir.record<struct "D" {!s32i, !rec_B}>
cir.typeinfo @_ZTI1E : !rec_E
cir.typeinfo @_ZTI1B : !rec_B
cir.typeinfo @_ZTI1D : !rec_D bases [@_ZTI1B at 4]
cir.global external @d : !rec_D
"#;

fn program(body: &str) -> String {
    format!("{CLASSES}\n{body}")
}

// ---- exception object lifetime ---------------------------------------------------------

#[test]
fn exception_is_destroyed_when_its_handler_ends() {
    let o = run_text(
        &program(
            r#"
cir.func @main() -> !s32i {
  cir.try {
    %e = cir.alloc.exception 4 -> !cir.ptr<!rec_E>
    cir.throw %e : !cir.ptr<!rec_E>, @_ZTI1E, @_ZN1ED1Ev
  } catch [type #cir.global_view<@_ZTI1E> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!rec_E>
    %one = cir.const #cir.int<1> : !s32i
    cir.call @mark(%one) : (!s32i) -> ()
    cir.yield
  }
  %two = cir.const #cir.int<2> : !s32i
  cir.call @mark(%two) : (!s32i) -> ()
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        ),
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec!["call @mark(1)", "call @_ZN1ED1Ev(exn#1+0)", "call @mark(2)"]
    );
    assert_in_order(
        &lines(&o),
        &[
            "throw E (exn#1)",
            "catch E (exn#1) in handler E",
            "call @mark(1)",
            "destroy E (exn#1)",
            "call @_ZN1ED1Ev(exn#1+0)",
        ],
    );
}

/// `void g() { try { throw E(); } catch (...) { mark(1); throw; } }`
/// `int main() { try { g(); } catch (E&) { mark(2); } mark(3); }`
#[test]
fn rethrown_exception_outlives_the_handler_that_rethrew_it() {
    let o = run_text(
        &program(
            r#"
cir.func @g() {
  cir.try {
    %e = cir.alloc.exception 4 -> !cir.ptr<!rec_E>
    cir.throw %e : !cir.ptr<!rec_E>, @_ZTI1E, @_ZN1ED1Ev
  } catch all {
    %p = cir.catch_param : !cir.ptr<!void>
    %one = cir.const #cir.int<1> : !s32i
    cir.call @mark(%one) : (!s32i) -> ()
    cir.throw
  }
  cir.return
}
cir.func @main() -> !s32i {
  cir.try {
    cir.call @g() : () -> ()
    cir.yield
  } catch [type #cir.global_view<@_ZTI1E> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!rec_E>
    %two = cir.const #cir.int<2> : !s32i
    cir.call @mark(%two) : (!s32i) -> ()
    cir.yield
  }
  %three = cir.const #cir.int<3> : !s32i
  cir.call @mark(%three) : (!s32i) -> ()
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        ),
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec![
            "call @mark(1)",
            "call @mark(2)",
            "call @_ZN1ED1Ev(exn#1+0)",
            "call @mark(3)"
        ]
    );
    assert_in_order(
        &lines(&o),
        &[
            "catch E (exn#1) in handler ...",
            "rethrow E (exn#1)",
            "unwind @g",
            "catch E (exn#1) in handler E",
            "destroy E (exn#1)",
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

/// A second exception thrown and caught inside a handler dies first.
#[test]
fn nested_exception_inside_a_handler() {
    let o = run_text(
        r#"
cir.func @main() -> !s32i {
  cir.try {
    %e = cir.alloc.exception 4 -> !cir.ptr<!s32i>
    %v = cir.const #cir.int<1> : !s32i
    cir.store %v, %e : !s32i, !cir.ptr<!s32i>
    cir.throw %e : !cir.ptr<!s32i>, @_ZTIi
  } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!s32i>
    cir.try {
      %f = cir.alloc.exception 8 -> !cir.ptr<!cir.double>
      %w = cir.const #cir.fp<2.5> : !cir.double
      cir.store %w, %f : !cir.double, !cir.ptr<!cir.double>
      cir.throw %f : !cir.ptr<!cir.double>, @_ZTId
    } catch [type #cir.global_view<@_ZTId> : !cir.ptr<!u8i>] {
      %q = cir.catch_param : !cir.ptr<!cir.double>
      %x = cir.load %q : !cir.ptr<!cir.double>, !cir.double
      cir.call @markd(%x) : (!cir.double) -> ()
      cir.yield
    }
    %y = cir.load %p : !cir.ptr<!s32i>, !s32i
    cir.call @mark(%y) : (!s32i) -> ()
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec!["call @markd(2.5)", "call @mark(1)"]);
    assert_in_order(
        &lines(&o),
        &[
            "catch int (exn#1) in handler int",
            "throw double 2.5 (exn#2)",
            "catch double (exn#2) in handler double",
            "destroy double (exn#2)",
            "call @mark(1)",
            "destroy int (exn#1)",
        ],
    );
}

// ---- two-phase search, entries, exit statuses --------------------------------------------

const CLEANUP_THEN_THROW: &str = r#"
!rec_A = !cir.record<struct "A" {!s8i}>
cir.func @ENTRY() -> !s32i {
  %a = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["a", init]
  cir.cleanup.scope {
    cir.call @f() : () -> ()
    cir.yield
  } cleanup all {
    cir.call @_ZN1AD1Ev(%a) : (!cir.ptr<!rec_A>) -> ()
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#;

/// No handler anywhere: `std::terminate` before anything is unwound — the cleanup of
/// `a` never runs (g++/libstdc++ behaviour).
#[test]
fn uncaught_in_main_terminates_before_unwinding() {
    let o = run_text(
        &CLEANUP_THEN_THROW.replace("ENTRY", "main"),
        &["@f=int:3"],
        &[],
    );
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @f()"]);
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'int'\n"
    );
    assert_in_order(
        &lines(&o),
        &[
            "throw int 3 (exn#1)",
            "terminate: terminate called after throwing an instance of 'int'",
            "abort",
            "exit 134",
        ],
    );
}

/// Any other entry runs under a catch-everything harness: cleanups run, the escape is
/// reported, exit status 1.
#[test]
fn uncaught_in_other_entry_runs_cleanups_and_exits_1() {
    let o = run_text(
        &CLEANUP_THEN_THROW.replace("ENTRY", "run"),
        &["@f=int:3"],
        &[],
    );
    assert_eq!(o.exit_status, 1);
    assert_eq!(calls(&o), vec!["call @f()", "call @_ZN1AD1Ev(&a+0)"]);
    assert_eq!(stderr(&o), "ehir run: exception escaped @run: int 3\n");
    assert_in_order(
        &lines(&o),
        &["unwind @run", "escape int 3 (exn#1)", "exit 1"],
    );
}

#[test]
fn main_return_value_is_the_exit_status() {
    let o = run_text(
        "cir.func @main() -> !s32i {\n  %v = cir.const #cir.int<258> : !s32i\n  cir.return %v : !s32i\n}\n",
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 2);
}

/// Parameters of an entry: zero scalars, pointers to fresh zeroed storage.
#[test]
fn entry_parameters_are_zero_or_fresh_storage() {
    let o = run_text(
        r#"
!rec_P = !cir.record<struct "P" {!s32i, !s64i}>
cir.func @entry(%n: !s32i, %p: !cir.ptr<!rec_P>, %q: !cir.ptr<!rec_Opaque>) {
  cir.call @mark(%n) : (!s32i) -> ()
  %f = cir.get_member %p[1] {name = "y"} : !cir.ptr<!rec_P> -> !cir.ptr<!s64i>
  %v = cir.load %f : !cir.ptr<!s64i>, !s64i
  cir.call @mark64(%v) : (!s64i) -> ()
  cir.call @use(%p, %q) : (!cir.ptr<!rec_P>, !cir.ptr<!rec_Opaque>) -> ()
  cir.return
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(
        calls(&o),
        vec![
            "call @mark(0)",
            "call @mark64(0)",
            "call @use(&arg1+0, &arg2+0)"
        ]
    );
}

// ---- catch matching ---------------------------------------------------------------------

/// `try { f(); } catch (unsigned) {mark 1} catch (B&) {mark 2} catch (const char*) {mark 3}
/// catch (...) {mark 4}` with various thrown types.
const MATCHING: &str = r#"
cir.func @run() {
  cir.try {
    cir.call @f() : () -> ()
    cir.yield
  } catch [type #cir.global_view<@_ZTIj> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!u32i>
    %one = cir.const #cir.int<1> : !s32i
    cir.call @mark(%one) : (!s32i) -> ()
    cir.yield
  } catch [type #cir.global_view<@_ZTI1B> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!rec_B>
    %two = cir.const #cir.int<2> : !s32i
    cir.call @mark(%two) : (!s32i) -> ()
    cir.call @markp(%p) : (!cir.ptr<!rec_B>) -> ()
    cir.yield
  } catch [type #cir.global_view<@_ZTIPKc> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!s8i>
    %three = cir.const #cir.int<3> : !s32i
    cir.call @mark(%three) : (!s32i) -> ()
    cir.call @marks(%p) : (!cir.ptr<!s8i>) -> ()
    cir.yield
  } catch all {
    %p = cir.catch_param : !cir.ptr<!void>
    %four = cir.const #cir.int<4> : !s32i
    cir.call @mark(%four) : (!s32i) -> ()
    cir.yield
  }
  cir.return
}
"#;

fn matching(thrown: &str) -> Vec<String> {
    let o = run_text(&program(MATCHING), &[&format!("@f={thrown}")], &[]);
    assert_eq!(o.exit_status, 0, "{thrown}: {:?}", lines(&o));
    calls(&o).into_iter().skip(1).collect()
}

#[test]
fn catch_by_exact_type_not_by_conversion() {
    assert_eq!(matching("unsigned:5"), vec!["call @mark(1)"]);
    // int is not caught by `catch (unsigned)`: no conversions on catch.
    assert_eq!(matching("int:5"), vec!["call @mark(4)"]);
}

#[test]
fn catch_by_public_base_class_gets_the_base_subobject() {
    assert_eq!(matching("B"), vec!["call @mark(2)", "call @markp(exn#1+0)"]);
    // D's B subobject is at offset 4.
    assert_eq!(matching("D"), vec!["call @mark(2)", "call @markp(exn#1+4)"]);
    // E is unrelated: catch-all.
    assert_eq!(matching("E"), vec!["call @mark(4)"]);
}

#[test]
fn catch_pointer_with_qualification_conversion() {
    // `const char*` is caught by `catch (const char*)`; the handler gets the pointer.
    assert_eq!(
        matching("const char*:oops"),
        vec!["call @mark(3)", "call @marks(str#1+0)"]
    );
    // `char*` converts to `const char*` too.
    assert_eq!(
        matching("char*:null"),
        vec!["call @mark(3)", "call @marks(null)"]
    );
    assert_eq!(matching("int*:null"), vec!["call @mark(4)"]);
}

/// Thrown `D*` caught as `B*`: the pointer value is adjusted to the base subobject.
#[test]
fn catch_pointer_to_base_adjusts_the_pointer() {
    let o = run_text(
        &program(
            r#"
cir.func @main() -> !s32i {
  cir.try {
    %e = cir.alloc.exception 8 -> !cir.ptr<!cir.ptr<!rec_D>>
    %d = cir.get_global @d : !cir.ptr<!rec_D>
    cir.store %d, %e : !cir.ptr<!rec_D>, !cir.ptr<!cir.ptr<!rec_D>>
    cir.throw %e : !cir.ptr<!cir.ptr<!rec_D>>, @_ZTIP1D
  } catch [type #cir.global_view<@_ZTIP1E> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!rec_E>
    cir.call @markp(%p) : (!cir.ptr<!rec_E>) -> ()
    cir.yield
  } catch [type #cir.global_view<@_ZTIPK1B> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!rec_B>
    cir.call @markp(%p) : (!cir.ptr<!rec_B>) -> ()
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        ),
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_eq!(calls(&o), vec!["call @markp(@d+4)"]);
}

#[test]
fn rethrow_without_an_exception_terminates_even_inside_try() {
    let o = run_text(
        r#"
cir.func @g() {
  cir.throw
}
cir.func @main() -> !s32i {
  cir.try {
    cir.call @g() : () -> ()
    cir.yield
  } catch all {
    %p = cir.catch_param : !cir.ptr<!void>
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 134);
    assert_eq!(stderr(&o), "terminate called without an active exception\n");
    assert!(!lines(&o).iter().any(|l| l.starts_with("catch")));
}

// ---- exception specifications and noexcept ---------------------------------------------------

/// `void g() { A a; throw X; }`, `void f() throw(SPEC) { A a; g(); }`,
/// `int main() { try { f(); } catch (...) { mark(9); } }`.
fn spec_program(spec: &str, handler: &str) -> String {
    format!(
        r#"
!rec_A = !cir.record<struct "A" {{!s8i}}>
{handler}
cir.func @g() {{
  %a = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["ga", init]
  cir.cleanup.scope {{
    cir.call @thrower() : () -> ()
    cir.yield
  }} cleanup all {{
    cir.call @_ZN1AD1Ev(%a) : (!cir.ptr<!rec_A>) -> ()
    cir.yield
  }}
  cir.return
}}
cir.func @f() {{
  %a = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["fa", init]
  cir.try {{
    cir.cleanup.scope {{
      cir.call @g() : () -> ()
      cir.yield
    }} cleanup all {{
      cir.call @_ZN1AD1Ev(%a) : (!cir.ptr<!rec_A>) -> ()
      cir.yield
    }}
    cir.yield
  }} {spec} {{
    cir.unreachable
  }}
  cir.return
}}
cir.func @main() -> !s32i {{
  cir.try {{
    cir.call @f() : () -> ()
    cir.yield
  }} catch all {{
    %p = cir.catch_param : !cir.ptr<!void>
    %nine = cir.const #cir.int<9> : !s32i
    cir.call @mark(%nine) : (!s32i) -> ()
    cir.yield
  }}
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}}
"#
    )
}

const INT_SPEC: &str = "filter [#cir.global_view<@_ZTIi>]";

#[test]
fn met_specification_calls_unexpected_then_terminate_after_inner_cleanups() {
    let o = run_text(&spec_program(INT_SPEC, ""), &["@thrower=double:1.5"], &[]);
    assert_eq!(o.exit_status, 134);
    // As with g++: both destructors run (phase 2 unwinds to the specification), then
    // std::unexpected's default handler terminates; main's catch(...) never runs.
    assert_eq!(
        calls(&o),
        vec![
            "call @thrower()",
            "call @_ZN1AD1Ev(&ga+0)",
            "call @_ZN1AD1Ev(&fa+0)"
        ]
    );
    assert_in_order(
        &lines(&o),
        &[
            "unexpected double (exn#1)",
            "terminate: terminate called after throwing an instance of 'double'",
        ],
    );
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'double'\n"
    );
}

#[test]
fn allowed_exception_passes_the_specification() {
    let o = run_text(&spec_program(INT_SPEC, ""), &["@thrower=int:1"], &[]);
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec![
            "call @thrower()",
            "call @_ZN1AD1Ev(&ga+0)",
            "call @_ZN1AD1Ev(&fa+0)",
            "call @mark(9)"
        ]
    );
    assert!(!lines(&o).iter().any(|l| l.starts_with("unexpected")));
}

#[test]
fn empty_specification_allows_nothing() {
    let o = run_text(&spec_program("filter []", ""), &["@thrower=int:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert!(lines(&o).contains(&"unexpected int (exn#1)".to_string()));
}

const SET_HANDLER: &str = r#"
cir.func @install() {
  %h = cir.get_global @handler : !cir.ptr<!cir.func<()>>
  %old = cir.call @_ZSt14set_unexpectedPFvvE(%h) : (!cir.ptr<!cir.func<()>>) -> !cir.ptr<!cir.func<()>>
  cir.return
}
"#;

fn with_handler(spec: &str, handler_body: &str, thrown: &str) -> ehir_interp::RunOutcome {
    let handler = format!(
        "{SET_HANDLER}\ncir.func @handler() {{\n  cir.call @in_handler() : () -> ()\n{handler_body}\n}}\n"
    );
    let text = spec_program(spec, &handler).replace(
        "cir.func @main() -> !s32i {\n  cir.try {",
        "cir.func @main() -> !s32i {\n  cir.call @install() : () -> ()\n  cir.try {",
    );
    run_text(&text, &[&format!("@thrower={thrown}")], &[])
}

/// The handler rethrows; the specification lists std::bad_exception, so
/// std::bad_exception replaces the exception (C++14 [except.unexpected]).
#[test]
fn unexpected_handler_rethrow_becomes_bad_exception() {
    let spec = "filter [#cir.global_view<@_ZTIi>, #cir.global_view<@_ZTISt13bad_exception>]";
    let o = with_handler(spec, "  cir.throw", "double:1.5");
    assert_eq!(o.exit_status, 0, "{}", lines(&o).join("\n"));
    assert_in_order(
        &lines(&o),
        &[
            "unexpected double (exn#1)",
            "enter @handler()",
            "call @in_handler()",
            "rethrow double (exn#1)",
            "destroy double (exn#1)",
            "throw std::bad_exception (exn#2)",
            "catch std::bad_exception (exn#2) in handler ...",
            "call @mark(9)",
        ],
    );
}

/// The handler throws an allowed type: it propagates from the specification.
#[test]
fn unexpected_handler_may_throw_an_allowed_type() {
    let body = r#"  %e = cir.alloc.exception 4 -> !cir.ptr<!s32i>
  %v = cir.const #cir.int<42> : !s32i
  cir.store %v, %e : !s32i, !cir.ptr<!s32i>
  cir.throw %e : !cir.ptr<!s32i>, @_ZTIi"#;
    let o = with_handler(INT_SPEC, body, "double:1.5");
    assert_eq!(o.exit_status, 0, "{}", lines(&o).join("\n"));
    assert_in_order(
        &lines(&o),
        &[
            "unexpected double (exn#1)",
            "throw int 42 (exn#2)",
            "destroy double (exn#1)",
            "catch int (exn#2) in handler ...",
            "call @mark(9)",
        ],
    );
}

/// The handler throws something else and bad_exception is not allowed: terminate.
#[test]
fn unexpected_handler_throwing_a_disallowed_type_terminates() {
    let o = with_handler(INT_SPEC, "  cir.throw", "double:1.5");
    assert_eq!(o.exit_status, 134);
    assert!(!calls(&o).contains(&"call @mark(9)".to_string()));
}

/// A handler that returns: std::terminate.
#[test]
fn unexpected_handler_returning_terminates() {
    let o = with_handler(INT_SPEC, "  cir.return", "double:1.5");
    assert_eq!(o.exit_status, 134);
    assert!(calls(&o).contains(&"call @in_handler()".to_string()));
}

/// noexcept with only cleanups between the call and the boundary: the inner frame's
/// cleanup runs, the noexcept frame's own cleanup does not (g++ leaves the call out of
/// the call-site table), then terminate with the exception current.
#[test]
fn noexcept_boundary_terminates_without_its_own_cleanups() {
    let o = run_text(&spec_program("terminate", ""), &["@thrower=int:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @thrower()", "call @_ZN1AD1Ev(&ga+0)"]);
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'int'\n"
    );
}

/// `void f() noexcept { A fa; try { A ta; g(); } catch (float) { mark(5); } }` with
/// g++'s behaviour: the search passes the boundary (the call site's actions are the
/// inner try's), main's handler exists, so phase 2 unwinds into the try, destroys `ta`,
/// the float handler does not match, and `std::terminate` is called without an active
/// exception; `fa` is not destroyed.
const NOEXCEPT_WITH_INNER_TRY: &str = r#"
!rec_A = !cir.record<struct "A" {!s8i}>
cir.func @f() {
  %fa = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["fa", init]
  %ta = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["ta", init]
  cir.try {
    cir.cleanup.scope {
      cir.try {
        cir.cleanup.scope {
          cir.call @g() : () -> ()
          cir.yield
        } cleanup all {
          cir.call @_ZN1AD1Ev(%ta) : (!cir.ptr<!rec_A>) -> ()
          cir.yield
        }
        cir.yield
      } catch [type #cir.global_view<@_ZTIf> : !cir.ptr<!u8i>] {
        %p = cir.catch_param : !cir.ptr<!cir.float>
        %five = cir.const #cir.int<5> : !s32i
        cir.call @mark(%five) : (!s32i) -> ()
        cir.yield
      }
      cir.yield
    } cleanup all {
      cir.call @_ZN1AD1Ev(%fa) : (!cir.ptr<!rec_A>) -> ()
      cir.yield
    }
    cir.yield
  } terminate {
    cir.unreachable
  }
  cir.return
}
"#;

fn with_main(f: &str, main_catches: bool) -> String {
    let main = if main_catches {
        r#"
cir.func @main() -> !s32i {
  cir.try {
    cir.call @f() : () -> ()
    cir.yield
  } catch all {
    %p = cir.catch_param : !cir.ptr<!void>
    %nine = cir.const #cir.int<9> : !s32i
    cir.call @mark(%nine) : (!s32i) -> ()
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#
    } else {
        r#"
cir.func @main() -> !s32i {
  cir.call @f() : () -> ()
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#
    };
    format!("{f}\n{main}")
}

#[test]
fn noexcept_after_a_non_matching_inner_try_terminates_without_active_exception() {
    let o = run_text(
        &with_main(NOEXCEPT_WITH_INNER_TRY, true),
        &["@g=int:1"],
        &[],
    );
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()", "call @_ZN1AD1Ev(&ta+0)"]);
    assert_eq!(stderr(&o), "terminate called without an active exception\n");
    // A float is caught inside: no terminate.
    let o = run_text(
        &with_main(NOEXCEPT_WITH_INNER_TRY, true),
        &["@g=float:1"],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec![
            "call @g()",
            "call @_ZN1AD1Ev(&ta+0)",
            "call @mark(5)",
            "call @_ZN1AD1Ev(&fa+0)"
        ]
    );
    // Nothing outside would catch: terminate from the throw, nothing unwound.
    let o = run_text(
        &with_main(NOEXCEPT_WITH_INNER_TRY, false),
        &["@g=int:1"],
        &[],
    );
    assert_eq!(o.exit_status, 134);
    assert_eq!(calls(&o), vec!["call @g()"]);
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'int'\n"
    );
}

/// A call that cannot throw (callee declared `nothrow`) has no landing pad in lowered
/// code: the search does not consider the caller's handlers for an exception coming
/// out of it.
#[test]
fn nothrow_call_sites_are_transparent_to_the_search() {
    let text = r#"
cir.func nothrow @callee() {
  cir.call @g() : () -> ()
  cir.return
}
cir.func @main() -> !s32i {
  cir.try {
    cir.call @callee() : () -> ()
    cir.yield
  } catch all {
    %p = cir.catch_param : !cir.ptr<!void>
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#;
    let o = run_text(text, &["@g=int:1"], &[]);
    assert_eq!(o.exit_status, 134);
    assert!(!lines(&o).iter().any(|l| l.starts_with("catch")));
}

/// `struct T { ~T() noexcept(false) { throw 2; } }; void h() { A a; T t; f(); }`
fn dtor_throws(f_throws: bool) -> ehir_interp::RunOutcome {
    let text = r#"
!rec_A = !cir.record<struct "A" {!s8i}>
!rec_T = !cir.record<struct "T" {!s8i}>
cir.func @_ZN1TD1Ev(%arg0: !cir.ptr<!rec_T>) {
  %1 = cir.alloc.exception 4 -> !cir.ptr<!s32i>
  %2 = cir.const #cir.int<2> : !s32i
  cir.store %2, %1 : !s32i, !cir.ptr<!s32i>
  cir.throw %1 : !cir.ptr<!s32i>, @_ZTIi
}
cir.func @h() {
  %0 = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["a", init]
  %1 = cir.alloca !rec_T, !cir.ptr<!rec_T>, ["t", init]
  cir.cleanup.scope {
    cir.cleanup.scope {
      cir.call @f() : () -> ()
      cir.yield
    } cleanup all {
      cir.call @_ZN1TD1Ev(%1) : (!cir.ptr<!rec_T>) -> ()
      cir.yield
    }
    cir.yield
  } cleanup all {
    cir.call @_ZN1AD1Ev(%0) : (!cir.ptr<!rec_A>) -> ()
    cir.yield
  }
  cir.return
}
cir.func @main() -> !s32i {
  cir.try {
    cir.call @h() : () -> ()
    cir.yield
  } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
    %p = cir.catch_param : !cir.ptr<!s32i>
    %v = cir.load %p : !cir.ptr<!s32i>, !s32i
    cir.call @mark(%v) : (!s32i) -> ()
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#;
    let throws: &[&str] = if f_throws { &["@f=int:1"] } else { &[] };
    run_text(text, throws, &[])
}

#[test]
fn throwing_out_of_a_cleanup_during_unwinding_terminates() {
    let o = dtor_throws(true);
    assert_eq!(o.exit_status, 134);
    // A's destructor never runs; main's handler never runs.
    assert_eq!(calls(&o), vec!["call @f()"]);
    assert_in_order(
        &lines(&o),
        &[
            "throw int 1 (exn#1)",
            "cleanup eh",
            "enter @_ZN1TD1Ev(&t+0)",
            "throw int 2 (exn#2)",
            "terminate: terminate called after throwing an instance of 'int'",
        ],
    );
}

#[test]
fn throwing_out_of_a_normal_cleanup_propagates() {
    let o = dtor_throws(false);
    assert_eq!(o.exit_status, 0);
    // T's destructor throws on the normal exit: A is still destroyed, main catches 2.
    assert_eq!(
        calls(&o),
        vec!["call @f()", "call @_ZN1AD1Ev(&a+0)", "call @mark(2)"]
    );
}

// ---- external calls ------------------------------------------------------------------------

#[test]
fn printf_puts_putchar_write_stdout() {
    let o = run_text(
        r#"
cir.global constant private @.fmt = #cir.const_array<"%d|%5.2f|%s|%x|%c\n\00" : !cir.array<!s8i x 19>> : !cir.array<!s8i x 19>
cir.global constant private @.str = #cir.const_array<"hi\00" : !cir.array<!s8i x 3>> : !cir.array<!s8i x 3>
cir.func @main() -> !s32i {
  %f = cir.get_global @.fmt : !cir.ptr<!cir.array<!s8i x 19>>
  %fp = cir.cast array_to_ptrdecay %f : !cir.ptr<!cir.array<!s8i x 19>> -> !cir.ptr<!s8i>
  %s = cir.get_global @.str : !cir.ptr<!cir.array<!s8i x 3>>
  %sp = cir.cast array_to_ptrdecay %s : !cir.ptr<!cir.array<!s8i x 3>> -> !cir.ptr<!s8i>
  %a = cir.const #cir.int<-42> : !s32i
  %b = cir.const #cir.fp<3.14159> : !cir.double
  %c = cir.const #cir.int<255> : !s32i
  %d = cir.const #cir.int<65> : !s32i
  %n = cir.call @printf(%fp, %a, %b, %sp, %c, %d) : (!cir.ptr<!s8i>, !s32i, !cir.double, !cir.ptr<!s8i>, !s32i, !s32i) -> !s32i
  cir.call @mark(%n) : (!s32i) -> ()
  %r = cir.call @puts(%sp) : (!cir.ptr<!s8i>) -> !s32i
  %x = cir.call @putchar(%d) : (!s32i) -> !s32i
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(stdout(&o), "-42| 3.14|hi|ff|A\nhi\nA");
    // printf returns the number of characters written.
    assert_eq!(calls(&o), vec!["call @mark(18)"]);
    assert!(lines(&o).contains(&"stdout \"-42| 3.14|hi|ff|A\\n\"".to_string()));
}

fn call_then(callee: &str, arg: i64) -> ehir_interp::RunOutcome {
    run_text(
        &format!(
            r#"
cir.func @main() -> !s32i {{
  %v = cir.const #cir.int<{arg}> : !s32i
  cir.call @{callee}(%v) : (!s32i) -> ()
  cir.call @never() : () -> ()
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}}
"#
        ),
        &[],
        &[],
    )
}

#[test]
fn exit_and_abort_end_the_run() {
    let o = call_then("exit", 5);
    assert_eq!(o.exit_status, 5);
    assert!(calls(&o).is_empty());
    let o = call_then("abort", 0);
    assert_eq!(o.exit_status, 134);
    assert!(calls(&o).is_empty());
    assert_in_order(&lines(&o), &["abort", "exit 134"]);
}

#[test]
fn unknown_callees_are_recorded_and_scripted() {
    let text = r#"
cir.func @main() -> !s32i {
  %a = cir.call @get() : () -> !s32i
  %b = cir.call @get() : () -> !s32i
  %c = cir.call @get() : () -> !s32i
  %d = cir.call @other(%a, %b, %c) : (!s32i, !s32i, !s32i) -> !cir.double
  cir.call @markd(%d) : (!cir.double) -> ()
  cir.return %c : !s32i
}
"#;
    let o = run_text(text, &[], &["@get=5,7"]);
    assert_eq!(o.exit_status, 7);
    assert_eq!(
        lines(&o),
        vec![
            "enter @main()",
            "call @get()",
            "return @get = 5",
            "call @get()",
            "return @get = 7",
            "call @get()",
            "return @get = 7",
            "call @other(5, 7, 7)",
            "return @other = 0.0",
            "call @markd(0.0)",
            "return @markd",
            "leave @main = 7",
            "exit 7",
        ]
    );
}

#[test]
fn throw_at_selects_calls() {
    let text = r#"
cir.func @run() {
  cir.call @f() : () -> ()
  cir.call @f() : () -> ()
  cir.call @f() : () -> ()
  cir.return
}
"#;
    let o = run_text(text, &["@f#2=int:7"], &[]);
    assert_eq!(calls(&o), vec!["call @f()", "call @f()"]);
    assert!(lines(&o).contains(&"escape int 7 (exn#1)".to_string()));
    let o = run_text(text, &["@f#*=long:-3"], &[]);
    assert_eq!(calls(&o), vec!["call @f()"]);
    assert!(lines(&o).contains(&"escape long -3 (exn#1)".to_string()));
}

#[test]
fn bad_throw_specs_are_setup_errors() {
    let module = parse("cir.func @run() {\n  cir.call @f() : () -> ()\n  cir.return\n}\n");
    let mut config = ehir_interp::RunConfig::default();
    config
        .throw_at
        .push(ehir_interp::parse_throw_spec("@f=int:abc").unwrap());
    assert!(matches!(
        ehir_interp::run_module(&module, &config),
        Err(ehir_interp::InterpError::BadSpec(_))
    ));
    let config = ehir_interp::RunConfig {
        entry: Some("nope".into()),
        ..Default::default()
    };
    assert_eq!(
        ehir_interp::run_module(&module, &config).unwrap_err(),
        ehir_interp::InterpError::NoSuchEntry("nope".into())
    );
}
