//! The misuse table: each entry misuses the builder one way and must end in a builder
//! error of the expected kind (observable at the failing call and returned by `finish`)
//! or, for misuse only the whole function can reveal, a verifier diagnostic. None may
//! panic, none may be silently accepted.

use ehir_builder::{
    BuildErrors, BuilderErrorKind, CatchKind, CleanupHandle, FunctionBuilder, ModuleBuilder,
};
use ehir_core::{BinaryOp, CallFlags, CleanupKind, CmpPredicate, Module, OpKind, Type};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a misuse must give.
#[derive(Copy, Clone, Debug)]
enum Expect {
    /// A builder error of this kind.
    Builder(BuilderErrorKind),
    /// The builder accepts the calls (each is fine alone); the verifier reports a
    /// diagnostic containing this text.
    Verifier(&'static str),
}

/// Common types.
#[derive(Copy, Clone)]
struct Types {
    s32: Type,
    s64: Type,
    bool_ty: Type,
    s32_ptr: Type,
    void_sig: Type,
    int_sig: Type,
    int_to_int: Type,
}

fn types(mb: &mut ModuleBuilder) -> Types {
    let ctx = mb.ctx();
    let common = *ctx.types.common();
    Types {
        s32: common.s32,
        s64: common.s64,
        bool_ty: common.bool,
        s32_ptr: ctx.types.ptr(common.s32),
        void_sig: ctx.types.func(vec![], None, false),
        int_sig: ctx.types.func(vec![], Some(common.s32), false),
        int_to_int: ctx.types.func(vec![common.s32], Some(common.s32), false),
    }
}

/// Runs a misusing call and checks that the error is observable right at it.
fn at_call<T>(b: &mut FunctionBuilder<'_>, call: impl FnOnce(&mut FunctionBuilder<'_>) -> T) {
    let before = b.errors().len();
    call(b);
    let _ = b.print_partial(); // the partly built function always prints
    assert!(
        b.errors().len() > before,
        "the misuse recorded no error at the call:\n{}",
        b.print_partial()
    );
    assert!(b.check().is_err(), "check() reports the error");
}

type Case = fn(&mut ModuleBuilder, Types) -> Result<(), BuildErrors>;

/// A value of function A whose index also exists in function B, used in B.
fn foreign_value_aliasing(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut a = mb.function("a", t.int_to_int, &[t.s32]);
    let one = a.const_int(t.s32, 1);
    let a_value = a.binop(BinaryOp::Add, a.params()[0], one);
    a.emit_return(Some(a_value));
    let a = a.suspend();
    let mut b = mb.function("b", t.int_to_int, &[t.s32]);
    let x = b.params()[0];
    let two = b.const_int(t.s32, 2);
    let _three = b.binop(BinaryOp::Add, x, two); // function B has values 0..=2 too
    assert_eq!(a_value.raw().map(|v| v.as_u32()), Some(2));
    at_call(&mut b, |b| b.binop(BinaryOp::Mul, x, a_value));
    b.emit_return(Some(x));
    let result = b.define().map(|_| ());
    mb.resume(a).define().expect("a is fine");
    result
}

/// A value of another function whose index does not exist here.
fn foreign_value_out_of_range(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut a = mb.function("a", t.void_sig, &[]);
    let mut last = a.const_int(t.s32, 0);
    for _ in 0..20 {
        last = a.const_int(t.s32, 7);
    }
    let a = a.suspend();
    let mut b = mb.function("b", t.int_sig, &[]);
    at_call(&mut b, |b| b.emit_return(Some(last)));
    let zero = b.const_int(t.s32, 0);
    b.emit_return(Some(zero));
    drop(a);
    b.define().map(|_| ())
}

/// A block of another function given to `add_block_param`.
fn foreign_block(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let a = mb.function("a", t.void_sig, &[]);
    let a_block = a.current_block();
    let a = a.suspend();
    let mut b = mb.function("b", t.void_sig, &[]);
    at_call(&mut b, |b| b.add_block_param(a_block, t.s32));
    drop(a);
    b.define().map(|_| ())
}

