//! Interpreter speed in steps (executed ops) per second, on a structured loop, the same
//! loop flattened, a recursive function (calls and returns), and a loop that throws and
//! catches an exception per iteration.
//!
//! Run: `cargo bench -p ehir-interp --bench steps` (release profile). Prints one line
//! per program: steps, and the best of 5 runs in CPU time of the running thread (from
//! `/proc/thread-self/schedstat`, so that other load on the machine does not count) and
//! in wall-clock time, each with steps per second.

use ehir_interp::{RunConfig, run_module};
use std::time::Instant;

/// `int main() { int s = 0; for (int i = 0; i < N; ++i) s += i & 7; return s & 0x7f; }`
const STRUCTURED_LOOP: &str = r#"
cir.func @main() -> !s32i {
  %s = cir.alloca !s32i, !cir.ptr<!s32i>, ["s", init]
  %i = cir.alloca !s32i, !cir.ptr<!s32i>, ["i", init]
  %z = cir.const #cir.int<0> : !s32i
  cir.store %z, %s : !s32i, !cir.ptr<!s32i>
  cir.store %z, %i : !s32i, !cir.ptr<!s32i>
  cir.for : cond {
    %0 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %n = cir.const #cir.int<N> : !s32i
    %1 = cir.cmp(lt, %0, %n) : !s32i, !cir.bool
    cir.condition(%1)
  } body {
    %2 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %m = cir.const #cir.int<7> : !s32i
    %3 = cir.binop(and, %2, %m) : !s32i
    %4 = cir.load %s : !cir.ptr<!s32i>, !s32i
    %5 = cir.binop(add, %4, %3) : !s32i
    cir.store %5, %s : !s32i, !cir.ptr<!s32i>
    cir.yield
  } step {
    %6 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %7 = cir.unary(inc, %6) : !s32i, !s32i
    cir.store %7, %i : !s32i, !cir.ptr<!s32i>
    cir.yield
  }
  %8 = cir.load %s : !cir.ptr<!s32i>, !s32i
  %k = cir.const #cir.int<127> : !s32i
  %9 = cir.binop(and, %8, %k) : !s32i
  cir.return %9 : !s32i
}
"#;

/// The same loop in flat form.
const FLAT_LOOP: &str = r#"
cir.func @main() -> !s32i phase(flat) {
  %s = cir.alloca !s32i, !cir.ptr<!s32i>, ["s", init]
  %i = cir.alloca !s32i, !cir.ptr<!s32i>, ["i", init]
  %z = cir.const #cir.int<0> : !s32i
  cir.store %z, %s : !s32i, !cir.ptr<!s32i>
  cir.store %z, %i : !s32i, !cir.ptr<!s32i>
  cir.br ^bb1
^bb1:
  %0 = cir.load %i : !cir.ptr<!s32i>, !s32i
  %n = cir.const #cir.int<N> : !s32i
  %1 = cir.cmp(lt, %0, %n) : !s32i, !cir.bool
  cir.brcond %1 ^bb2, ^bb3
^bb2:
  %2 = cir.load %i : !cir.ptr<!s32i>, !s32i
  %m = cir.const #cir.int<7> : !s32i
  %3 = cir.binop(and, %2, %m) : !s32i
  %4 = cir.load %s : !cir.ptr<!s32i>, !s32i
  %5 = cir.binop(add, %4, %3) : !s32i
  cir.store %5, %s : !s32i, !cir.ptr<!s32i>
  %7 = cir.unary(inc, %2) : !s32i, !s32i
  cir.store %7, %i : !s32i, !cir.ptr<!s32i>
  cir.br ^bb1
^bb3:
  %8 = cir.load %s : !cir.ptr<!s32i>, !s32i
  %k = cir.const #cir.int<127> : !s32i
  %9 = cir.binop(and, %8, %k) : !s32i
  cir.return %9 : !s32i
}
"#;

