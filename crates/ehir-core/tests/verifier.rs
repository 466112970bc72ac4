//! Builder-based tests of the verifier: for every rule family, IR that breaks the rule is
//! rejected with the expected message and the valid counterpart verifies.

use ehir_core::verifier::{verify_function, verify_module};
use ehir_core::*;

// ---- helpers ----------------------------------------------------------------------------

fn t(m: &Module) -> CommonTypes {
    *m.ctx.types.common()
}

fn define(
    m: &mut Module,
    name: &str,
    params: &[Type],
    ret: Option<Type>,
    phase: Phase,
) -> Function {
    let sym = m.ctx.sym(name);
    let sig = m.ctx.types.func(params.to_vec(), ret, false);
    let mut f = Function::new_definition(sym, sig, params);
    f.phase = phase;
    f
}

fn declare(m: &mut Module, name: &str, params: &[Type], ret: Option<Type>) -> (Symbol, Type) {
    declare_full(m, name, params, ret, false)
}

fn declare_full(
    m: &mut Module,
    name: &str,
    params: &[Type],
    ret: Option<Type>,
    vararg: bool,
) -> (Symbol, Type) {
    let sym = m.ctx.sym(name);
    let sig = m.ctx.types.func(params.to_vec(), ret, vararg);
    m.add_function(Function::new_declaration(sym, sig));
    (sym, sig)
}

fn call(callee: (Symbol, Type)) -> OpKind {
    OpKind::Call {
        callee: callee.0.into(),
        sig: callee.1,
        flags: CallFlags::default(),
    }
}

fn nothrow_call(callee: (Symbol, Type)) -> OpKind {
    OpKind::Call {
        callee: callee.0.into(),
        sig: callee.1,
        flags: CallFlags {
            nothrow: true,
            exception: false,
            noreturn: false,
        },
    }
}

fn try_call(callee: (Symbol, Type)) -> OpKind {
    OpKind::TryCall {
        callee: callee.0.into(),
        sig: callee.1,
        flags: CallFlags::default(),
    }
}

fn int_const(m: &mut Module, value: i128, ty: Type) -> OpKind {
    OpKind::Const {
        value: m.ctx.attrs.intern(AttrData::Int { value, ty }),
    }
}

fn bool_const(m: &mut Module, value: bool) -> OpKind {
    OpKind::Const {
        value: m.ctx.attrs.intern(AttrData::Bool(value)),
    }
}

fn alloca(m: &mut Module, ty: Type) -> OpKind {
    OpKind::Alloca {
        alloc_ty: ty,
        name: m.ctx.sym("x"),
        init: false,
        align: 0,
        dest_slot: false,
    }
}

fn typeinfo(m: &mut Module, name: &str) -> Attr {
    let symbol = m.ctx.sym(name);
    m.ctx.attrs.intern(AttrData::GlobalView {
        symbol,
        indices: Vec::new(),
        ty: None,
    })
}

fn messages(m: &Module) -> Vec<String> {
    match verify_module(m) {
        Ok(()) => Vec::new(),
        Err(d) => d.0.into_iter().map(|d| d.message).collect(),
    }
}

#[track_caller]
fn assert_ok(m: &Module) {
    let e = messages(m);
    assert!(e.is_empty(), "expected no errors, got {e:#?}");
}

/// Exactly one error, containing `needle`.
#[track_caller]
fn assert_only(m: &Module, needle: &str) {
    let e = messages(m);
    assert!(
        e.len() == 1 && e[0].contains(needle),
        "expected exactly one error containing {needle:?}, got {e:#?}"
    );
}

/// At least one error containing `needle`.
#[track_caller]
fn assert_has(m: &Module, needle: &str) {
    let e = messages(m);
    assert!(
        e.iter().any(|x| x.contains(needle)),
        "expected an error containing {needle:?}, got {e:#?}"
    );
}

/// A module with one function `@f() -> !s32i` that returns a constant, built by `body`
/// from a cursor at the end of the entry block.
fn simple(body: impl FnOnce(&mut Module, &mut FuncCursor, Block)) -> Module {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let mut f = define(&mut m, "f", &[], Some(s32), Phase::Structured);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    body(&mut m, &mut cur, entry);
    m.add_function(f);
    m
}

// ---- basics -------------------------------------------------------------------------------

#[test]
fn valid_structured_function_verifies() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let ptr = m.ctx.types.ptr(s32);
        let a = alloca(m, s32);
        let p = cur.build_value(a, &[], ptr);
        let k = int_const(m, 7, s32);
        let c = cur.build_value(k, &[], s32);
        cur.build(
            OpKind::Store {
                align: 4,
                volatile: false,
            },
            &[c, p],
            &[],
            &[],
            0,
        );
        let v = cur.build_value(
            OpKind::Load {
                align: 4,
                volatile: false,
            },
            &[p],
            s32,
        );
        cur.build(OpKind::Return, &[v], &[], &[], 0);
    });
    assert_ok(&m);
}

#[test]
fn verify_function_without_module_checks_the_body() {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let mut f = define(&mut m, "f", &[], Some(s32), Phase::Structured);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    let diags = verify_function(&m.ctx, &f);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert!(
        diags[0]
            .message
            .contains("returns !s32i, but 'cir.return' has no value")
    );
}

// ---- terminators and region shapes ----------------------------------------------------------

#[test]
fn block_without_terminator_is_rejected() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 1, s32);
        cur.build_value(k, &[], s32);
    });
    assert_only(&m, "does not end in a terminator");
}

#[test]
fn empty_block_is_rejected() {
    let m = simple(|_, cur, _| {
        let body = cur.func.body.unwrap();
        let b1 = cur.append_block(body);
        cur.build(OpKind::Br, &[], &[], &[(b1, &[])], 0);
    });
    assert_only(&m, "is empty; a block must end in a terminator");
}

