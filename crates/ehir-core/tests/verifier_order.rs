//! The order of verifier diagnostics: source order, and at one location (or among
//! unlocated diagnostics) the order of the rule families as the verifier documents them,
//! whatever the order of the ops that broke them. The verifier checks every op once with
//! all per-op rules; this pins the order that checking rule by rule used to give.

use ehir_core::verifier::verify_module;
use ehir_core::*;

/// `@f() -> !s32i` whose entry block holds `ops` (created with `locs`), then a return.
fn module_with(ops: &[(OpKind, usize, Loc)]) -> Module {
    let mut m = Module::new();
    let s32 = m.ctx.types.common().s32;
    let name = m.ctx.sym("f");
    let sig = m.ctx.types.func(Vec::new(), Some(s32), false);
    let mut f = Function::new_definition(name, sig, &[]);
    f.loc = Loc(0);
    let entry = f.entry_block().unwrap();
    for &(kind, regions, loc) in ops {
        let op = f.dfg.make_op(kind, &[], &[], &[], regions, loc);
        f.layout.append_op(op, entry);
        // Give every region a terminated block so that only the intended rules break.
        for &r in f.dfg.regions(op).to_vec().iter() {
            let b = f.dfg.make_block();
            f.layout.append_block(r, b);
            let y = f.dfg.make_op(OpKind::Yield, &[], &[], &[], 0, loc);
            f.layout.append_op(y, b);
        }
    }
    let value = m.ctx.attrs.intern(AttrData::Int { value: 0, ty: s32 });
    let c = f
        .dfg
        .make_op(OpKind::Const { value }, &[], &[s32], &[], 0, Loc(1));
    f.layout.append_op(c, entry);
    let v = f.dfg.result(c);
    let r = f.dfg.make_op(OpKind::Return, &[v], &[], &[], 0, Loc(2));
    f.layout.append_op(r, entry);
    m.add_function(f);
    m
}

fn messages(m: &Module) -> Vec<String> {
    match verify_module(m) {
        Ok(()) => Vec::new(),
        Err(d) => d.0.into_iter().map(|d| d.message).collect(),
    }
}

#[test]
fn unlocated_errors_follow_the_rule_order_not_the_op_order() {
    let load = OpKind::Load {
        align: 0,
        volatile: false,
    };
    // The load (first) breaks type rules; the scope (second) has no region and the
    // unreachable (third) has one and is not last: region counts come before terminator
    // placement, which comes before types.
    let m = module_with(&[
        (load, 0, Loc::NONE),
        (OpKind::Scope, 0, Loc::NONE),
        (OpKind::Unreachable, 1, Loc::NONE),
    ]);
    let e = messages(&m);
    let at = |needle: &str| {
        e.iter()
            .position(|x| x.contains(needle))
            .unwrap_or_else(|| panic!("no error containing {needle:?} in {e:#?}"))
    };
    let scope_regions = at("'cir.scope' must have 1 region(s), but has 0");
    let unreachable_regions = at("'cir.unreachable' cannot have regions");
    let unreachable_terminator = at("terminator 'cir.unreachable' must be the last op");
    let load_operands = at("'cir.load' takes 1 operand(s), but has 0");
    // Region counts (in op order), then terminator placement, then types.
    assert!(scope_regions < unreachable_regions, "{e:#?}");
    assert!(unreachable_regions < unreachable_terminator, "{e:#?}");
    assert!(unreachable_terminator < load_operands, "{e:#?}");
}

#[test]
fn located_errors_come_in_source_order() {
    let load = OpKind::Load {
        align: 0,
        volatile: false,
    };
    let m = module_with(&[(OpKind::Scope, 0, Loc(20)), (load, 0, Loc(10))]);
    let e = messages(&m);
    assert_eq!(e.len(), 3, "{e:#?}");
    assert!(e[0].contains("'cir.load' takes 1 operand(s)"), "{e:#?}");
    assert!(e[1].contains("'cir.load' has 1 result(s)"), "{e:#?}");
    assert!(e[2].contains("'cir.scope' must have 1 region(s)"), "{e:#?}");
}