/// An op of another function given to `enter_region`.
fn foreign_op(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut a = mb.function("a", t.void_sig, &[]);
    let scope = a.enter_scope();
    a.exit_scope();
    let a = a.suspend();
    let mut b = mb.function("b", t.void_sig, &[]);
    at_call(&mut b, |b| b.enter_region(scope, 0, true));
    drop(a);
    b.define().map(|_| ())
}

/// A cleanup handle of another function given to `deactivate_cleanup`.
fn foreign_cleanup_handle(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut a = mb.function("a", t.void_sig, &[]);
    let handle: CleanupHandle = a.push_cleanup(CleanupKind::All, |_| {});
    a.pop_cleanup();
    let a = a.suspend();
    let mut b = mb.function("b", t.void_sig, &[]);
    at_call(&mut b, |b| b.deactivate_cleanup(handle));
    drop(a);
    b.define().map(|_| ())
}

fn load_from_non_pointer(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let x = b.const_int(t.s32, 1);
    at_call(&mut b, |b| b.load(x, 4));
    b.define().map(|_| ())
}

fn store_of_the_wrong_type(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let slot = b.alloca(t.s32, "x", false, 4);
    let wide = b.const_int(t.s64, 1);
    at_call(&mut b, |b| b.store(wide, slot, 8));
    b.define().map(|_| ())
}

fn binop_of_mixed_types(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let x = b.const_int(t.s32, 1);
    let y = b.const_int(t.s64, 2);
    at_call(&mut b, |b| b.binop(BinaryOp::Add, x, y));
    b.define().map(|_| ())
}

fn if_on_an_integer(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let x = b.const_int(t.s32, 1);
    at_call(&mut b, |b| b.begin_if(x, false));
    b.end_if(); // still balanced: the if was built on `false`
    b.define().map(|_| ())
}

fn call_with_too_few_arguments(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| {
        b.call_named("g", t.int_to_int, &[], CallFlags::default())
    });
    b.define().map(|_| ())
}

fn call_with_an_argument_of_the_wrong_type(
    mb: &mut ModuleBuilder,
    t: Types,
) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let flag = b.const_bool(true);
    at_call(&mut b, |b| {
        b.call_named("g", t.int_to_int, &[flag], CallFlags::default())
    });
    b.define().map(|_| ())
}

fn callee_declared_with_two_signatures(
    mb: &mut ModuleBuilder,
    t: Types,
) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    b.call_named("g", t.void_sig, &[], CallFlags::default());
    at_call(&mut b, |b| {
        b.call_named("g", t.int_sig, &[], CallFlags::default())
    });
    b.define().map(|_| ())
}

fn call_with_a_non_function_signature(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let g = b.ctx.sym("g");
    at_call(&mut b, |b| b.call(g, t.s32, &[], CallFlags::default()));
    b.define().map(|_| ())
}

fn pop_cleanup_without_a_cleanup(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| b.pop_cleanup());
    b.define().map(|_| ())
}

fn exit_region_without_a_region(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| b.exit_scope());
    b.define().map(|_| ())
}

fn exit_try_without_a_try(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| b.exit_try());
    b.define().map(|_| ())
}

fn catch_outside_a_try(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| b.emit_catch(CatchKind::All, t.s32_ptr));
    b.define().map(|_| ())
}

fn break_outside_a_loop(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| b.emit_break());
    b.define().map(|_| ())
}

fn continue_in_a_loop_condition(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let lp = b.begin_while();
    at_call(&mut b, |b| b.emit_continue());
    let no = b.const_bool(false);
    lp.condition(&mut b, no);
    lp.end_body(&mut b);
    b.define().map(|_| ())
}

fn loop_body_ended_from_an_inner_scope(
    mb: &mut ModuleBuilder,
    t: Types,
) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let lp = b.begin_do_while();
    b.enter_scope();
    at_call(&mut b, |b| lp.end_body(b));
    b.exit_scope();
    lp.end_body(&mut b);
    let no = b.const_bool(false);
    lp.condition(&mut b, no);
    b.define().map(|_| ())
}

fn scope_left_open(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    b.enter_scope();
    b.define().map(|_| ())
}