#[test]
fn terminator_in_the_middle_is_rejected() {
    let m = simple(|_, cur, _| {
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    assert_only(
        &m,
        "terminator 'cir.unreachable' must be the last op of its block",
    );
}

#[test]
fn region_without_blocks_is_rejected() {
    let m = simple(|_, cur, _| {
        cur.build(OpKind::Scope, &[], &[], &[], 1);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    assert_only(&m, "region #0 of 'cir.scope' has no blocks");
}

#[test]
fn region_count_is_checked() {
    let m = simple(|_, cur, _| {
        let op = cur.build(
            OpKind::CleanupScope {
                kind: CleanupKind::All,
            },
            &[],
            &[],
            &[],
            1,
        );
        let blocks = cur.entry_blocks(op);
        cur.goto_end(blocks[0]);
        cur.build(OpKind::Yield, &[], &[], &[], 0);
        cur.goto_after(op);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    assert_only(&m, "'cir.cleanup.scope' must have 2 region(s), but has 1");
}

/// `cir.while { %c = const; cir.condition(%c) } do { [break|continue|yield] }`.
fn loop_module(body_terminator: OpKind, condition_terminator: Option<OpKind>) -> Module {
    simple(|m, cur, _| {
        let s32 = t(m).s32;
        let bool_ty = t(m).bool;
        let w = cur.build(OpKind::While, &[], &[], &[], 2);
        let blocks = cur.entry_blocks(w);
        cur.goto_end(blocks[0]);
        let k = bool_const(m, true);
        let c = cur.build_value(k, &[], bool_ty);
        match condition_terminator {
            Some(kind) => cur.build(kind, &[], &[], &[], 0),
            None => cur.build(OpKind::Condition, &[c], &[], &[], 0),
        };
        cur.goto_end(blocks[1]);
        cur.build(body_terminator, &[], &[], &[], 0);
        cur.goto_after(w);
        let k = int_const(m, 0, s32);
        let z = cur.build_value(k, &[], s32);
        cur.build(OpKind::Return, &[z], &[], &[], 0);
    })
}

#[test]
fn loops_with_break_and_continue_verify() {
    assert_ok(&loop_module(OpKind::Break, None));
    assert_ok(&loop_module(OpKind::Continue, None));
    assert_ok(&loop_module(OpKind::Yield, None));
}

#[test]
fn yield_cannot_end_a_loop_condition() {
    assert_only(
        &loop_module(OpKind::Yield, Some(OpKind::Yield)),
        "a loop condition region must end with 'cir.condition'",
    );
}

#[test]
fn condition_only_ends_loop_conditions() {
    let m = simple(|m, cur, _| {
        let bool_ty = t(m).bool;
        let k = bool_const(m, true);
        let c = cur.build_value(k, &[], bool_ty);
        let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
        let blocks = cur.entry_blocks(s);
        cur.goto_end(blocks[0]);
        cur.build(OpKind::Condition, &[c], &[], &[], 0);
        cur.goto_after(s);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    assert_only(
        &m,
        "'cir.condition' can only terminate the condition region",
    );
}

#[test]
fn yield_cannot_end_the_function_body() {
    let m = simple(|_, cur, _| {
        cur.build(OpKind::Yield, &[], &[], &[], 0);
    });
    assert_only(&m, "'cir.yield' cannot terminate the function body");
}

#[test]
fn break_and_continue_need_a_loop() {
    for (kind, needle) in [
        (
            OpKind::Break,
            "'cir.break' must be inside a loop or 'cir.switch'",
        ),
        (OpKind::Continue, "'cir.continue' must be inside a loop"),
    ] {
        let m = simple(|_, cur, _| {
            let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
            let blocks = cur.entry_blocks(s);
            cur.goto_end(blocks[0]);
            cur.build(kind, &[], &[], &[], 0);
            cur.goto_after(s);
            cur.build(OpKind::Unreachable, &[], &[], &[], 0);
        });
        assert_only(&m, needle);
    }
}

#[test]
fn continue_in_a_switch_without_loop_is_rejected_but_break_is_fine() {
    for (kind, error) in [
        (OpKind::Break, None),
        (
            OpKind::Continue,
            Some("'cir.continue' must be inside a loop"),
        ),
    ] {
        let m = simple(|m, cur, _| {
            let s32 = t(m).s32;
            let k = int_const(m, 1, s32);
            let v = cur.build_value(k, &[], s32);
            let sw = cur.build(OpKind::Switch, &[v], &[], &[], 1);
            let blocks = cur.entry_blocks(sw);
            cur.goto_end(blocks[0]);
            let values = cur.func.dfg.make_extra(ExtraData::CaseValues(vec![]));
            let case = cur.build(
                OpKind::Case {
                    kind: CaseKind::Default,
                    values,
                },
                &[],
                &[],
                &[],
                1,
            );
            let case_blocks = cur.entry_blocks(case);
            cur.goto_end(blocks[0]);
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_end(case_blocks[0]);
            cur.build(kind, &[], &[], &[], 0);
            cur.goto_after(sw);
            cur.build(OpKind::Return, &[v], &[], &[], 0);
        });
        match error {
            None => assert_ok(&m),
            Some(needle) => assert_only(&m, needle),
        }
    }
}

#[test]
fn region_entry_blocks_are_not_branch_targets() {
    let m = simple(|_, cur, entry| {
        cur.build(OpKind::Br, &[], &[], &[(entry, &[])], 0);
    });
    assert_only(&m, "cannot branch to ^bb0, the entry block of its region");
}

#[test]
fn successors_stay_in_their_region() {
    let m = simple(|_, cur, _| {
        let body = cur.func.body.unwrap();
        let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
        let blocks = cur.entry_blocks(s);
        let outside = cur.append_block(body);
        cur.goto_end(blocks[0]);
        cur.build(OpKind::Br, &[], &[], &[(outside, &[])], 0);
        cur.goto_after(s);
        cur.build(OpKind::Br, &[], &[], &[(outside, &[])], 0);
        cur.goto_end(outside);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    assert_only(&m, "successor ^bb2 of 'cir.br' is not in the same region");
}

#[test]
fn goto_needs_an_existing_label() {
    for (label, ok) in [("done", true), ("elsewhere", false)] {
        let m = simple(|m, cur, _| {
            let body = cur.func.body.unwrap();
            let target = cur.append_block(body);
            let goto_label = m.ctx.sym(label);
            let name = m.ctx.sym("done");
            cur.build(OpKind::Goto { label: goto_label }, &[], &[], &[], 0);
            cur.goto_end(target);
            cur.build(OpKind::Label { name }, &[], &[], &[], 0);
            cur.build(OpKind::Unreachable, &[], &[], &[], 0);
        });
        if ok {
            assert_ok(&m);
        } else {
            assert_only(&m, "names label \"elsewhere\", which is not defined");
        }
    }
}

// ---- phases -----------------------------------------------------------------------------------

#[test]
fn ops_must_belong_to_the_function_phase() {
    let m = simple(|m, cur, _| {
        let eh = t(m).eh_token;
        cur.build_value(OpKind::EhInitiate { cleanup: false }, &[], eh);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    assert_only(
        &m,
        "'cir.eh.initiate' is not allowed in a structured function",
    );

    let mut m = Module::new();
    let mut f = define(&mut m, "g", &[], None, Phase::Flat);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
    let blocks = cur.entry_blocks(s);
    cur.goto_end(blocks[0]);
    cur.build(OpKind::Yield, &[], &[], &[], 0);
    cur.goto_after(s);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    assert_only(&m, "'cir.scope' is not allowed in a flat function");
}

#[test]
fn lowered_functions_have_no_nested_regions() {
    let mut m = Module::new();
    let callee = declare(&mut m, "g", &[], None);
    let mut f = define(&mut m, "f", &[], None, Phase::Itanium);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    let c = cur.build(call(callee), &[], &[], &[], 1);
    let blocks = cur.entry_blocks(c);
    cur.goto_end(blocks[0]);
    cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    cur.goto_after(c);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    assert_only(
        &m,
        "'cir.call' cannot have regions (itanium functions have no nested regions)",
    );
}

// ---- dominance -----------------------------------------------------------------------------

#[test]
fn use_before_definition_in_a_block_is_rejected() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 1, s32);
        let first = cur.build(OpKind::Binary(BinaryOp::Add), &[], &[s32], &[], 0);
        let v = cur.build_value(k, &[], s32);
        cur.func.dfg.set_operands(first, &[v, v]);
        let r = cur.func.dfg.result(first);
        cur.build(OpKind::Return, &[r], &[], &[], 0);
    });
    let e = messages(&m);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(
        e.iter()
            .all(|x| x.contains("of 'cir.add' does not dominate this use"))
    );
}

#[test]
fn an_op_cannot_use_its_own_result() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let op = cur.build(OpKind::Unary(UnaryOp::Minus), &[], &[s32], &[], 0);
        let r = cur.func.dfg.result(op);
        cur.func.dfg.set_operands(op, &[r]);
        cur.build(OpKind::Return, &[r], &[], &[], 0);
    });
    assert_only(&m, "operand #0 of 'cir.unary' is a result of the same op");
}

#[test]
fn values_of_a_nested_region_are_not_visible_outside_it() {
    for leak in [false, true] {
        let m = simple(|m, cur, _| {
            let s32 = t(m).s32;
            let k = int_const(m, 1, s32);
            let outer = cur.build_value(k, &[], s32);
            let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
            let blocks = cur.entry_blocks(s);
            cur.goto_end(blocks[0]);
            let k = int_const(m, 2, s32);
            let inner = cur.build_value(k, &[], s32);
            // Uses of an enclosing region's value are fine.
            cur.build(
                OpKind::Binary(BinaryOp::Add),
                &[outer, inner],
                &[s32],
                &[],
                0,
            );
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_after(s);
            cur.build(
                OpKind::Return,
                &[if leak { inner } else { outer }],
                &[],
                &[],
                0,
            );
        });
        if leak {
            assert_only(
                &m,
                "operand #0 of 'cir.return' is defined in a region that does not enclose this use",
            );
        } else {
            assert_ok(&m);
        }
    }
}

#[test]
fn a_result_is_not_visible_inside_its_own_regions() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let bool_ty = t(m).bool;
        let k = bool_const(m, true);
        let c = cur.build_value(k, &[], bool_ty);
        let ternary = cur.build(OpKind::Ternary, &[c], &[s32], &[], 2);
        let r = cur.func.dfg.result(ternary);
        let blocks = cur.entry_blocks(ternary);
        cur.goto_end(blocks[0]);
        cur.build(OpKind::Yield, &[r], &[], &[], 0);
        cur.goto_end(blocks[1]);
        let k = int_const(m, 0, s32);
        let z = cur.build_value(k, &[], s32);
        cur.build(OpKind::Yield, &[z], &[], &[], 0);
        cur.goto_after(ternary);
        cur.build(OpKind::Return, &[r], &[], &[], 0);
    });
    assert_only(
        &m,
        "is a result of the enclosing 'cir.ternary', which is not visible inside its regions",
    );
}

/// `f(%c)`: entry branches on `%c` to `^then`/`^else`, both reach `^merge`, which returns
/// `use_in_merge` (a value defined in `^then` when `bad`).
fn diamond(bad: bool) -> Module {
    let mut m = Module::new();
    let bool_ty = t(&m).bool;
    let s32 = t(&m).s32;
    let mut f = define(&mut m, "f", &[bool_ty], Some(s32), Phase::Flat);
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let c = f.dfg.block_params(entry)[0];
    let k0 = int_const(&mut m, 0, s32);
    let k1 = int_const(&mut m, 1, s32);
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let then_b = cur.append_block(body);
    let else_b = cur.append_block(body);
    let merge = cur.append_block(body);
    cur.goto_end(entry);
    let zero = cur.build_value(k0, &[], s32);
    cur.build(
        OpKind::BrCond,
        &[c],
        &[],
        &[(then_b, &[]), (else_b, &[])],
        0,
    );
    cur.goto_end(then_b);
    let one = cur.build_value(k1, &[], s32);
    cur.build(OpKind::Br, &[], &[], &[(merge, &[])], 0);
    cur.goto_end(else_b);
    cur.build(OpKind::Br, &[], &[], &[(merge, &[])], 0);
    cur.goto_end(merge);
    cur.build(OpKind::Return, &[if bad { one } else { zero }], &[], &[], 0);
    m.add_function(f);
    m
}

#[test]
fn cfg_dominance_within_a_region() {
    assert_ok(&diamond(false));
    assert_only(
        &diamond(true),
        "operand #0 of 'cir.return' does not dominate this use",
    );
}

/// `%r = try_call @g() ^normal, ^unwind`; `^unwind` is a landing pad that resumes. The
/// result is returned from `^normal` or (when `use_on_unwind`) from the unwind path;
/// `extra_pred` adds a second way into `^normal` that bypasses the call.
fn try_call_result(use_on_unwind: bool, extra_pred: bool) -> Module {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let eh = t(&m).eh_token;
    let bool_ty = t(&m).bool;
    let g = declare(&mut m, "g", &[], Some(s32));
    let mut f = define(&mut m, "f", &[bool_ty], Some(s32), Phase::Flat);
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let c = f.dfg.block_params(entry)[0];
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let call_b = cur.append_block(body);
    let normal = cur.append_block(body);
    let unwind = cur.append_block(body);
    cur.goto_end(entry);
    if extra_pred {
        cur.build(
            OpKind::BrCond,
            &[c],
            &[],
            &[(call_b, &[]), (normal, &[])],
            0,
        );
    } else {
        cur.build(OpKind::Br, &[], &[], &[(call_b, &[])], 0);
    }
    cur.goto_end(call_b);
    let tc = cur.build(try_call(g), &[], &[s32], &[(normal, &[]), (unwind, &[])], 0);
    let r = cur.func.dfg.result(tc);
    cur.goto_end(normal);
    if use_on_unwind {
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    } else {
        cur.build(OpKind::Return, &[r], &[], &[], 0);
    }
    cur.goto_end(unwind);
    let tok = cur.build_value(OpKind::EhInitiate { cleanup: true }, &[], eh);
    if use_on_unwind {
        cur.build(OpKind::Return, &[r], &[], &[], 0);
    } else {
        cur.build(OpKind::Resume, &[tok], &[], &[], 0);
    }
    m.add_function(f);
    m
}

#[test]
fn try_call_results_are_only_available_on_the_normal_path() {
    assert_ok(&try_call_result(false, false));
    assert_only(
        &try_call_result(true, false),
        "is a result of 'cir.try_call', which is not available on its unwind path",
    );
    assert_only(
        &try_call_result(false, true),
        "operand #0 of 'cir.return' does not dominate this use",
    );
}

#[test]
fn values_of_another_function_are_dangling() {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    // A helper function with many values, so its value numbers are out of range here.
    let mut other = define(
        &mut m,
        "other",
        &[s32, s32, s32],
        Some(s32),
        Phase::Structured,
    );
    let other_entry = other.entry_block().unwrap();
    let foreign = other.dfg.block_params(other_entry)[2];
    {
        let mut cur = FuncCursor::new(&mut other, m.ctx.types.common());
        cur.goto_end(other_entry);
        cur.build(OpKind::Return, &[foreign], &[], &[], 0);
    }
    m.add_function(other);
    let mut f = define(&mut m, "f", &[], Some(s32), Phase::Structured);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    cur.build(OpKind::Return, &[foreign], &[], &[], 0);
    m.add_function(f);
    assert_only(
        &m,
        "operand #0 of 'cir.return' is not a value defined in this function",
    );
}

#[test]
fn results_of_unplaced_ops_are_dangling() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 3, s32);
        let loose = cur.func.dfg.make_op(k, &[], &[s32], &[], 0, Loc::NONE);
        let v = cur.func.dfg.result(loose);
        cur.build(OpKind::Return, &[v], &[], &[], 0);
    });
    assert_only(&m, "is not a value defined in this function");
}

