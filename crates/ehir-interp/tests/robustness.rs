//! The interpreter never panics: malformed IR built with the core API is refused before
//! the run (it does not verify), and every seed listing runs to a clean end under every single-throw
//! scenario (each undefined callee throwing at each of its calls, one at a time).

mod common;

use common::*;
use ehir_core::{FuncCursor, Function, Module, OpKind};
use ehir_interp::{Event, InterpError, RunConfig, run_module};

#[test]
fn malformed_ops_are_setup_errors() {
    let mut m = Module::new();
    let sig = m.ctx.types.func(vec![], None, false);
    let name = m.ctx.sym("main");
    let s32 = m.ctx.types.common().s32;
    let mut f = Function::new_definition(name, sig, &[]);
    let entry = f.entry_block().expect("entry block");
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    // A load without its pointer operand.
    cur.build(
        OpKind::Load {
            align: 0,
            volatile: false,
        },
        &[],
        &[s32],
        &[],
        0,
    );
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    match run_module(&m, &RunConfig::default()) {
        Err(err @ InterpError::InvalidInput(_)) => {
            let msg = err.to_string();
            assert!(msg.starts_with("input does not verify: "), "{msg}");
            assert!(msg.contains("cir.load"), "{msg}");
        }
        other => panic!("expected an invalid-input error, got {other:?}"),
    }
}

#[test]
fn a_block_without_terminator_is_refused() {
    let mut m = Module::new();
    let sig = m.ctx.types.func(vec![], None, false);
    let name = m.ctx.sym("main");
    let attr_ty = m.ctx.types.common().s32;
    let zero = m.ctx.attrs.intern(ehir_core::AttrData::Int {
        value: 0,
        ty: attr_ty,
    });
    let mut f = Function::new_definition(name, sig, &[]);
    let entry = f.entry_block().expect("entry block");
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    cur.build(OpKind::Const { value: zero }, &[], &[attr_ty], &[], 0);
    m.add_function(f);
    let err = run_module(&m, &RunConfig::default()).unwrap_err();
    assert!(matches!(err, InterpError::InvalidInput(_)), "{err:?}");
    assert!(
        err.to_string()
            .contains("does not end in a terminator ('cir.const' is not one)"),
        "{err}"
    );
}

fn all_listings() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["listings", "corrected"] {
        let path = tests_dir().join("seeds").join(dir);
        let mut entries: Vec<_> = std::fs::read_dir(&path)
            .expect("seed directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cir"))
            .collect();
        entries.sort();
        for p in entries {
            let text = std::fs::read_to_string(&p).expect("readable");
            out.push((p.display().to_string(), text));
        }
    }
    out
}

/// A program whose trace alone would exhaust the memory budget is stopped.
#[test]
fn the_trace_counts_against_the_memory_budget() {
    let o = run_with(
        "cir.func @main() -> !s32i {\n  cir.br ^bb1\n^bb1:\n  cir.call @f() : () -> ()\n  cir.br ^bb1\n}\n",
        &[],
        &[],
        |c| c.memory_limit = 1 << 20,
    );
    assert_eq!(o.exit_status, ehir_interp::EXIT_RUNTIME_ERROR);
    assert_eq!(
        o.runtime_error.unwrap().message,
        "memory budget of 1048576 bytes exceeded (by the event trace)"
    );
    assert!(o.peak_memory <= 1 << 20);
    assert!(o.trace.len() > 1000);
}

#[test]
fn every_listing_survives_every_single_throw() {
    let mut runs = 0;
    for (name, text) in all_listings() {
        let Ok(module) = ehir_reader::parse_module(&name, &text) else {
            continue; // defective listings are the parser's business
        };
        // Some listings loop forever when the undefined `get()` returns 0; a small step
        // budget ends them.
        let limited = RunConfig {
            step_limit: 20_000,
            ..RunConfig::default()
        };
        let Ok(base) = run_module(&module, &limited) else {
            continue; // fragments without a function
        };
        let callees: Vec<String> = base
            .trace
            .iter()
            .filter_map(|e| match e {
                Event::Call { callee, .. } => Some(callee.clone()),
                _ => None,
            })
            .take(30)
            .collect();
        for (n, callee) in callees.iter().enumerate() {
            let nth = callees[..=n].iter().filter(|c| *c == callee).count();
            for ty in ["int:1", "std::exception", "double:2"] {
                let o = run_with(&text, &[&format!("@{callee}#{nth}={ty}")], &[], |c| {
                    c.step_limit = 20_000
                });
                runs += 1;
                let stepped_out = o
                    .runtime_error
                    .as_ref()
                    .is_some_and(|e| e.message.starts_with("step budget"));
                assert!(
                    [0, 1, 134].contains(&o.exit_status) || stepped_out,
                    "{name} @{callee}#{nth}={ty}: status {} {:?}",
                    o.exit_status,
                    o.runtime_error
                );
                assert!(matches!(o.trace.last(), Some(Event::Exit { .. })));
                // Exactly one exception is thrown, and it either escapes, is caught, or
                // terminates the program.
                let l = lines(&o);
                assert_eq!(
                    l.iter().filter(|x| x.starts_with("throw ")).count(),
                    1,
                    "{name}"
                );
                let ends = l
                    .iter()
                    .filter(|x| {
                        x.starts_with("escape ")
                            || x.starts_with("catch ")
                            || x.starts_with("terminate")
                    })
                    .count();
                assert_eq!(ends, 1, "{name} @{callee}#{nth}={ty}:\n{}", l.join("\n"));
            }
        }
    }
    assert!(runs > 100, "only {runs} scenarios ran");
}
