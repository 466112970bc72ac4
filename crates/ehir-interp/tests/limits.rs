//! The step and memory budgets (with the step count and peak memory, which the CLI does
//! not show), the call-depth limit (no CLI flag), and region nesting far deeper than the
//! host stack would allow if the interpreter recursed (a generated program). Deep
//! recursion and unwinding are file tests (`tests/filetests/interp/deep-*.cir`).

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