#[test]
fn results_recorded_for_another_op_are_reported() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 3, s32);
        let a = cur.build(k, &[], &[s32], &[], 0);
        let b = cur.build(k, &[], &[s32], &[], 0);
        let stolen = cur.func.dfg.result(a);
        let dfg = &mut cur.func.dfg;
        dfg.ops[b].results.clear(&mut dfg.value_lists);
        dfg.ops[b].results.push(stolen, &mut dfg.value_lists);
        cur.build(OpKind::Return, &[stolen], &[], &[], 0);
    });
    assert_only(
        &m,
        "result #0 of 'cir.const' is not recorded as this op's result",
    );
}

// ---- block arguments ------------------------------------------------------------------------

fn branch_with_args(
    params: &[Type],
    args_of: impl Fn(&mut Module, &mut FuncCursor) -> Vec<Value>,
) -> Module {
    simple(|m, cur, _| {
        let body = cur.func.body.unwrap();
        let target = cur.append_block(body);
        for &p in params {
            cur.func.dfg.append_block_param(target, p);
        }
        let args = args_of(m, cur);
        cur.build(OpKind::Br, &[], &[], &[(target, &args)], 0);
        cur.goto_end(target);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    })
}

#[test]
fn block_argument_count_and_types_match_on_every_edge() {
    let s32 = t(&Module::new()).s32;
    let s64 = t(&Module::new()).s64;
    let one = |m: &mut Module, cur: &mut FuncCursor| {
        let k = int_const(m, 1, s32);
        vec![cur.build_value(k, &[], s32)]
    };
    assert_ok(&branch_with_args(&[s32], one));
    assert_only(
        &branch_with_args(&[s32, s32], one),
        "successor ^bb1 of 'cir.br' takes 2 argument(s), but is given 1",
    );
    assert_only(
        &branch_with_args(&[s64], one),
        "argument #0 to successor ^bb1 of 'cir.br' has type !s32i, but the block parameter has type !s64i",
    );
    assert_only(
        &branch_with_args(&[], one),
        "takes 0 argument(s), but is given 1",
    );
}

// ---- op types -----------------------------------------------------------------------------------

#[test]
fn load_and_store_agree_with_the_pointee() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let s64 = t(m).s64;
        let ptr = m.ctx.types.ptr(s32);
        let a = alloca(m, s32);
        let p = cur.build_value(a, &[], ptr);
        let k = int_const(m, 1, s64);
        let wide = cur.build_value(k, &[], s64);
        cur.build(
            OpKind::Store {
                align: 0,
                volatile: false,
            },
            &[wide, p],
            &[],
            &[],
            0,
        );
        let v = cur.build_value(
            OpKind::Load {
                align: 0,
                volatile: false,
            },
            &[p],
            s64,
        );
        let _ = v;
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    let e = messages(&m);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(e[0].contains("'cir.store' stores !s64i, but its address points to !s32i"));
    assert!(e[1].contains("'cir.load' yields !s64i, but its address points to !s32i"));
}

#[test]
fn compares_and_binops_need_matching_types() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let s64 = t(m).s64;
        let bool_ty = t(m).bool;
        let k = int_const(m, 1, s32);
        let a = cur.build_value(k, &[], s32);
        let k = int_const(m, 1, s64);
        let b = cur.build_value(k, &[], s64);
        cur.build(OpKind::Cmp(CmpPredicate::Eq), &[a, b], &[bool_ty], &[], 0);
        cur.build(OpKind::Cmp(CmpPredicate::Eq), &[a, a], &[s32], &[], 0);
        cur.build(OpKind::Binary(BinaryOp::Add), &[a, b], &[s32], &[], 0);
        cur.build(OpKind::Binary(BinaryOp::Add), &[a, a], &[s64], &[], 0);
        cur.build(OpKind::Binary(BinaryOp::Add), &[a, a], &[s32], &[], 0);
        cur.build(OpKind::Return, &[a], &[], &[], 0);
    });
    let e = messages(&m);
    assert_eq!(e.len(), 4, "{e:#?}");
    assert!(e[0].contains("the operands of 'cir.cmp(eq)' have different types !s32i and !s64i"));
    assert!(e[1].contains("the result of 'cir.cmp' has type !s32i, but must be !cir.bool"));
    assert!(e[2].contains("the operands of 'cir.add' have different types"));
    assert!(e[3].contains("the result of 'cir.add' has type !s64i, but must be !s32i"));
}

#[test]
fn brcond_takes_a_bool() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let body = cur.func.body.unwrap();
        let b1 = cur.append_block(body);
        let k = int_const(m, 1, s32);
        let v = cur.build_value(k, &[], s32);
        cur.build(OpKind::BrCond, &[v], &[], &[(b1, &[]), (b1, &[])], 0);
        cur.goto_end(b1);
        cur.build(OpKind::Return, &[v], &[], &[], 0);
    });
    assert_only(
        &m,
        "the condition of 'cir.brcond' has type !s32i, but must be !cir.bool",
    );
}

#[test]
fn return_matches_the_function_type() {
    let m = simple(|m, cur, _| {
        let s64 = t(m).s64;
        let k = int_const(m, 1, s64);
        let v = cur.build_value(k, &[], s64);
        cur.build(OpKind::Return, &[v], &[], &[], 0);
    });
    assert_only(
        &m,
        "the returned value of 'cir.return' has type !s64i, but must be !s32i",
    );
}

#[test]
fn const_and_alloca_result_types() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let s64 = t(m).s64;
        let k = int_const(m, 1, s32);
        cur.build(k, &[], &[s64], &[], 0);
        let a = alloca(m, s32);
        cur.build(a, &[], &[s32], &[], 0);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    });
    let e = messages(&m);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(e[0].contains("the result of 'cir.const' has type !s64i, but must be !s32i"));
    assert!(
        e[1].contains("the result of 'cir.alloca' has type !s32i, but must be !cir.ptr<!s32i>")
    );
}

#[test]
fn calls_match_the_callee_declaration() {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let s64 = t(&m).s64;
    let g = declare(&mut m, "g", &[s32], None);
    let printf = declare_full(&mut m, "printf", &[s32], Some(s32), true);
    let other_sig = m.ctx.types.func(vec![s64], None, false);
    let nowhere = m.ctx.sym("nowhere");
    let k32 = int_const(&mut m, 1, s32);
    let k64 = int_const(&mut m, 1, s64);
    let mut f = define(&mut m, "f", &[], None, Phase::Structured);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    let a = cur.build_value(k32, &[], s32);
    let b = cur.build_value(k64, &[], s64);
    cur.build(call(g), &[a], &[], &[], 0); // fine
    cur.build(call(printf), &[a, b, b], &[s32], &[], 0); // varargs: fine
    cur.build(call(g), &[], &[], &[], 0); // too few
    cur.build(call(g), &[b], &[], &[], 0); // wrong type
    cur.build(call((g.0, other_sig)), &[b], &[], &[], 0); // disagrees with the declaration
    cur.build(call((nowhere, g.1)), &[a], &[], &[], 0); // undeclared
    cur.build(call(g), &[a], &[s32], &[], 0); // result of a void call
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    let e = messages(&m);
    assert_eq!(e.len(), 5, "{e:#?}");
    assert!(
        e[0].contains(
            "'cir.call' passes 0 argument(s), but its signature !cir.func<(!s32i)> takes 1"
        )
    );
    assert!(
        e[1].contains("argument #0 of 'cir.call' has type !s64i, but the signature takes !s32i")
    );
    assert!(e[2].contains(
        "'cir.call' uses signature !cir.func<(!s64i)>, but @g is declared as !cir.func<(!s32i)>"
    ));
    assert!(e[3].contains("'cir.call' calls @nowhere, which is not declared in this module"));
    assert!(e[4].contains("'cir.call' has 1 result(s), but its signature returns nothing"));
}

#[test]
fn get_global_names_a_global_of_the_right_type() {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let s64 = t(&m).s64;
    let ptr32 = m.ctx.types.ptr(s32);
    let ptr64 = m.ctx.types.ptr(s64);
    let name = m.ctx.sym("counter");
    m.add_global(Global {
        name,
        ty: s32,
        init: None,
        constant: false,
        linkage: Linkage::External,
        private_visibility: false,
        align: None,
        loc: Loc::NONE,
    });
    let missing = m.ctx.sym("missing");
    let mut f = define(&mut m, "f", &[], None, Phase::Structured);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    cur.build_value(OpKind::GetGlobal { symbol: name }, &[], ptr32);
    cur.build_value(OpKind::GetGlobal { symbol: name }, &[], ptr64);
    cur.build_value(OpKind::GetGlobal { symbol: missing }, &[], ptr32);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    let e = messages(&m);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(
        e[0].contains(
            "'cir.get_global' yields !cir.ptr<!s64i>, but global @counter has type !s32i"
        )
    );
    assert!(e[1].contains("'cir.get_global' names @missing, which is not a global of this module"));
}

#[test]
fn get_member_needs_a_declared_record_with_the_field() {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let u8 = t(&m).u8;
    let ptr32 = m.ctx.types.ptr(s32);
    let ptr8 = m.ctx.types.ptr(u8);
    let alias = m.ctx.sym("rec_P");
    let name = m.ctx.sym("P");
    m.add_record(RecordDecl {
        alias,
        kind: RecordKind::Struct,
        name,
        fields: Some(vec![s32, u8]),
        loc: Loc::NONE,
    });
    let rec = m.ctx.types.record(alias);
    let opaque_alias = m.ctx.sym("rec_Opaque");
    let opaque = m.ctx.types.record(opaque_alias);
    let rec_ptr = m.ctx.types.ptr(rec);
    let opaque_ptr = m.ctx.types.ptr(opaque);
    let field = m.ctx.sym("f");
    let mut f = define(&mut m, "f", &[rec_ptr, opaque_ptr], None, Phase::Structured);
    let entry = f.entry_block().unwrap();
    let (p, q) = (f.dfg.block_params(entry)[0], f.dfg.block_params(entry)[1]);
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    let gm = |index| OpKind::GetMember { index, name: field };
    cur.build_value(gm(0), &[p], ptr32); // fine
    cur.build_value(gm(1), &[p], ptr8); // fine
    cur.build_value(gm(1), &[p], ptr32); // wrong field type
    cur.build_value(gm(2), &[p], ptr32); // no such field
    cur.build_value(gm(0), &[q], ptr32); // opaque record
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    let e = messages(&m);
    assert_eq!(e.len(), 3, "{e:#?}");
    assert!(e[0].contains("but field 1 of !rec_P has type !u8i"));
    assert!(e[1].contains("selects field 2 of !rec_P, which has 2 field(s)"));
    assert!(e[2].contains("needs the fields of !rec_Opaque, which is not declared with a body"));
}

// ---- tokens ---------------------------------------------------------------------------------

