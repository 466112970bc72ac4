//! The step and memory budgets, the call-depth limit, and programs whose recursion or
//! region nesting is far deeper than the host stack would allow if the interpreter
//! recursed.

mod common;

use common::*;
use ehir_interp::EXIT_RUNTIME_ERROR;

#[test]
fn step_budget_stops_an_infinite_loop() {
    let o = run_with(
        "cir.func @main() -> !s32i {\n  cir.br ^bb1\n^bb1:\n  cir.br ^bb1\n}\n",
        &[],
        &[],
        |c| c.step_limit = 10_000,
    );
    assert_eq!(o.exit_status, EXIT_RUNTIME_ERROR);
    assert_eq!(o.steps, 10_001);
    assert_eq!(
        o.runtime_error.unwrap().message,
        "step budget of 10000 exceeded"
    );
}

#[test]
fn memory_budget_stops_a_leak() {
    let o = run_with(
        r#"
cir.func @main() -> !s32i {
  %n = cir.const #cir.int<4096> : !u64i
  cir.br ^bb1
^bb1:
  %p = cir.call @malloc(%n) : (!u64i) -> !cir.ptr<!u8i>
  cir.br ^bb1
}
"#,
        &[],
        &[],
        |c| c.memory_limit = 1 << 20,
    );
    assert_eq!(o.exit_status, EXIT_RUNTIME_ERROR);
    assert_eq!(
        o.runtime_error.unwrap().message,
        "memory budget of 1048576 bytes exceeded"
    );
    assert!(o.peak_memory <= 1 << 20);
}

/// `int depth(int n) { A a; return n == 0 ? 0 : depth(n - 1) + 1; }` with a cleanup
/// per frame, 50,000 deep, then an exception thrown at the bottom unwinds all of them.
const RECURSION: &str = r#"
!rec_A = !cir.record<struct "A" {!s32i}>
cir.func @depth(%n: !s32i) -> !s32i {
  %a = cir.alloca !rec_A, !cir.ptr<!rec_A>, ["a", init]
  %r = cir.alloca !s32i, !cir.ptr<!s32i>, ["r"]
  cir.cleanup.scope {
    %z = cir.const #cir.int<0> : !s32i
    %done = cir.cmp(eq, %n, %z) : !s32i, !cir.bool
    cir.if %done {
      cir.call @bottom() : () -> ()
      cir.store %z, %r : !s32i, !cir.ptr<!s32i>
    } else {
      %one = cir.const #cir.int<1> : !s32i
      %m = cir.binop(sub, %n, %one) : !s32i
      %d = cir.call @depth(%m) : (!s32i) -> !s32i
      %e = cir.binop(add, %d, %one) : !s32i
      cir.store %e, %r : !s32i, !cir.ptr<!s32i>
    }
    cir.yield
  } cleanup eh {
    cir.call @unwound() : () -> ()
    cir.yield
  }
  %v = cir.load %r : !cir.ptr<!s32i>, !s32i
  cir.return %v : !s32i
}
cir.func @main() -> !s32i {
  %n = cir.const #cir.int<50000> : !s32i
  %d = cir.call @depth(%n) : (!s32i) -> !s32i
  %k = cir.const #cir.int<255> : !s32i
  %r = cir.binop(and, %d, %k) : !s32i
  cir.return %r : !s32i
}
"#;

#[test]
fn deep_recursion_does_not_use_the_host_stack() {
    let o = run_text(RECURSION, &[], &[]);
    assert_eq!(o.runtime_error, None);
    assert_eq!(o.exit_status, 50000 & 255);
    let o = run_text(RECURSION, &["@bottom=int:1"], &[]);
    // From `main` nothing catches: terminate before unwinding, no cleanup runs.
    assert_eq!(o.exit_status, 134);
    assert!(!calls(&o).contains(&"call @unwound()".to_string()));
}

#[test]
fn deep_unwinding_runs_every_frame_cleanup() {
    // Catch in main so that unwinding happens through all 50,001 frames.
    let text = RECURSION.replace(
        "  %d = cir.call @depth(%n) : (!s32i) -> !s32i\n  %k",
        "  %slot = cir.alloca !s32i, !cir.ptr<!s32i>, [\"slot\"]\n  cir.store %n, %slot : !s32i, !cir.ptr<!s32i>\n  cir.try {\n    %x = cir.call @depth(%n) : (!s32i) -> !s32i\n    cir.store %x, %slot : !s32i, !cir.ptr<!s32i>\n    cir.yield\n  } catch all {\n    %p = cir.catch_param : !cir.ptr<!void>\n    cir.yield\n  }\n  %d = cir.load %slot : !cir.ptr<!s32i>, !s32i\n  %k",
    );
    let o = run_text(&text, &["@bottom=int:1"], &[]);
    assert_eq!(o.runtime_error, None);
    assert_eq!(o.exit_status, 50000 & 255);
    assert_eq!(
        calls(&o).iter().filter(|c| *c == "call @unwound()").count(),
        50001
    );
}

#[test]
fn call_depth_limit_reports_stack_overflow() {
    let o = run_with(
        "cir.func @f() {\n  cir.call @f() : () -> ()\n  cir.return\n}\ncir.func @main() -> !s32i {\n  cir.call @f() : () -> ()\n  %z = cir.const #cir.int<0> : !s32i\n  cir.return %z : !s32i\n}\n",
        &[],
        &[],
        |c| c.call_depth_limit = 1000,
    );
    assert_eq!(o.exit_status, EXIT_RUNTIME_ERROR);
    assert_eq!(
        o.runtime_error.unwrap().message,
        "call depth limit of 1000 exceeded (stack overflow in the program)"
    );
}

/// 10,000 nested scopes, the innermost throwing through 10,000 nested cleanup scopes.
#[test]
fn ten_thousand_nested_regions() {
    let depth = 10_000;
    let mut text = String::from("cir.func @run() {\n");
    for i in 0..depth {
        text.push_str("cir.cleanup.scope {\n");
        let _ = i;
    }
    text.push_str("cir.call @f() : () -> ()\ncir.yield\n");
    for i in 0..depth {
        text.push_str(&format!(
            "}} cleanup all {{\n%c{i} = cir.const #cir.int<{i}> : !s32i\ncir.call @mark(%c{i}) : (!s32i) -> ()\ncir.yield\n}}\n"
        ));
        if i + 1 < depth {
            text.push_str("cir.yield\n");
        }
    }
    text.push_str("cir.return\n}\n");
    let o = run_text(&text, &[], &[]);
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    let c = calls(&o);
    assert_eq!(c.len(), depth + 1);
    assert_eq!(c[1], "call @mark(0)");
    assert_eq!(c[depth], format!("call @mark({})", depth - 1));
    let o = run_text(&text, &["@f=int:1"], &[]);
    assert_eq!(o.exit_status, 1);
    assert_eq!(calls(&o).len(), depth + 1);
}
