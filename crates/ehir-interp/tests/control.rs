//! Structured control flow executed on the regions: loops with `continue`/`break`,
//! `cir.switch` with fallthrough, `cir.ternary`, `cir.goto` out of a cleanup scope,
//! `cir.return` through nested cleanups, and leaving a catch handler by `break`.

mod common;

use common::*;

fn mark(n: i64) -> String {
    format!("  %m{n} = cir.const #cir.int<{n}> : !s32i\n  cir.call @mark(%m{n}) : (!s32i) -> ()\n")
}

/// `for (i = 0; i < 6; ++i) { if (i % 2) continue; if (i == 4) break; mark(i); }`
#[test]
fn for_loop_continue_runs_the_step_and_break_leaves() {
    let o = run_text(
        r#"
cir.func @main() -> !s32i {
  %i = cir.alloca !s32i, !cir.ptr<!s32i>, ["i", init]
  %z = cir.const #cir.int<0> : !s32i
  cir.store %z, %i : !s32i, !cir.ptr<!s32i>
  cir.for : cond {
    %0 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %n = cir.const #cir.int<6> : !s32i
    %1 = cir.cmp(lt, %0, %n) : !s32i, !cir.bool
    cir.condition(%1)
  } body {
    %2 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %two = cir.const #cir.int<2> : !s32i
    %r = cir.binop(rem, %2, %two) : !s32i
    %odd = cir.cast int_to_bool %r : !s32i -> !cir.bool
    cir.if %odd {
      cir.continue
    }
    %four = cir.const #cir.int<4> : !s32i
    %is4 = cir.cmp(eq, %2, %four) : !s32i, !cir.bool
    cir.if %is4 {
      cir.break
    }
    cir.call @mark(%2) : (!s32i) -> ()
    cir.yield
  } step {
    %3 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %4 = cir.unary(inc, %3) : !s32i, !s32i
    cir.store %4, %i : !s32i, !cir.ptr<!s32i>
    cir.yield
  }
  %5 = cir.load %i : !cir.ptr<!s32i>, !s32i
  cir.return %5 : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 4, "{:?}", o.runtime_error);
    assert_eq!(calls(&o), vec!["call @mark(0)", "call @mark(2)"]);
}

/// `do { mark(i); } while (++i < 3);`
#[test]
fn do_while_runs_the_body_first() {
    let o = run_text(
        r#"
cir.func @main() -> !s32i {
  %i = cir.alloca !s32i, !cir.ptr<!s32i>, ["i", init]
  %z = cir.const #cir.int<5> : !s32i
  cir.store %z, %i : !s32i, !cir.ptr<!s32i>
  cir.do {
    %0 = cir.load %i : !cir.ptr<!s32i>, !s32i
    cir.call @mark(%0) : (!s32i) -> ()
    cir.yield
  } while {
    %1 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %2 = cir.unary(inc, %1) : !s32i, !s32i
    cir.store %2, %i : !s32i, !cir.ptr<!s32i>
    %n = cir.const #cir.int<3> : !s32i
    %3 = cir.cmp(lt, %2, %n) : !s32i, !cir.bool
    cir.condition(%3)
  }
  %z2 = cir.const #cir.int<0> : !s32i
  cir.return %z2 : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(calls(&o), vec!["call @mark(5)"]);
}

fn switch_program(v: i64) -> String {
    format!(
        r#"
cir.func @main() -> !s32i {{
  %v = cir.const #cir.int<{v}> : !s32i
  cir.switch (%v : !s32i) {{
    cir.case (equal, [#cir.int<1> : !s32i]) {{
{m1}      cir.yield
    }}
    cir.case (anyof, [#cir.int<2> : !s32i, #cir.int<3> : !s32i]) {{
{m2}      cir.break
    }}
    cir.case (range, [#cir.int<10> : !s32i, #cir.int<20> : !s32i]) {{
{m10}      cir.break
    }}
    cir.case (default, []) {{
{m99}      cir.yield
    }}
    cir.yield
  }}
{m0}  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}}
"#,
        m1 = mark(1),
        m2 = mark(2),
        m10 = mark(10),
        m99 = mark(99),
        m0 = mark(0),
    )
}

#[test]
fn switch_cases_fallthrough_and_break() {
    let run = |v| calls(&run_text(&switch_program(v), &[], &[]));
    // case 1 falls through into case 2/3, which breaks.
    assert_eq!(
        run(1),
        vec!["call @mark(1)", "call @mark(2)", "call @mark(0)"]
    );
    assert_eq!(run(3), vec!["call @mark(2)", "call @mark(0)"]);
    assert_eq!(run(15), vec!["call @mark(10)", "call @mark(0)"]);
    assert_eq!(run(7), vec!["call @mark(99)", "call @mark(0)"]);
}

#[test]
fn ternary_yields_its_value() {
    let text = |c: &str| {
        format!(
            r#"
cir.func @main() -> !s32i {{
  %c = cir.const #{c}
  %r = cir.ternary(%c, true {{
    %a = cir.const #cir.int<10> : !s32i
    cir.yield %a : !s32i
  }}, false {{
    %b = cir.const #cir.int<20> : !s32i
    cir.yield %b : !s32i
  }}) : (!cir.bool) -> !s32i
  cir.return %r : !s32i
}}
"#
        )
    };
    assert_eq!(run_text(&text("true"), &[], &[]).exit_status, 10);
    assert_eq!(run_text(&text("false"), &[], &[]).exit_status, 20);
}

/// `return` from inside two cleanup scopes inside a loop: both cleanups run, innermost
/// first, before the function returns.
#[test]
fn return_runs_every_enclosing_cleanup() {
    let o = run_text(
        &format!(
            r#"
cir.func @main() -> !s32i {{
  cir.while {{
    %t = cir.const #true
    cir.condition(%t)
  }} do {{
    cir.cleanup.scope {{
      cir.cleanup.scope {{
        %v = cir.const #cir.int<3> : !s32i
        cir.return %v : !s32i
      }} cleanup normal {{
{m1}        cir.yield
      }}
      cir.yield
    }} cleanup all {{
{m2}      cir.yield
    }}
    cir.yield
  }}
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}}
"#,
            m1 = mark(1),
            m2 = mark(2)
        ),
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 3, "{:?}", o.runtime_error);
    assert_eq!(calls(&o), vec!["call @mark(1)", "call @mark(2)"]);
}

/// `cir.goto` to a label outside a cleanup scope runs the cleanup first.
#[test]
fn goto_out_of_a_cleanup_scope_runs_the_cleanup() {
    let o = run_text(
        &format!(
            r#"
cir.func @main() -> !s32i {{
  cir.cleanup.scope {{
    cir.goto "out"
  }} cleanup normal {{
{m1}    cir.yield
  }}
{m2}  cir.br ^bb1
^bb1:
  cir.label "out"
{m3}  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}}
"#,
            m1 = mark(1),
            m2 = mark(2),
            m3 = mark(3)
        ),
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(calls(&o), vec!["call @mark(1)", "call @mark(3)"]);
}

/// `while (true) { try { f(); } catch (...) { break; } }`: leaving the handler by
/// `break` ends the catch (the exception is destroyed) before the loop is left.
#[test]
fn break_out_of_a_handler_ends_the_catch() {
    let o = run_text(
        &format!(
            r#"
cir.func @main() -> !s32i {{
  cir.while {{
    %t = cir.const #true
    cir.condition(%t)
  }} do {{
    cir.try {{
      cir.call @f() : () -> ()
      cir.yield
    }} catch all {{
      %p = cir.catch_param : !cir.ptr<!void>
      cir.break
    }}
    cir.yield
  }}
{m1}  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}}
"#,
            m1 = mark(1)
        ),
        &["@f#3=int:1"],
        &[],
    );
    assert_eq!(o.exit_status, 0);
    assert_eq!(
        calls(&o),
        vec!["call @f()", "call @f()", "call @f()", "call @mark(1)"]
    );
    assert_in_order(
        &lines(&o),
        &[
            "catch int (exn#1) in handler ...",
            "destroy int (exn#1)",
            "call @mark(1)",
        ],
    );
}

/// An exception crosses two structured frames; each runs its own cleanup.
#[test]
fn unwinding_through_structured_callers() {
    let frame = |name: &str, callee: &str, n: i64| {
        format!(
            r#"
cir.func @{name}() {{
  cir.cleanup.scope {{
    cir.call @{callee}() : () -> ()
    cir.yield
  }} cleanup eh {{
{m}    cir.yield
  }}
  cir.return
}}
"#,
            m = mark(n)
        )
    };
    let text = format!(
        "{}{}{}",
        frame("a", "b", 1),
        frame("b", "c", 2),
        frame("c", "thrower", 3)
    );
    let o = run_with(&text, &["@thrower=int:5"], &[], |c| {
        c.entry = Some("a".into())
    });
    assert_eq!(o.exit_status, 1);
    assert_eq!(
        calls(&o),
        vec![
            "call @thrower()",
            "call @mark(3)",
            "call @mark(2)",
            "call @mark(1)"
        ]
    );
    assert_in_order(
        &lines(&o),
        &[
            "unwind @c",
            "unwind @b",
            "unwind @a",
            "escape int 5 (exn#1)",
        ],
    );
}

/// `cir.array.dtor` destroys the elements last to first.
#[test]
fn array_dtor_runs_in_reverse() {
    let o = run_text(
        r#"
!rec_S = !cir.record<struct "S" {!s32i}>
cir.func @main() -> !s32i {
  %a = cir.alloca !cir.array<!rec_S x 3>, !cir.ptr<!cir.array<!rec_S x 3>>, ["a"]
  cir.array.dtor(%a : !cir.ptr<!cir.array<!rec_S x 3>>) {
  ^bb0(%e: !cir.ptr<!rec_S>):
    cir.call @_ZN1SD1Ev(%e) : (!cir.ptr<!rec_S>) -> ()
    cir.yield
  }
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(
        calls(&o),
        vec![
            "call @_ZN1SD1Ev(&a+8)",
            "call @_ZN1SD1Ev(&a+4)",
            "call @_ZN1SD1Ev(&a+0)"
        ]
    );
}