#[test]
fn tokens_only_flow_into_eh_ops() {
    let mut m = Module::new();
    let eh = t(&m).eh_token;
    let ptr = m.ctx.types.ptr(eh);
    let g = declare(&mut m, "g", &[eh], None);
    let nothing = declare(&mut m, "nothing", &[], None);
    let slot_kind = alloca(&mut m, eh);
    let mut f = define(&mut m, "f", &[], None, Phase::Flat);
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let lp = cur.append_block(body);
    let normal = cur.append_block(body);
    cur.goto_end(entry);
    cur.build(try_call(nothing), &[], &[], &[(normal, &[]), (lp, &[])], 0);
    cur.goto_end(normal);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    cur.goto_end(lp);
    let tok = cur.build_value(OpKind::EhInitiate { cleanup: true }, &[], eh);
    cur.build(call(g), &[tok], &[], &[], 0);
    let slot = cur.build_value(slot_kind, &[], ptr);
    cur.build(
        OpKind::Store {
            align: 0,
            volatile: false,
        },
        &[tok, slot],
        &[],
        &[],
        0,
    );
    cur.build(OpKind::Resume, &[tok], &[], &[], 0);
    m.add_function(f);
    let e = messages(&m);
    assert_eq!(e.len(), 4, "{e:#?}");
    assert!(e[0].contains("the signature of @g cannot mention a token type"));
    assert!(e[1].contains("operand #0 of 'cir.call' is a token (!cir.eh_token)"));
    assert!(e[2].contains("'cir.alloca' cannot allocate a token (!cir.eh_token)"));
    assert!(e[3].contains("operand #0 of 'cir.store' is a token (!cir.eh_token)"));
}

#[test]
fn token_block_parameters_exist_only_in_flat_functions() {
    for phase in [Phase::Flat, Phase::Itanium, Phase::Msvc] {
        let mut m = Module::new();
        let eh = t(&m).eh_token;
        let mut f = define(&mut m, "f", &[], None, phase);
        let body = f.body.unwrap();
        let entry = f.entry_block().unwrap();
        let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
        let b1 = cur.append_block(body);
        cur.func.dfg.append_block_param(b1, eh);
        cur.goto_end(entry);
        cur.build(OpKind::Return, &[], &[], &[], 0);
        cur.goto_end(b1);
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
        m.add_function(f);
        if phase == Phase::Flat {
            assert_ok(&m);
        } else {
            assert_only(&m, "parameter #0 of ^bb1 cannot be a token");
        }
    }
}

// ---- structured EH --------------------------------------------------------------------------

/// `cir.try { call @g; yield } <handlers>`; `fill(i, cur)` fills handler region `i`.
fn try_module(
    keys: impl FnOnce(&mut Module) -> Vec<HandlerKey>,
    fill: impl Fn(&mut Module, usize, HandlerKey, &mut FuncCursor),
) -> Module {
    let mut m = Module::new();
    let keys = keys(&mut m);
    let g = declare(&mut m, "g", &[], None);
    let mut f = define(&mut m, "f", &[], None, Phase::Structured);
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    cur.goto_end(entry);
    let n = keys.len();
    let handlers = cur.func.dfg.make_extra(ExtraData::Handlers(keys.clone()));
    let op = cur.build(OpKind::Try { handlers }, &[], &[], &[], 1 + n);
    let blocks = cur.entry_blocks(op);
    cur.goto_end(blocks[0]);
    cur.build(call(g), &[], &[], &[], 0);
    cur.build(OpKind::Yield, &[], &[], &[], 0);
    for (i, &b) in blocks[1..].iter().enumerate() {
        cur.goto_end(b);
        fill(&mut m, i, keys[i], &mut cur);
    }
    cur.goto_after(op);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    m
}

fn catch_handler(cur: &mut FuncCursor, ty: Type) {
    cur.build_value(OpKind::CatchParam, &[], ty);
    cur.build(OpKind::Yield, &[], &[], &[], 0);
}

#[test]
fn catch_handlers_begin_with_catch_param() {
    let keys = |m: &mut Module| {
        vec![
            HandlerKey::Catch(typeinfo(m, "_ZTIi")),
            HandlerKey::CatchAll,
        ]
    };
    // Valid: both handlers start with catch_param; the catch-all one yields void*.
    let m = try_module(keys, |m, _, _, cur| {
        let vp = t(m).void_ptr;
        catch_handler(cur, vp)
    });
    assert_ok(&m);
    // Missing catch_param.
    let m = try_module(keys, |m, i, _, cur| {
        if i == 0 {
            let vp = t(m).void_ptr;
            catch_handler(cur, vp)
        } else {
            cur.build(OpKind::Yield, &[], &[], &[], 0);
        }
    });
    assert_only(
        &m,
        "handler #1 of 'cir.try' catches, so its region must begin with 'cir.catch_param'",
    );
    // catch_param in an unwind handler (which then resumes).
    let m = try_module(
        |_| vec![HandlerKey::Unwind],
        |m, _, _, cur| {
            let vp = t(m).void_ptr;
            cur.build_value(OpKind::CatchParam, &[], vp);
            cur.build(OpKind::Resume, &[], &[], &[], 0);
        },
    );
    assert_only(
        &m,
        "'cir.catch_param' must be the first op of a catch handler region",
    );
    // A catch-all catch_param that is not void*.
    let m = try_module(
        |_| vec![HandlerKey::CatchAll],
        |m, _, _, cur| {
            let s32 = t(m).s32;
            let p = m.ctx.types.ptr(s32);
            catch_handler(cur, p)
        },
    );
    assert_only(
        &m,
        "'cir.catch_param' of a catch-all handler yields !cir.ptr<!void>",
    );
}

/// A handler region body that suits its key.
fn fill_handler(m: &mut Module, key: HandlerKey, cur: &mut FuncCursor) {
    match key {
        HandlerKey::Catch(_) | HandlerKey::CatchAll => {
            let p = t(m).void_ptr;
            catch_handler(cur, p)
        }
        HandlerKey::Unwind => {
            cur.build(OpKind::Resume, &[], &[], &[], 0);
        }
        HandlerKey::Filter(_) | HandlerKey::Terminate => {
            cur.build(OpKind::Unreachable, &[], &[], &[], 0);
        }
    }
}

#[test]
fn handler_key_grammar() {
    type Keys = fn(Attr, Attr) -> Vec<HandlerKey>;
    let cases: Vec<(Keys, Option<&str>)> = vec![
        (
            |ti, _| vec![HandlerKey::Catch(ti), HandlerKey::Unwind],
            None,
        ),
        (|ti, _| vec![HandlerKey::Catch(ti)], None),
        (|_, list| vec![HandlerKey::Filter(list)], None),
        (
            |_, list| vec![HandlerKey::Filter(list), HandlerKey::Unwind],
            None,
        ),
        (|_, _| vec![HandlerKey::Terminate], None),
        (
            |ti, _| vec![HandlerKey::CatchAll, HandlerKey::Catch(ti)],
            Some("'catch' follows 'catch all', which must be the last key of 'cir.try'"),
        ),
        (
            |ti, _| vec![HandlerKey::Catch(ti), HandlerKey::Catch(ti)],
            Some("'cir.try' catches @_ZTIi twice"),
        ),
        (
            |_, list| vec![HandlerKey::Filter(list), HandlerKey::CatchAll],
            Some("'filter' in 'cir.try' must be followed by 'unwind', not 'catch all'"),
        ),
        (
            |ti, list| vec![HandlerKey::Filter(list), HandlerKey::Catch(ti)],
            Some("'catch' cannot follow 'filter' in 'cir.try'"),
        ),
        (
            |ti, _| vec![HandlerKey::Filter(ti)],
            Some("a 'filter' key of 'cir.try' must list #cir.global_view typeinfos"),
        ),
    ];
    for (keys, error) in cases {
        let m = try_module(
            |m| {
                let ti = typeinfo(m, "_ZTIi");
                let list = m.ctx.attrs.intern(AttrData::List(vec![ti]));
                keys(ti, list)
            },
            |m, _, key, cur| fill_handler(m, key, cur),
        );
        match error {
            None => assert_ok(&m),
            Some(needle) => assert_only(&m, needle),
        }
    }
}

#[test]
fn filter_and_terminate_handlers_hold_only_unreachable() {
    let m = try_module(
        |_| vec![HandlerKey::Terminate],
        |_, _, _, cur| {
            cur.build(OpKind::Yield, &[], &[], &[], 0);
        },
    );
    assert_only(
        &m,
        "the terminate handler of 'cir.try' must hold only 'cir.unreachable'",
    );
}

#[test]
fn resume_needs_an_exception_in_flight() {
    // In an unwind handler: fine (checked by handler_key_grammar). In a catch-all handler:
    // rejected.
    let m = try_module(
        |_| vec![HandlerKey::CatchAll],
        |m, _, _, cur| {
            let vp = t(m).void_ptr;
            cur.build_value(OpKind::CatchParam, &[], vp);
            cur.build(OpKind::Resume, &[], &[], &[], 0);
        },
    );
    assert_only(&m, "'cir.resume' must be inside a 'cir.try' unwind handler");
    // In an EH-only cleanup: fine; in a normal cleanup: rejected.
    for (kind, ok) in [(CleanupKind::Eh, true), (CleanupKind::Normal, false)] {
        let m = simple(|m, cur, _| {
            let s32 = t(m).s32;
            let op = cur.build(OpKind::CleanupScope { kind }, &[], &[], &[], 2);
            let blocks = cur.entry_blocks(op);
            cur.goto_end(blocks[0]);
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_end(blocks[1]);
            cur.build(OpKind::Resume, &[], &[], &[], 0);
            cur.goto_after(op);
            let k = int_const(m, 0, s32);
            let z = cur.build_value(k, &[], s32);
            cur.build(OpKind::Return, &[z], &[], &[], 0);
        });
        if ok {
            assert_ok(&m);
        } else {
            assert_only(&m, "'cir.resume' must be inside");
        }
    }
}

#[test]
fn indirect_br_is_not_allowed_in_a_cleanup_scope_body() {
    for inside in [false, true] {
        let m = simple(|m, cur, _| {
            let vp = t(m).void_ptr;
            let s32 = t(m).s32;
            let label = m.ctx.sym("l");
            let addr = cur.build_value(OpKind::BlockAddress { label }, &[], vp);
            let op = cur.build(
                OpKind::CleanupScope {
                    kind: CleanupKind::Normal,
                },
                &[],
                &[],
                &[],
                2,
            );
            let blocks = cur.entry_blocks(op);
            let region = cur.func.dfg.regions(op)[0];
            if inside {
                let target = cur.append_block(region);
                cur.goto_end(blocks[0]);
                cur.build(OpKind::IndirectBr, &[addr], &[], &[(target, &[])], 0);
                cur.goto_end(target);
            } else {
                cur.goto_end(blocks[0]);
            }
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_end(blocks[1]);
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_after(op);
            let k = int_const(m, 0, s32);
            let z = cur.build_value(k, &[], s32);
            cur.build(OpKind::Return, &[z], &[], &[], 0);
        });
        if inside {
            assert_only(
                &m,
                "'cir.indirect_br' is not allowed inside a 'cir.cleanup.scope'",
            );
        } else {
            assert_ok(&m);
        }
    }
}

// ---- flat EH ------------------------------------------------------------------------------------