/// `int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }`
const RECURSION: &str = r#"
cir.func @fib(%n: !s32i) -> !s32i phase(flat) {
  %two = cir.const #cir.int<2> : !s32i
  %c = cir.cmp(lt, %n, %two) : !s32i, !cir.bool
  cir.brcond %c ^bb1, ^bb2
^bb1:
  cir.return %n : !s32i
^bb2:
  %one = cir.const #cir.int<1> : !s32i
  %a = cir.binop(sub, %n, %one) : !s32i
  %fa = cir.call @fib(%a) : (!s32i) -> !s32i
  %b = cir.binop(sub, %n, %two) : !s32i
  %fb = cir.call @fib(%b) : (!s32i) -> !s32i
  %r = cir.binop(add, %fa, %fb) : !s32i
  cir.return %r : !s32i
}
cir.func @main() -> !s32i phase(flat) {
  %n = cir.const #cir.int<N> : !s32i
  %r = cir.call @fib(%n) : (!s32i) -> !s32i
  %k = cir.const #cir.int<127> : !s32i
  %m = cir.binop(and, %r, %k) : !s32i
  cir.return %m : !s32i
}
"#;

/// `for (i = 0; i < N; ++i) try { throw i; } catch (int) {}` in structured form.
const THROW_LOOP: &str = r#"
cir.func @main() -> !s32i {
  %i = cir.alloca !s32i, !cir.ptr<!s32i>, ["i", init]
  %z = cir.const #cir.int<0> : !s32i
  cir.store %z, %i : !s32i, !cir.ptr<!s32i>
  cir.while {
    %0 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %n = cir.const #cir.int<N> : !s32i
    %1 = cir.cmp(lt, %0, %n) : !s32i, !cir.bool
    cir.condition(%1)
  } do {
    cir.try {
      %e = cir.alloc.exception 4 -> !cir.ptr<!s32i>
      %v = cir.load %i : !cir.ptr<!s32i>, !s32i
      cir.store %v, %e : !s32i, !cir.ptr<!s32i>
      cir.throw %e : !cir.ptr<!s32i>, @_ZTIi
    } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
      %p = cir.catch_param : !cir.ptr<!s32i>
      cir.yield
    }
    %2 = cir.load %i : !cir.ptr<!s32i>, !s32i
    %3 = cir.unary(inc, %2) : !s32i, !s32i
    cir.store %3, %i : !s32i, !cir.ptr<!s32i>
    cir.yield
  }
  %r = cir.const #cir.int<0> : !s32i
  cir.return %r : !s32i
}
"#;

/// CPU time of the calling thread in seconds, when Linux tells it.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn measure(name: &str, template: &str, n: u64) {
    let text = template.replace("#cir.int<N>", &format!("#cir.int<{n}>"));
    let module = match ehir_reader::parse_module(name, &text) {
        Ok(m) => m,
        Err(d) => {
            eprintln!("{name}: does not parse: {d:?}");
            std::process::exit(1);
        }
    };
    let config = RunConfig {
        record_trace: false,
        step_limit: u64::MAX,
        ..RunConfig::default()
    };
    let mut best_wall = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut steps = 0;
    for _ in 0..5 {
        let cpu0 = thread_cpu_seconds();
        let start = Instant::now();
        let outcome = run_module(&module, &config).expect("runs");
        let wall = start.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (cpu0, thread_cpu_seconds()) {
            best_cpu = best_cpu.min(b - a);
        }
        if let Some(e) = &outcome.runtime_error {
            eprintln!("{name}: runtime error: {e}");
            std::process::exit(1);
        }
        steps = outcome.steps;
        best_wall = best_wall.min(wall);
    }
    if best_cpu == f64::MAX {
        best_cpu = f64::NAN;
    }
    // The scheduler's accounting is updated at ticks: too short a run has no
    // meaningful CPU time.
    let rate = |secs: f64| {
        if secs >= 0.01 {
            format!("{:>6.1} M steps/s", steps as f64 / secs / 1e6)
        } else {
            format!("{:>16}", "n/a")
        }
    };
    println!(
        "{name:<18} {steps:>10} steps  cpu {best_cpu:>7.3} s {}  wall {best_wall:>7.3} s {}",
        rate(best_cpu),
        rate(best_wall)
    );
}

fn main() {
    // `cargo test` runs benches in test mode with `--bench` absent: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let scale = if quick { 1 } else { 100 };
    measure("structured loop", STRUCTURED_LOOP, 20_000 * scale);
    measure("flat loop", FLAT_LOOP, 20_000 * scale);
    measure("recursion (fib)", RECURSION, if quick { 12 } else { 27 });
    measure("throw/catch loop", THROW_LOOP, 1_000 * scale);
}