fn end_conditional_without_begin(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    at_call(&mut b, |b| b.end_conditional());
    b.define().map(|_| ())
}

fn int_function_falls_off_its_end(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.int_to_int, &[t.s32]);
    let x = b.params()[0];
    let zero = b.const_int(t.s32, 0);
    let negative = b.cmp(CmpPredicate::Lt, x, zero);
    b.begin_if(negative, false);
    b.emit_return(Some(zero));
    b.end_if();
    b.define().map(|_| ()) // no return after the if
}

fn return_without_a_value_from_an_int_function(
    mb: &mut ModuleBuilder,
    t: Types,
) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.int_sig, &[]);
    at_call(&mut b, |b| b.emit_return(None));
    b.define().map(|_| ())
}

fn return_of_the_wrong_type(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.int_sig, &[]);
    let wide = b.const_int(t.s64, 0);
    at_call(&mut b, |b| b.emit_return(Some(wide)));
    b.define().map(|_| ())
}

fn region_index_out_of_range(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let scope = b.enter_scope();
    b.exit_scope();
    at_call(&mut b, |b| b.enter_region(scope, 3, false));
    b.define().map(|_| ())
}

fn entry_params_differ_from_the_signature(
    mb: &mut ModuleBuilder,
    t: Types,
) -> Result<(), BuildErrors> {
    let b = mb.function("f", t.int_to_int, &[t.bool_ty]);
    b.define().map(|_| ())
}

fn define_on_a_standalone_builder(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let b = FunctionBuilder::new(mb.ctx(), "f", t.void_sig, &[]);
    b.define().map(|_| ())
}

fn cleanup_emitter_fails(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let mut notes: Vec<String> = Vec::new();
    let pushed = b.push_cleanup_with(
        CleanupKind::All,
        &mut notes,
        |b, notes| -> Result<(), ehir_builder::BuilderError> {
            notes.push("tried".into());
            let x = b.const_int(t.s32, 1);
            b.load(x, 4); // a builder error inside the emitter...
            b.check()?; // ...propagated by the front end
            Ok(())
        },
    );
    assert!(pushed.is_err() && notes == ["tried"]);
    assert!(!b.has_cleanups_in_scope(), "nothing was pushed");
    b.define().map(|_| ())
}

/// A typeinfo symbol of another module (an index this module never interned).
fn symbol_of_another_module(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut other = ehir_core::ModuleCtx::default();
    for i in 0..100 {
        other.sym(&format!("filler{i}"));
    }
    let foreign_typeinfo = other.sym("_ZTI3Foo");
    let mut b = mb.function("f", t.void_sig, &[]);
    let storage = b.alloc_exception(t.s32, 4);
    at_call(&mut b, |b| b.emit_throw(storage, foreign_typeinfo, None));
    b.define().map(|_| ())
}

/// A value defined inside a scope used after it: each call is fine alone, the verifier
/// sees that the definition does not dominate the use.
fn value_used_outside_its_scope(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.int_sig, &[]);
    b.enter_scope();
    let inner = b.const_int(t.s32, 5);
    b.exit_scope();
    b.emit_return(Some(inner));
    b.define().map(|_| ())
}

/// `cir.condition` in the function body instead of a loop's condition region.
fn condition_outside_a_loop(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let yes = b.const_bool(true);
    b.emit_condition(yes);
    b.define().map(|_| ())
}

/// A generic op built with the wrong number of regions.
fn region_op_with_the_wrong_region_count(
    mb: &mut ModuleBuilder,
    t: Types,
) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    let flag = b.const_bool(true);
    let op = b.create_region_op(OpKind::Ternary, &[flag], &[t.s32], 1);
    b.enter_region(op, 0, false);
    let one = b.const_int(t.s32, 1);
    b.exit_region_yielding(&[one]);
    b.define().map(|_| ())
}

/// `goto` a label that is never defined.
fn goto_an_undefined_label(mb: &mut ModuleBuilder, t: Types) -> Result<(), BuildErrors> {
    let mut b = mb.function("f", t.void_sig, &[]);
    b.emit_goto("nowhere");
    b.define().map(|_| ())
}