/// Knobs for the flat try/catch-with-cleanup function of the design seed (listing 26).
#[derive(Default, Clone, Copy)]
struct FlatKnobs {
    /// Leave out `cir.eh.initiate` in the first unwind destination.
    no_initiate: bool,
    /// Leave out `cir.end_cleanup`.
    no_end_cleanup: bool,
    /// Leave out `cir.end_catch`.
    no_end_catch: bool,
    /// End the catch twice.
    double_end_catch: bool,
    /// Resume from inside the catch handler instead of ending it.
    resume_in_catch: bool,
    /// A throwing plain call inside the catch handler.
    call_in_catch: bool,
    /// Rethrow (without an unwind destination) from inside the catch handler.
    rethrow_in_catch: bool,
    /// The dispatch lacks its terminal key.
    no_terminal_key: bool,
    /// The dispatch passes its token explicitly.
    explicit_dispatch_arg: bool,
    /// The catch block takes two parameters.
    catch_block_two_params: bool,
    /// The catch block does not begin with begin_catch.
    no_begin_catch: bool,
}

fn flat_seed(k: FlatKnobs) -> Module {
    let mut m = Module::new();
    let c = t(&m);
    let rec_sym = m.ctx.sym("rec_SomeClass");
    let rec = m.ctx.types.record(rec_sym);
    let rec_ptr = m.ctx.types.ptr(rec);
    let ctor = declare(&mut m, "_ZN9SomeClassC1Ev", &[rec_ptr], None);
    let work = declare(&mut m, "_ZN9SomeClass11doSomethingEv", &[rec_ptr], None);
    let dtor = declare(&mut m, "_ZN9SomeClassD1Ev", &[rec_ptr], None);
    let keys = if k.no_terminal_key {
        vec![HandlerKey::Catch(typeinfo(&mut m, "_ZTIi"))]
    } else {
        vec![HandlerKey::CatchAll]
    };
    let alloca_kind = alloca(&mut m, rec);
    let mut f = define(&mut m, "someFunc", &[], None, Phase::Flat);
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let bb: Vec<Block> = (1..=8).map(|_| cur.append_block(body)).collect();
    let (bb1, bb2, bb3, bb4, bb5, bb6, bb7, bb8) =
        (bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7]);
    let p5 = cur.func.dfg.append_block_param(bb5, c.eh_token);
    let p6 = cur.func.dfg.append_block_param(bb6, c.eh_token);
    let p7 = cur.func.dfg.append_block_param(bb7, c.eh_token);
    if k.catch_block_two_params {
        cur.func.dfg.append_block_param(bb7, c.eh_token);
    }
    cur.goto_end(entry);
    let obj = cur.build_value(alloca_kind, &[], rec_ptr);
    cur.build(try_call(ctor), &[obj], &[], &[(bb1, &[]), (bb3, &[])], 0);
    cur.goto_end(bb1);
    cur.build(try_call(work), &[obj], &[], &[(bb2, &[]), (bb4, &[])], 0);
    cur.goto_end(bb2);
    cur.build(nothrow_call(dtor), &[obj], &[], &[], 0);
    cur.build(OpKind::Br, &[], &[], &[(bb8, &[])], 0);
    cur.goto_end(bb3);
    if k.no_initiate {
        cur.build(OpKind::Unreachable, &[], &[], &[], 0);
    } else {
        let t1 = cur.build_value(OpKind::EhInitiate { cleanup: false }, &[], c.eh_token);
        cur.build(OpKind::Br, &[], &[], &[(bb6, &[t1])], 0);
    }
    cur.goto_end(bb4);
    let t2 = cur.build_value(OpKind::EhInitiate { cleanup: true }, &[], c.eh_token);
    cur.build(OpKind::Br, &[], &[], &[(bb5, &[t2])], 0);
    cur.goto_end(bb5);
    let ct = cur.build_value(OpKind::BeginCleanup, &[p5], c.cleanup_token);
    cur.build(call(dtor), &[obj], &[], &[], 0);
    if !k.no_end_cleanup {
        cur.build(OpKind::EndCleanup, &[ct], &[], &[], 0);
    }
    cur.build(OpKind::Br, &[], &[], &[(bb6, &[p5])], 0);
    cur.goto_end(bb6);
    let keys = cur.func.dfg.make_extra(ExtraData::Handlers(keys));
    let dispatch_args: &[Value] = if k.explicit_dispatch_arg { &[p6] } else { &[] };
    cur.build(
        OpKind::EhDispatch { keys },
        &[p6],
        &[],
        &[(bb7, dispatch_args)],
        0,
    );
    cur.goto_end(bb7);
    if k.no_begin_catch {
        cur.build(OpKind::Br, &[], &[], &[(bb8, &[])], 0);
    } else {
        let catch = cur.build_value(OpKind::BeginCatch, &[p7], c.catch_token);
        if k.call_in_catch {
            cur.build(call(work), &[obj], &[], &[], 0);
        }
        if k.rethrow_in_catch {
            cur.build(
                OpKind::Throw {
                    type_info: PackedOption::default(),
                    dtor: PackedOption::default(),
                },
                &[],
                &[],
                &[],
                0,
            );
        } else if k.resume_in_catch {
            cur.build(OpKind::Resume, &[p7], &[], &[], 0);
        } else {
            if !k.no_end_catch {
                cur.build(OpKind::EndCatch, &[catch], &[], &[], 0);
            }
            if k.double_end_catch {
                cur.build(OpKind::EndCatch, &[catch], &[], &[], 0);
            }
            cur.build(OpKind::Br, &[], &[], &[(bb8, &[])], 0);
        }
    }
    cur.goto_end(bb8);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    m
}

#[test]
fn flat_seed_listing_verifies() {
    assert_ok(&flat_seed(FlatKnobs::default()));
}

#[test]
fn flat_unwind_destinations_begin_with_eh_initiate() {
    assert_only(
        &flat_seed(FlatKnobs {
            no_initiate: true,
            ..Default::default()
        }),
        "the unwind destination ^bb3 of 'cir.try_call' must begin with 'cir.eh.initiate'",
    );
}

#[test]
fn eh_initiate_only_in_unwind_destinations() {
    let mut m = flat_seed(FlatKnobs::default());
    let id = m.function_named("someFunc").unwrap();
    let f = &mut m.functions[id];
    // Put an eh.initiate at the start of the normal continuation ^bb2.
    let eh = m.ctx.types.common().eh_token;
    let bb2 = f.layout.blocks(f.body.unwrap()).nth(2).unwrap();
    let op = f.dfg.make_op(
        OpKind::EhInitiate { cleanup: false },
        &[],
        &[eh],
        &[],
        0,
        Loc::NONE,
    );
    f.layout.prepend_op(op, bb2);
    assert_only(
        &m,
        "^bb2 begins with 'cir.eh.initiate', so only unwind edges may reach it",
    );
}

#[test]
fn dispatch_rules() {
    assert_only(
        &flat_seed(FlatKnobs {
            no_terminal_key: true,
            ..Default::default()
        }),
        "'cir.eh.dispatch' must end with exactly one of 'catch_all', 'unwind' or 'terminate'",
    );
    assert_only(
        &flat_seed(FlatKnobs {
            explicit_dispatch_arg: true,
            ..Default::default()
        }),
        "'cir.eh.dispatch' passes its token implicitly; successor ^bb7 cannot be given arguments",
    );
    assert_has(
        &flat_seed(FlatKnobs {
            catch_block_two_params: true,
            ..Default::default()
        }),
        "successor ^bb7 of 'cir.eh.dispatch' must declare no parameter or one !cir.eh_token parameter",
    );
    assert_only(
        &flat_seed(FlatKnobs {
            no_begin_catch: true,
            ..Default::default()
        }),
        "the catch block ^bb7 of 'cir.eh.dispatch' must begin with 'cir.begin_catch'",
    );
}

#[test]
fn begin_and_end_pair_up() {
    assert_only(
        &flat_seed(FlatKnobs {
            no_end_catch: true,
            ..Default::default()
        }),
        "'cir.return' leaves the catch begun here without 'cir.end_catch'",
    );
    assert_only(
        &flat_seed(FlatKnobs {
            double_end_catch: true,
            ..Default::default()
        }),
        "'cir.end_catch' may end a catch that has already ended on some path",
    );
    assert_only(
        &flat_seed(FlatKnobs {
            resume_in_catch: true,
            ..Default::default()
        }),
        "'cir.resume' leaves the catch begun here without 'cir.end_catch'",
    );
    assert_only(
        &flat_seed(FlatKnobs {
            rethrow_in_catch: true,
            ..Default::default()
        }),
        "'cir.throw' leaves the catch begun here without 'cir.end_catch'",
    );
    // A plain call inside a handler is not an exit (destructors are called that way).
    assert_ok(&flat_seed(FlatKnobs {
        call_in_catch: true,
        ..Default::default()
    }));
    assert_only(
        &flat_seed(FlatKnobs {
            no_end_cleanup: true,
            ..Default::default()
        }),
        "'cir.eh.dispatch' dispatches out of the cleanup begun here without 'cir.end_cleanup'",
    );
}

#[test]
fn begin_catch_in_a_loop_must_end_before_it_runs_again() {
    // ^bb7: begin_catch; br ^bb7b ; ^bb7b: brcond ^bb7b-loop... simplified: the catch
    // block branches back into a block that branches to itself through begin_catch is
    // not possible (begin_catch is first in a dispatch target), so loop inside the handler.
    let mut m = flat_seed(FlatKnobs::default());
    let id = m.function_named("someFunc").unwrap();
    let f = &mut m.functions[id];
    // Make the handler's end_catch conditional inside a loop: ^bb7 ... end_catch; br ^bb8
    // becomes end_catch twice through a back edge: ^bb8 branches back to a block that ends
    // the catch again.
    let body = f.body.unwrap();
    let blocks: Vec<Block> = f.layout.blocks(body).collect();
    let bb7 = blocks[7];
    let end = f.layout.ops(bb7).nth(1).unwrap();
    assert!(matches!(f.dfg.kind(end), OpKind::EndCatch));
    let token = f.dfg.operands(end)[0];
    let again = f.dfg.make_block();
    f.layout.append_block(body, again);
    let second_end = f
        .dfg
        .make_op(OpKind::EndCatch, &[token], &[], &[], 0, Loc::NONE);
    f.layout.append_op(second_end, again);
    let ret = f.dfg.make_op(OpKind::Return, &[], &[], &[], 0, Loc::NONE);
    f.layout.append_op(ret, again);
    let br = f.layout.last_op(bb7).unwrap();
    let succ = f.dfg.successors(br)[0];
    f.dfg.set_successor(succ, again, &[]);
    assert_only(
        &m,
        "'cir.end_catch' may end a catch that has already ended on some path",
    );
}

// ---- Itanium ------------------------------------------------------------------------------------

