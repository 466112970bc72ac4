//! The loop helpers: `while`, `do`/`while` and `for` with `break`, `continue` and a
//! cleanup in the body, run by the interpreter at every phase.

use ehir_builder::{FunctionBuilder, ModuleBuilder, Value};
use ehir_core::{BinaryOp, CallFlags, CleanupKind, CmpPredicate, Phase, Type};

/// `printf("%d\n", value)`.
fn print(b: &mut FunctionBuilder<'_>, value: Value) {
    let format = b.string_literal(b"%d\n");
    let s8_ptr = b.value_type(format);
    let s32 = b.ctx.types.common().s32;
    let sig = b.ctx.types.func(vec![s8_ptr], Some(s32), true);
    let flags = CallFlags {
        nothrow: true,
        exception: false,
        noreturn: false,
    };
    b.call_named("printf", sig, &[format, value], flags);
}

/// `i < limit` on the variable `i`.
fn below(b: &mut FunctionBuilder<'_>, i: Value, limit: i128) -> Value {
    let s32 = b.ctx.types.common().s32;
    let current = b.load(i, 4);
    let limit = b.const_int(s32, limit);
    b.cmp(CmpPredicate::Lt, current, limit)
}

/// `i = i + 1`.
fn increment(b: &mut FunctionBuilder<'_>, i: Value) {
    let s32 = b.ctx.types.common().s32;
    let current = b.load(i, 4);
    let one = b.const_int(s32, 1);
    let next = b.binop(BinaryOp::Add, current, one);
    b.store(next, i, 4);
}

/// `if (i == at) { break or continue }`.
fn exit_if(b: &mut FunctionBuilder<'_>, i: Value, at: i128, is_break: bool) {
    let s32 = b.ctx.types.common().s32;
    let current = b.load(i, 4);
    let at = b.const_int(s32, at);
    let hit = b.cmp(CmpPredicate::Eq, current, at);
    b.begin_if(hit, false);
    if is_break {
        b.emit_break();
    } else {
        b.emit_continue();
    }
    b.end_if();
}

/// A body with a cleanup printing `marker + i`, a `continue` at 1 and a `break` at 3.
fn body(b: &mut FunctionBuilder<'_>, i: Value, marker: i128) {
    let s32 = b.ctx.types.common().s32;
    b.push_cleanup(CleanupKind::All, move |b| {
        let current = b.load(i, 4);
        let marker = b.const_int(s32, marker);
        let shown = b.binop(BinaryOp::Add, current, marker);
        print(b, shown);
    });
    exit_if(b, i, 1, false);
    exit_if(b, i, 3, true);
    let current = b.load(i, 4);
    print(b, current);
}

#[test]
fn while_do_and_for_loops_run_at_every_phase() {
    let mut mb = ModuleBuilder::new();
    let s32: Type = mb.ctx().types.common().s32;
    let sig = mb.ctx().types.func(vec![], Some(s32), false);
    let mut b = mb.function("main", sig, &[]);
    let i = b.alloca(s32, "i", true, 4);
    let zero = b.const_int(s32, 0);

    // while (i < 5) { defer print(100 + i); if (i == 1) { i++; continue; } if (i == 3) break; print(i); i++; }
    b.store(zero, i, 4);
    let lp = b.begin_while();
    let more = below(&mut b, i, 5);
    lp.condition(&mut b, more);
    b.push_cleanup(CleanupKind::All, move |b| increment(b, i));
    body(&mut b, i, 100);
    lp.end_body(&mut b);

    // do { ... } while (i < 5), the same body, markers 200.
    b.store(zero, i, 4);
    let lp = b.begin_do_while();
    b.push_cleanup(CleanupKind::All, move |b| increment(b, i));
    body(&mut b, i, 200);
    lp.end_body(&mut b);
    let more = below(&mut b, i, 5);
    lp.condition(&mut b, more);

    // for (i = 0; i < 5; i++) { ... }, markers 300.
    b.store(zero, i, 4);
    let lp = b.begin_for();
    let more = below(&mut b, i, 5);
    lp.condition(&mut b, more);
    body(&mut b, i, 300);
    lp.end_body(&mut b);
    increment(&mut b, i);
    lp.end_step(&mut b);

    let result = b.load(i, 4);
    b.emit_return(Some(result));
    b.define().expect("builds");
    let module = mb.finish().expect("module");
    ehir_core::verifier::verify_module(&module).expect("verifies");

    // while: i=0 prints 0, cleanups print 100 and increment; i=1 continues (101); i=2
    // prints 2 (102); i=3 breaks (103, and i becomes 4). do/while: the same (200s).
    // for: the step increments only after a normal iteration or continue: i=0 prints 0
    // (300), i=1 continues (301), i=2 (302), i=3 breaks (303); i stays 3.
    let expected = "0\n100\n101\n2\n102\n103\n0\n200\n201\n2\n202\n203\n0\n300\n301\n2\n302\n303\n";
    for phase in [Phase::Structured, Phase::Flat, Phase::Itanium, Phase::Msvc] {
        let mut lowered = module.clone();
        if phase != Phase::Structured {
            ehir_passes::lower_to(&mut lowered, phase).expect("lowers");
        }
        let outcome =
            ehir_interp::run_module(&lowered, &ehir_interp::RunConfig::default()).expect("runs");
        assert_eq!(outcome.runtime_error.map(|e| e.message), None);
        assert_eq!(
            String::from_utf8_lossy(&outcome.stdout),
            expected,
            "{phase:?}"
        );
        assert_eq!(outcome.exit_status, 3, "{phase:?}");
    }
}