const TABLE: &[(&str, Expect, Case)] = &[
    (
        "foreign value whose index exists (aliasing)",
        Expect::Builder(BuilderErrorKind::ForeignEntity),
        foreign_value_aliasing,
    ),
    (
        "foreign value out of this function's range",
        Expect::Builder(BuilderErrorKind::ForeignEntity),
        foreign_value_out_of_range,
    ),
    (
        "foreign block",
        Expect::Builder(BuilderErrorKind::ForeignEntity),
        foreign_block,
    ),
    (
        "foreign op",
        Expect::Builder(BuilderErrorKind::ForeignEntity),
        foreign_op,
    ),
    (
        "foreign cleanup handle",
        Expect::Builder(BuilderErrorKind::ForeignEntity),
        foreign_cleanup_handle,
    ),
    (
        "load from a non-pointer",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        load_from_non_pointer,
    ),
    (
        "store of the wrong type",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        store_of_the_wrong_type,
    ),
    (
        "binop of mixed types",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        binop_of_mixed_types,
    ),
    (
        "if on an integer",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        if_on_an_integer,
    ),
    (
        "call with too few arguments",
        Expect::Builder(BuilderErrorKind::SignatureMismatch),
        call_with_too_few_arguments,
    ),
    (
        "call with an argument of the wrong type",
        Expect::Builder(BuilderErrorKind::SignatureMismatch),
        call_with_an_argument_of_the_wrong_type,
    ),
    (
        "callee declared with two signatures",
        Expect::Builder(BuilderErrorKind::SignatureMismatch),
        callee_declared_with_two_signatures,
    ),
    (
        "call with a non-function signature",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        call_with_a_non_function_signature,
    ),
    (
        "pop_cleanup without a cleanup",
        Expect::Builder(BuilderErrorKind::Unbalanced),
        pop_cleanup_without_a_cleanup,
    ),
    (
        "exit_scope without a scope",
        Expect::Builder(BuilderErrorKind::Unbalanced),
        exit_region_without_a_region,
    ),
    (
        "exit_try without a try",
        Expect::Builder(BuilderErrorKind::Unbalanced),
        exit_try_without_a_try,
    ),
    (
        "catch outside a try",
        Expect::Builder(BuilderErrorKind::Misplaced),
        catch_outside_a_try,
    ),
    (
        "break outside a loop",
        Expect::Builder(BuilderErrorKind::Misplaced),
        break_outside_a_loop,
    ),
    (
        "continue in a loop condition",
        Expect::Builder(BuilderErrorKind::Misplaced),
        continue_in_a_loop_condition,
    ),
    (
        "loop body ended from an inner scope",
        Expect::Builder(BuilderErrorKind::Unbalanced),
        loop_body_ended_from_an_inner_scope,
    ),
    (
        "scope left open at finish",
        Expect::Builder(BuilderErrorKind::Unbalanced),
        scope_left_open,
    ),
    (
        "end_conditional without begin_conditional",
        Expect::Builder(BuilderErrorKind::Unbalanced),
        end_conditional_without_begin,
    ),
    (
        "int function falls off its end",
        Expect::Builder(BuilderErrorKind::MissingReturn),
        int_function_falls_off_its_end,
    ),
    (
        "return without a value from an int function",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        return_without_a_value_from_an_int_function,
    ),
    (
        "return of the wrong type",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        return_of_the_wrong_type,
    ),
    (
        "region index out of range",
        Expect::Builder(BuilderErrorKind::InvalidEntity),
        region_index_out_of_range,
    ),
    (
        "entry parameters differ from the signature",
        Expect::Builder(BuilderErrorKind::SignatureMismatch),
        entry_params_differ_from_the_signature,
    ),
    (
        "define on a builder without a module",
        Expect::Builder(BuilderErrorKind::Misplaced),
        define_on_a_standalone_builder,
    ),
    (
        "cleanup emitter fails",
        Expect::Builder(BuilderErrorKind::TypeMismatch),
        cleanup_emitter_fails,
    ),
    (
        "symbol of another module",
        Expect::Builder(BuilderErrorKind::InvalidEntity),
        symbol_of_another_module,
    ),
    (
        "value used outside its scope",
        Expect::Verifier("does not enclose this use"),
        value_used_outside_its_scope,
    ),
    (
        "condition outside a loop",
        Expect::Verifier("cir.condition"),
        condition_outside_a_loop,
    ),
    (
        "region op with the wrong region count",
        Expect::Verifier("region"),
        region_op_with_the_wrong_region_count,
    ),
    (
        "goto an undefined label",
        Expect::Verifier("nowhere"),
        goto_an_undefined_label,
    ),
];