/// The Itanium lowering of listing 36 with its block-argument defects fixed. `listed`
/// says whether the landing pad lists `@_ZTIi`/`@_ZTIf` (it lists only `null` in the seed).
fn itanium_multi_catch(listed: bool, personality: bool) -> Module {
    let mut m = Module::new();
    let c = t(&m);
    let f_callee = declare(&mut m, "f", &[], None);
    let begin = declare(&mut m, "__cxa_begin_catch", &[c.void_ptr], Some(c.void_ptr));
    let end = declare(&mut m, "__cxa_end_catch", &[], None);
    let ti_i = m.ctx.sym("_ZTIi");
    let ti_f = m.ctx.sym("_ZTIf");
    let clauses = if listed {
        vec![
            LandingPadClause::Catch(Some(ti_i)),
            LandingPadClause::Catch(Some(ti_f)),
            LandingPadClause::Catch(None),
        ]
    } else {
        vec![LandingPadClause::Catch(None)]
    };
    let gxx = m.ctx.sym("__gxx_personality_v0");
    let mut f = define(&mut m, "someFunc", &[], None, Phase::Itanium);
    if personality {
        f.personality = Some(gxx);
    }
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let clauses = f.dfg.make_extra(ExtraData::LandingPadClauses(clauses));
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let bb: Vec<Block> = (1..=8).map(|_| cur.append_block(body)).collect();
    let [bb1, bb2, bb3, bb4, bb5, bb6, bb7, bb8] = bb[..] else {
        unreachable!()
    };
    let (p0, p1) = (
        cur.func.dfg.append_block_param(bb3, c.void_ptr),
        cur.func.dfg.append_block_param(bb3, c.u32),
    );
    let p4 = cur.func.dfg.append_block_param(bb4, c.void_ptr);
    let (p7, p8) = (
        cur.func.dfg.append_block_param(bb5, c.void_ptr),
        cur.func.dfg.append_block_param(bb5, c.u32),
    );
    let p11 = cur.func.dfg.append_block_param(bb6, c.void_ptr);
    let p14 = cur.func.dfg.append_block_param(bb7, c.void_ptr);
    cur.goto_end(entry);
    cur.build(try_call(f_callee), &[], &[], &[(bb1, &[]), (bb2, &[])], 0);
    cur.goto_end(bb1);
    cur.build(OpKind::Br, &[], &[], &[(bb8, &[])], 0);
    cur.goto_end(bb2);
    let lp = cur.build(
        OpKind::EhLandingPad {
            cleanup: false,
            clauses,
        },
        &[],
        &[c.void_ptr, c.u32],
        &[],
        0,
    );
    let (exn, sel) = (cur.func.dfg.results(lp)[0], cur.func.dfg.results(lp)[1]);
    cur.build(OpKind::Br, &[], &[], &[(bb3, &[exn, sel])], 0);
    cur.goto_end(bb3);
    let id_i = cur.build_value(OpKind::EhTypeId { type_info: ti_i }, &[], c.u32);
    let eq = cur.build_value(OpKind::Cmp(CmpPredicate::Eq), &[p1, id_i], c.bool);
    cur.build(
        OpKind::BrCond,
        &[eq],
        &[],
        &[(bb4, &[p0]), (bb5, &[p0, p1])],
        0,
    );
    for (b, p) in [(bb4, p4), (bb6, p11), (bb7, p14)] {
        cur.goto_end(b);
        cur.build(call(begin), &[p], &[c.void_ptr], &[], 0);
        cur.build(call(end), &[], &[], &[], 0);
        cur.build(OpKind::Br, &[], &[], &[(bb8, &[])], 0);
    }
    cur.goto_end(bb5);
    let id_f = cur.build_value(OpKind::EhTypeId { type_info: ti_f }, &[], c.u32);
    let eq = cur.build_value(OpKind::Cmp(CmpPredicate::Eq), &[p8, id_f], c.bool);
    cur.build(OpKind::BrCond, &[eq], &[], &[(bb6, &[p7]), (bb7, &[p7])], 0);
    cur.goto_end(bb8);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    m
}

#[test]
fn itanium_typeid_compares_need_listed_types() {
    assert_ok(&itanium_multi_catch(true, true));
    let e = messages(&itanium_multi_catch(false, true));
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(e[0].contains("with the typeid of @_ZTIi, which the landing pad does not list"));
    assert!(e[1].contains("with the typeid of @_ZTIf, which the landing pad does not list"));
}

#[test]
fn itanium_needs_a_personality() {
    assert_only(
        &itanium_multi_catch(true, false),
        "@someFunc has landing pads but no personality routine",
    );
}

#[test]
fn itanium_unwind_destinations_begin_with_a_landing_pad() {
    let mut m = itanium_multi_catch(true, true);
    let id = m.function_named("someFunc").unwrap();
    let f = &mut m.functions[id];
    let blocks: Vec<Block> = f.layout.blocks(f.body.unwrap()).collect();
    // Retarget the try_call's unwind edge to ^bb8 (a plain return block).
    let tc = f.layout.last_op(blocks[0]).unwrap();
    let unwind = f.dfg.successors(tc)[1];
    f.dfg.set_successor(unwind, blocks[8], &[]);
    let e = messages(&m);
    assert!(
        e.iter().any(|x| x.contains(
            "the unwind destination ^bb8 of 'cir.try_call' must begin with 'cir.eh.inflight_exception'"
        )),
        "{e:#?}"
    );
    assert!(
        e.iter().any(|x| x.contains("'cir.eh.inflight_exception' must be in the unwind destination of a 'cir.try_call', but no edge reaches ^bb2")),
        "{e:#?}"
    );
}

/// Listing 34's defect: `^bb5` forwards the landing-pad values of `^bb3`, which does not
/// dominate it.
#[test]
fn itanium_landing_pad_values_must_dominate_their_uses() {
    for defect in [false, true] {
        let mut m = Module::new();
        let c = t(&m);
        let g = declare(&mut m, "g", &[], None);
        let gxx = m.ctx.sym("__gxx_personality_v0");
        let mut f = define(&mut m, "someFunc", &[], None, Phase::Itanium);
        f.personality = Some(gxx);
        let body = f.body.unwrap();
        let entry = f.entry_block().unwrap();
        let null_clause =
            f.dfg
                .make_extra(ExtraData::LandingPadClauses(vec![LandingPadClause::Catch(
                    None,
                )]));
        let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
        let bb: Vec<Block> = (1..=5).map(|_| cur.append_block(body)).collect();
        let [bb1, bb2, bb3, bb4, bb5] = bb[..] else {
            unreachable!()
        };
        let q0 = cur.func.dfg.append_block_param(bb5, c.void_ptr);
        let q1 = cur.func.dfg.append_block_param(bb5, c.u32);
        cur.goto_end(entry);
        cur.build(try_call(g), &[], &[], &[(bb1, &[]), (bb2, &[])], 0);
        cur.goto_end(bb1);
        cur.build(try_call(g), &[], &[], &[(bb4, &[]), (bb3, &[])], 0);
        cur.goto_end(bb2);
        let lp1 = cur.build(
            OpKind::EhLandingPad {
                cleanup: false,
                clauses: null_clause,
            },
            &[],
            &[c.void_ptr, c.u32],
            &[],
            0,
        );
        let (e1, s1) = (cur.func.dfg.results(lp1)[0], cur.func.dfg.results(lp1)[1]);
        cur.build(OpKind::Br, &[], &[], &[(bb5, &[e1, s1])], 0);
        cur.goto_end(bb3);
        let lp2 = cur.build(
            OpKind::EhLandingPad {
                cleanup: true,
                clauses: null_clause,
            },
            &[],
            &[c.void_ptr, c.u32],
            &[],
            0,
        );
        let (e2, s2) = (cur.func.dfg.results(lp2)[0], cur.func.dfg.results(lp2)[1]);
        let forwarded: [Value; 2] = if defect { [e1, s1] } else { [e2, s2] };
        cur.build(OpKind::Br, &[], &[], &[(bb5, &forwarded)], 0);
        cur.goto_end(bb4);
        cur.build(OpKind::Return, &[], &[], &[], 0);
        cur.goto_end(bb5);
        cur.build(OpKind::ResumeFlat, &[q0, q1], &[], &[], 0);
        m.add_function(f);
        if defect {
            let e = messages(&m);
            assert_eq!(e.len(), 2, "{e:#?}");
            assert!(
                e[0].contains("argument #0 of successor #0 of 'cir.br' does not dominate this use")
            );
            assert!(
                e[1].contains("argument #1 of successor #0 of 'cir.br' does not dominate this use")
            );
        } else {
            assert_ok(&m);
        }
    }
}

// ---- MSVC -----------------------------------------------------------------------------------------

/// Knobs for the MSVC try/catch-with-cleanup function (listing 38, corrected).
#[derive(Default, Clone, Copy)]
struct MsvcKnobs {
    /// The first try_call unwinds to the plain return block.
    unwind_to_plain_block: bool,
    /// The cleanup pad ends with a catchret from its cleanuppad token.
    catchret_from_cleanup: bool,
    /// The catchswitch handler block starts with a call.
    handler_without_catchpad: bool,
    /// The cleanup pad ends with `cir.return`.
    return_in_cleanup: bool,
    /// The cleanupret unwinds to its own cleanuppad.
    cleanupret_to_itself: bool,
    /// The catchswitch unwinds to the cleanuppad, which unwinds back to it.
    cycle: bool,
    /// The cleanuppad block is also reached by a normal branch.
    branch_into_pad: bool,
}

fn msvc_seed(k: MsvcKnobs) -> Module {
    let mut m = Module::new();
    let c = t(&m);
    let rec_sym = m.ctx.sym("rec_SomeClass");
    let rec = m.ctx.types.record(rec_sym);
    let rec_ptr = m.ctx.types.ptr(rec);
    let ctor = declare(&mut m, "_ZN9SomeClassC1Ev", &[rec_ptr], None);
    let work = declare(&mut m, "_ZN9SomeClass11doSomethingEv", &[rec_ptr], None);
    let dtor = declare(&mut m, "_ZN9SomeClassD1Ev", &[rec_ptr], None);
    let personality = m.ctx.sym("__CxxFrameHandler3");
    let alloca_kind = alloca(&mut m, rec);
    let mut f = define(&mut m, "someFunc", &[], None, Phase::Msvc);
    f.personality = Some(personality);
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let bb: Vec<Block> = (1..=6).map(|_| cur.append_block(body)).collect();
    let [bb1, bb2, bb3, bb4, bb5, bb6] = bb[..] else {
        unreachable!()
    };
    cur.goto_end(entry);
    let obj = cur.build_value(alloca_kind, &[], rec_ptr);
    let first_unwind = if k.unwind_to_plain_block { bb6 } else { bb4 };
    cur.build(
        try_call(ctor),
        &[obj],
        &[],
        &[(bb1, &[]), (first_unwind, &[])],
        0,
    );
    cur.goto_end(bb1);
    cur.build(try_call(work), &[obj], &[], &[(bb2, &[]), (bb3, &[])], 0);
    cur.goto_end(bb2);
    cur.build(nothrow_call(dtor), &[obj], &[], &[], 0);
    let to = if k.branch_into_pad { bb3 } else { bb6 };
    cur.build(OpKind::Br, &[], &[], &[(to, &[])], 0);
    // ^bb3: cleanup pad.
    cur.goto_end(bb3);
    let cleanup_op = cur.build(OpKind::CleanupPad, &[], &[c.cleanup_token], &[], 0);
    let cleanup = cur.func.dfg.result(cleanup_op);
    cur.build(nothrow_call(dtor), &[obj], &[], &[], 0);
    if k.return_in_cleanup {
        cur.build(OpKind::Return, &[], &[], &[], 0);
    } else if k.catchret_from_cleanup {
        cur.build(OpKind::CatchRet, &[cleanup], &[], &[(bb6, &[])], 0);
    } else {
        let dest = if k.cleanupret_to_itself { bb3 } else { bb4 };
        cur.build(OpKind::CleanupRet, &[cleanup], &[], &[(dest, &[])], 0);
    }
    // ^bb4: catch dispatch.
    cur.goto_end(bb4);
    let (switch_kind, switch_succs): (OpKind, Vec<(Block, &[Value])>) = if k.cycle {
        (
            OpKind::CatchSwitch {
                unwind_to_caller: false,
            },
            vec![(bb5, &[]), (bb3, &[])],
        )
    } else {
        (
            OpKind::CatchSwitch {
                unwind_to_caller: true,
            },
            vec![(bb5, &[])],
        )
    };
    let switch_op = cur.build(switch_kind, &[], &[c.eh_token], &switch_succs, 0);
    let switch = cur.func.dfg.result(switch_op);
    // ^bb5: catch-all handler.
    cur.goto_end(bb5);
    let catch = if k.handler_without_catchpad {
        cur.build(nothrow_call(dtor), &[obj], &[], &[], 0);
        None
    } else {
        Some(cur.build_value(
            OpKind::CatchPad {
                type_desc: PackedOption::default(),
                adjectives: 64,
                has_slot: false,
            },
            &[switch],
            c.catch_token,
        ))
    };
    match catch {
        Some(token) => {
            cur.build(OpKind::CatchRet, &[token], &[], &[(bb6, &[])], 0);
        }
        None => {
            cur.build(OpKind::Unreachable, &[], &[], &[], 0);
        }
    }
    cur.goto_end(bb6);
    cur.build(OpKind::Return, &[], &[], &[], 0);
    m.add_function(f);
    m
}

#[test]
fn msvc_seed_listing_verifies() {
    assert_ok(&msvc_seed(MsvcKnobs::default()));
}

#[test]
fn msvc_unwind_destinations_are_pads() {
    assert_only(
        &msvc_seed(MsvcKnobs {
            unwind_to_plain_block: true,
            ..Default::default()
        }),
        "the unwind destination ^bb6 of 'cir.try_call' must begin with 'cir.catchswitch' or 'cir.cleanuppad'",
    );
}

#[test]
fn msvc_pad_rules() {
    assert_only(
        &msvc_seed(MsvcKnobs {
            catchret_from_cleanup: true,
            ..Default::default()
        }),
        "the token of 'cir.catchret' has type !cir.cleanup_token, but must be !cir.catch_token",
    );
    assert_only(
        &msvc_seed(MsvcKnobs {
            handler_without_catchpad: true,
            ..Default::default()
        }),
        "the handler ^bb5 of 'cir.catchswitch' must begin with a 'cir.catchpad' within this catchswitch",
    );
    assert_only(
        &msvc_seed(MsvcKnobs {
            return_in_cleanup: true,
            ..Default::default()
        }),
        "'cir.return' cannot leave a funclet",
    );
    assert_only(
        &msvc_seed(MsvcKnobs {
            branch_into_pad: true,
            ..Default::default()
        }),
        "^bb3 begins with 'cir.cleanuppad', so only unwind edges may reach it",
    );
}

#[test]
fn msvc_funclet_transitions() {
    assert_only(
        &msvc_seed(MsvcKnobs {
            cleanupret_to_itself: true,
            ..Default::default()
        }),
        "'cir.cleanupret' unwinds to ^bb3, whose pad it is inside: an EH pad cannot handle exceptions raised within it",
    );
    assert_only(
        &msvc_seed(MsvcKnobs {
            cycle: true,
            ..Default::default()
        }),
        "EH pads unwind to each other in a cycle",
    );
}

/// After `catchret` the code is the function's own again: an unwind edge from there may
/// not enter a pad nested in the catchpad it returned from.
#[test]
fn msvc_unwind_edges_enter_a_child_of_their_funclet() {
    for nested in [false, true] {
        let mut m = Module::new();
        let c = t(&m);
        let g = declare(&mut m, "g", &[], None);
        let personality = m.ctx.sym("__CxxFrameHandler3");
        let mut f = define(&mut m, "f", &[], None, Phase::Msvc);
        f.personality = Some(personality);
        let body = f.body.unwrap();
        let entry = f.entry_block().unwrap();
        let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
        let bb: Vec<Block> = (1..=5).map(|_| cur.append_block(body)).collect();
        let [dispatch, handler, after, inner, done] = bb[..] else {
            unreachable!()
        };
        cur.goto_end(entry);
        cur.build(try_call(g), &[], &[], &[(done, &[]), (dispatch, &[])], 0);
        cur.goto_end(dispatch);
        let cs = cur.build(
            OpKind::CatchSwitch {
                unwind_to_caller: true,
            },
            &[],
            &[c.eh_token],
            &[(handler, &[])],
            0,
        );
        let cs = cur.func.dfg.result(cs);
        cur.goto_end(handler);
        let pad = cur.build_value(
            OpKind::CatchPad {
                type_desc: PackedOption::default(),
                adjectives: 64,
                has_slot: false,
            },
            &[cs],
            c.catch_token,
        );
        cur.build(OpKind::CatchRet, &[pad], &[], &[(after, &[])], 0);
        cur.goto_end(after);
        cur.build(try_call(g), &[], &[], &[(done, &[]), (inner, &[])], 0);
        cur.goto_end(inner);
        let parent: &[Value] = if nested { &[pad] } else { &[] };
        let cleanup = cur.build_value(OpKind::CleanupPad, parent, c.cleanup_token);
        cur.build(OpKind::CleanupRet, &[cleanup], &[], &[], 0);
        cur.goto_end(done);
        cur.build(OpKind::Return, &[], &[], &[], 0);
        m.add_function(f);
        if nested {
            assert_only(
                &m,
                "the unwind edge of 'cir.try_call' enters ^bb4, whose pad's parent is not a funclet this edge unwinds out of",
            );
        } else {
            assert_ok(&m);
        }
    }
}

/// A catchpad whose body try_calls unwind to two different cleanup pads: every exit of a
/// pad must share one destination.
#[test]
fn msvc_pad_exits_share_one_destination() {
    for same in [true, false] {
        let mut m = Module::new();
        let c = t(&m);
        let g = declare(&mut m, "g", &[], None);
        let personality = m.ctx.sym("__CxxFrameHandler3");
        let mut f = define(&mut m, "f", &[], None, Phase::Msvc);
        f.personality = Some(personality);
        let body = f.body.unwrap();
        let entry = f.entry_block().unwrap();
        let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
        let bb: Vec<Block> = (1..=7).map(|_| cur.append_block(body)).collect();
        let [bb1, bb2, bb3, bb4, bb5, bb6, bb7] = bb[..] else {
            unreachable!()
        };
        cur.goto_end(entry);
        cur.build(try_call(g), &[], &[], &[(bb7, &[]), (bb1, &[])], 0);
        // ^bb1: catchswitch within none [^bb2] unwind to ^bb5
        cur.goto_end(bb1);
        let cs = cur.build(
            OpKind::CatchSwitch {
                unwind_to_caller: false,
            },
            &[],
            &[c.eh_token],
            &[(bb2, &[]), (bb5, &[])],
            0,
        );
        let cs = cur.func.dfg.result(cs);
        // ^bb2: catchpad; try_call g -> ^bb3, unwind ^bb5
        cur.goto_end(bb2);
        let pad = cur.build_value(
            OpKind::CatchPad {
                type_desc: PackedOption::default(),
                adjectives: 64,
                has_slot: false,
            },
            &[cs],
            c.catch_token,
        );
        cur.build(try_call(g), &[], &[], &[(bb3, &[]), (bb5, &[])], 0);
        // ^bb3: try_call g -> ^bb4, unwind ^bb5 or ^bb6
        cur.goto_end(bb3);
        let second = if same { bb5 } else { bb6 };
        cur.build(try_call(g), &[], &[], &[(bb4, &[]), (second, &[])], 0);
        cur.goto_end(bb4);
        cur.build(OpKind::CatchRet, &[pad], &[], &[(bb7, &[])], 0);
        for b in [bb5, bb6] {
            cur.goto_end(b);
            let cp = cur.build_value(OpKind::CleanupPad, &[], c.cleanup_token);
            cur.build(OpKind::CleanupRet, &[cp], &[], &[], 0);
        }
        cur.goto_end(bb7);
        cur.build(OpKind::Return, &[], &[], &[], 0);
        m.add_function(f);
        if same {
            assert_ok(&m);
        } else {
            let e = messages(&m);
            assert_eq!(e.len(), 2, "{e:#?}");
            // Both the catchpad and its catchswitch are exited towards two places.
            assert!(
                e.iter().all(|x| x.contains(
                    "'cir.try_call' unwinds to ^bb6 out of the pad defined here, but another exit of that pad unwinds to ^bb5"
                )),
                "{e:#?}"
            );
        }
    }
}

#[test]
fn msvc_blocks_belong_to_one_funclet() {
    // The cleanup pad branches (via a shared block) to the same block the normal path uses.
    let mut m = msvc_seed(MsvcKnobs::default());
    let id = m.function_named("someFunc").unwrap();
    let f = &mut m.functions[id];
    let blocks: Vec<Block> = f.layout.blocks(f.body.unwrap()).collect();
    let (bb3, bb6) = (blocks[3], blocks[6]);
    // Replace the cleanupret of ^bb3 by a branch to ^bb6 (the function's own code).
    let ret = f.layout.last_op(bb3).unwrap();
    f.layout.remove_op(ret);
    let br = f
        .dfg
        .make_op(OpKind::Br, &[], &[], &[(bb6, &[])], 0, Loc::NONE);
    f.layout.append_op(br, bb3);
    let e = messages(&m);
    assert!(
        e.iter().any(
            |x| x.contains("^bb6 belongs to 2 funclets; each block must belong to exactly one")
        ),
        "{e:#?}"
    );
}

// ---- robustness ---------------------------------------------------------------------------------