/// Runs one case: its builder result and, when the builder accepted everything, the
/// verifier's diagnostics.
fn run(case: Case) -> (Result<(), BuildErrors>, Option<Module>) {
    let mut mb = ModuleBuilder::new();
    let t = types(&mut mb);
    let result = case(&mut mb, t);
    let module = match &result {
        Ok(()) => Some(mb.finish().expect("module")),
        Err(_) => None,
    };
    (result, module)
}

#[test]
fn every_misuse_is_caught_without_a_panic() {
    assert!(TABLE.len() >= 20);
    let mut failures = Vec::new();
    for &(name, expect, case) in TABLE {
        let outcome = catch_unwind(AssertUnwindSafe(|| run(case)));
        let Ok((result, module)) = outcome else {
            failures.push(format!("{name}: panicked"));
            continue;
        };
        match (expect, result, module) {
            (Expect::Builder(kind), Err(errors), _) => {
                if !errors.has(kind) {
                    failures.push(format!("{name}: expected a {kind} error, got: {errors}"));
                }
                for error in &errors.errors {
                    assert!(!error.message.is_empty());
                }
            }
            (Expect::Builder(kind), Ok(()), _) => {
                failures.push(format!(
                    "{name}: expected a {kind} error, the builder accepted it"
                ));
            }
            (Expect::Verifier(text), Ok(()), Some(module)) => {
                match ehir_core::verifier::verify_module(&module) {
                    Ok(()) => failures.push(format!(
                        "{name}: silently accepted:\n{}",
                        ehir_core::printer::module_to_string(&module)
                    )),
                    Err(diagnostics) => {
                        let all: Vec<String> =
                            diagnostics.0.iter().map(|d| d.message.clone()).collect();
                        if !all.iter().any(|m| m.contains(text)) {
                            failures.push(format!(
                                "{name}: expected a diagnostic with '{text}', got {all:?}"
                            ));
                        }
                    }
                }
            }
            (Expect::Verifier(_), result, _) => {
                failures.push(format!(
                    "{name}: expected the verifier to catch it, the builder said {result:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn finish_returns_every_error_not_only_the_first() {
    let mut mb = ModuleBuilder::new();
    let t = types(&mut mb);
    let mut b = mb.function("f", t.int_sig, &[]);
    b.set_loc(ehir_core::Loc(10));
    b.pop_cleanup();
    b.set_loc(ehir_core::Loc(20));
    b.emit_break();
    let errors = b.define().unwrap_err();
    let kinds: Vec<_> = errors.errors.iter().map(|e| (e.kind, e.loc)).collect();
    assert_eq!(
        kinds,
        [
            (BuilderErrorKind::Unbalanced, ehir_core::Loc(10)),
            (BuilderErrorKind::Misplaced, ehir_core::Loc(20)),
            (BuilderErrorKind::MissingReturn, ehir_core::Loc(20)),
        ]
    );
}

#[test]
fn poison_does_not_cascade_and_the_partial_function_prints() {
    let mut mb = ModuleBuilder::new();
    let t = types(&mut mb);
    let mut b = mb.function("f", t.void_sig, &[]);
    let x = b.const_int(t.s32, 1);
    let bad = b.load(x, 4); // one error
    let sum = b.binop(BinaryOp::Add, bad, bad); // poison in, poison out, no new error
    b.store(sum, bad, 4);
    assert!(sum.is_poison());
    assert_eq!(b.errors().len(), 1);
    let text = b.print_partial();
    assert!(text.contains("cir.const #cir.int<1> : !s32i"), "{text}");
    assert_eq!(b.define().unwrap_err().errors.len(), 1);
}