#[test]
fn ten_thousand_nested_regions_do_not_overflow() {
    const DEPTH: usize = 10_000;
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 1, s32);
        let outer = cur.build_value(k, &[], s32);
        let mut scopes = Vec::with_capacity(DEPTH);
        for _ in 0..DEPTH {
            let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
            let b = cur.entry_blocks(s)[0];
            scopes.push((s, b));
            cur.goto_end(b);
        }
        // The innermost scope uses the outermost value.
        cur.build(
            OpKind::Binary(BinaryOp::Add),
            &[outer, outer],
            &[s32],
            &[],
            0,
        );
        for &(s, b) in scopes.iter().rev() {
            cur.goto_end(b);
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_after(s);
        }
        cur.build(OpKind::Return, &[outer], &[], &[], 0);
    });
    // Run on a small stack to prove nothing recurses per nesting level.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || messages(&m))
        .unwrap();
    let e = handle
        .join()
        .expect("the verifier must not overflow the stack");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn layout_cycles_are_reported_not_followed() {
    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 1, s32);
        let op = cur.build(k, &[], &[s32], &[], 0);
        let v = cur.func.dfg.result(op);
        cur.build(OpKind::Return, &[v], &[], &[], 0);
        // Link the const before itself: its `next` now points at itself.
        cur.func.layout.insert_op_before(op, op);
    });
    assert_has(&m, "op is listed twice in the layout");
}

#[test]
fn badly_broken_ir_is_reported_without_panicking() {
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let mut other = define(&mut m, "other", &[s32; 8], None, Phase::Flat);
    let other_entry = other.entry_block().unwrap();
    let foreign = other.dfg.block_params(other_entry)[7];
    {
        let mut cur = FuncCursor::new(&mut other, m.ctx.types.common());
        cur.goto_end(other_entry);
        cur.build(OpKind::Return, &[], &[], &[], 0);
    }
    m.add_function(other);
    let mut f = define(&mut m, "f", &[], Some(s32), Phase::Flat);
    let body = f.body.unwrap();
    let entry = f.entry_block().unwrap();
    let bogus_extra = Extra::from_u32(999);
    let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
    let empty = cur.append_block(body);
    cur.goto_end(entry);
    // A dispatch with a missing key list, a foreign operand, and a successor to a block
    // that exists only in another function's numbering.
    let ghost = Block::from_u32(500);
    cur.build(
        OpKind::EhDispatch { keys: bogus_extra },
        &[foreign],
        &[],
        &[(empty, &[foreign]), (ghost, &[])],
        0,
    );
    // A region on an op of a flat function, with no blocks.
    let region_op = cur
        .func
        .dfg
        .make_op(OpKind::Scope, &[], &[], &[], 1, Loc::NONE);
    cur.func.layout.append_op(region_op, empty);
    // A switch.flat without cases.
    cur.func.layout.append_op(
        cur.func.dfg.make_op(
            OpKind::SwitchFlat { cases: bogus_extra },
            &[foreign],
            &[],
            &[(entry, &[])],
            0,
            Loc::NONE,
        ),
        empty,
    );
    m.add_function(f);
    let e = messages(&m);
    assert!(e.len() >= 6, "{e:#?}");
    assert!(
        e.iter()
            .any(|x| x.contains("'cir.eh.dispatch' has no key list"))
    );
    assert!(
        e.iter()
            .any(|x| x.contains("is not a block of this function"))
    );
    assert!(
        e.iter()
            .any(|x| x.contains("is not a value defined in this function"))
    );
    assert!(
        e.iter()
            .any(|x| x.contains("'cir.scope' is not allowed in a flat function"))
    );
    assert!(
        e.iter()
            .any(|x| x.contains("region #0 of 'cir.scope' has no blocks"))
    );
    assert!(
        e.iter()
            .any(|x| x.contains("'cir.switch.flat' has no case list"))
    );
}

/// Dominance on random CFGs against a naive fixpoint: a value defined in block `a` may be
/// used in block `b` exactly when `a` dominates `b` (or `b` is unreachable).
#[test]
fn dominance_matches_a_naive_computation_on_random_cfgs() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound as u64) as usize
    };
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..60 {
        let n = 2 + next(9);
        // succs[i]: one or two targets among blocks 1..n (never the entry).
        let succs: Vec<Vec<usize>> = (0..n)
            .map(|_| match next(4) {
                0 => vec![],
                1 => vec![1 + next(n - 1)],
                _ => vec![1 + next(n - 1), 1 + next(n - 1)],
            })
            .collect();
        // Naive dominator sets.
        let mut reach = vec![false; n];
        reach[0] = true;
        let mut stack = vec![0];
        while let Some(b) = stack.pop() {
            for &s in &succs[b] {
                if !reach[s] {
                    reach[s] = true;
                    stack.push(s);
                }
            }
        }
        let mut dom: Vec<Vec<bool>> = (0..n)
            .map(|b| (0..n).map(|a| if b == 0 { a == 0 } else { true }).collect())
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                if !reach[b] {
                    continue;
                }
                let mut new: Vec<bool> = vec![true; n];
                for p in 0..n {
                    if reach[p] && succs[p].contains(&b) {
                        for a in 0..n {
                            new[a] &= dom[p][a];
                        }
                    }
                }
                new[b] = true;
                if new != dom[b] {
                    dom[b] = new;
                    changed = true;
                }
            }
        }
        for def in 0..n {
            for user in 0..n {
                let mut m = Module::new();
                let s32 = t(&m).s32;
                let bool_ty = t(&m).bool;
                let k = int_const(&mut m, 1, s32);
                let kb = bool_const(&mut m, true);
                let mut f = define(&mut m, "f", &[], None, Phase::Flat);
                let body = f.body.unwrap();
                let entry = f.entry_block().unwrap();
                let mut cur = FuncCursor::new(&mut f, m.ctx.types.common());
                let mut blocks = vec![entry];
                for _ in 1..n {
                    blocks.push(cur.append_block(body));
                }
                // Define the value first in `def`, use it at the end of `user`.
                cur.goto_end(blocks[def]);
                let v = cur.build_value(k, &[], s32);
                for (b, targets) in succs.iter().enumerate() {
                    cur.goto_end(blocks[b]);
                    if b == user {
                        cur.build(OpKind::Binary(BinaryOp::Add), &[v, v], &[s32], &[], 0);
                    }
                    match targets[..] {
                        [] => {
                            cur.build(OpKind::Return, &[], &[], &[], 0);
                        }
                        [x] => {
                            cur.build(OpKind::Br, &[], &[], &[(blocks[x], &[])], 0);
                        }
                        [x, y] => {
                            let c = cur.build_value(kb, &[], bool_ty);
                            cur.build(
                                OpKind::BrCond,
                                &[c],
                                &[],
                                &[(blocks[x], &[]), (blocks[y], &[])],
                                0,
                            );
                        }
                        _ => unreachable!(),
                    }
                }
                m.add_function(f);
                let e = messages(&m);
                let expect_ok = !reach[user] || dom[user][def];
                if expect_ok {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
                assert_eq!(
                    e.is_empty(),
                    expect_ok,
                    "succs {succs:?}, def ^bb{def}, use ^bb{user}: {e:#?}"
                );
            }
        }
    }
    // Both outcomes occur, so the comparison means something.
    assert!(
        accepted > 100 && rejected > 100,
        "{accepted} accepted, {rejected} rejected"
    );
}

/// A value of one arm of a `cir.if` is not visible in the other arm, nor in regions nested
/// in the other arm.
#[test]
fn values_of_sibling_regions_are_not_visible() {
    for nested in [false, true] {
        let m = simple(|m, cur, _| {
            let s32 = t(m).s32;
            let bool_ty = t(m).bool;
            let kb = bool_const(m, true);
            let c = cur.build_value(kb, &[], bool_ty);
            let op = cur.build(OpKind::If, &[c], &[], &[], 2);
            let blocks = cur.entry_blocks(op);
            cur.goto_end(blocks[0]);
            let k = int_const(m, 1, s32);
            let v = cur.build_value(k, &[], s32);
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_end(blocks[1]);
            if nested {
                let s = cur.build(OpKind::Scope, &[], &[], &[], 1);
                let inner = cur.entry_blocks(s)[0];
                cur.goto_end(inner);
                cur.build(OpKind::Binary(BinaryOp::Add), &[v, v], &[s32], &[], 0);
                cur.build(OpKind::Yield, &[], &[], &[], 0);
                cur.goto_after(s);
            } else {
                cur.build(OpKind::Binary(BinaryOp::Add), &[v, v], &[s32], &[], 0);
            }
            cur.build(OpKind::Yield, &[], &[], &[], 0);
            cur.goto_after(op);
            let z = cur.build_value(k, &[], s32);
            cur.build(OpKind::Return, &[z], &[], &[], 0);
        });
        let e = messages(&m);
        assert_eq!(e.len(), 2, "{e:#?}");
        assert!(
            e.iter()
                .all(|x| x.contains("is defined in a region that does not enclose this use")),
            "{e:#?}"
        );
    }
}

/// Adds an external, mutable global `name` of type `ty` initialized with `init`.
fn add_global(m: &mut Module, name: Symbol, ty: Type, init: Attr) {
    m.add_global(Global {
        name,
        ty,
        init: Some(init),
        constant: false,
        linkage: Linkage::External,
        private_visibility: false,
        align: None,
        loc: Loc::NONE,
    });
}

#[test]
fn trailing_zeros_need_an_array_type() {
    // The reader refuses `trailing_zeros` on a non-array type; a library-built one is
    // the verifier's to refuse.
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let name = m.ctx.sym("h");
    let one = m.ctx.attrs.intern(AttrData::Int { value: 1, ty: s32 });
    let init = m.ctx.attrs.intern(AttrData::ConstArray {
        elements: ConstArrayElements::Attrs(vec![one]),
        ty: s32,
        trailing_zeros: true,
    });
    add_global(&mut m, name, s32, init);
    assert_only(
        &m,
        "the initialiser of @h: a constant with trailing zeros cannot initialize !s32i",
    );
}

#[test]
fn integer_constants_fit_their_type() {
    // What `ehir opt x.cpp` printed for `int g = 18446744073709551615;` before the front
    // end converted the constant: the verifier must reject it, since the reader does.
    let mut m = Module::new();
    let s32 = t(&m).s32;
    let u8 = t(&m).u8;
    let name = m.ctx.sym("g");
    let too_big = m.ctx.attrs.intern(AttrData::Int {
        value: 18446744073709551615,
        ty: s32,
    });
    add_global(&mut m, name, s32, too_big);
    assert_only(
        &m,
        "the initialiser of @g: integer 18446744073709551615 does not fit in !s32i \
         (-2147483648 to 2147483647)",
    );

    let m = simple(|m, cur, _| {
        let s32 = t(m).s32;
        let k = int_const(m, 256, u8);
        cur.build_value(k, &[], u8);
        let k = int_const(m, -2147483648, s32);
        let v = cur.build_value(k, &[], s32);
        cur.build(OpKind::Return, &[v], &[], &[], 0);
    });
    assert_only(
        &m,
        "the attribute of 'cir.const': integer 256 does not fit in !u8i (0 to 255)",
    );
}
