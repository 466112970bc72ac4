//! Temporary smoke test of `eh-abi-lowering=itanium` on hand-built flat IR (the seed's
//! "multiple catch handlers" listing), included by path until ehir-passes wires it in.

#[path = "../../ehir-passes/src/eh_abi/itanium.rs"]
#[allow(dead_code)]
mod itanium;

use ehir_core::{
    AttrData, CallFlags, ExtraData, Function, HandlerKey, Loc, Module, OpKind, Phase, printer,
};

/// Builds `@someFunc`: `f()` may throw; catch int, catch float, catch all.
fn seed_multiple_catches() -> Module {
    let mut m = Module::new();
    let ctx = &mut m.ctx;
    let void_fn = ctx.types.func(vec![], None, false);
    let name = ctx.sym("someFunc");
    let f_sym = ctx.sym("f");
    let ti_i = ctx.sym("_ZTIi");
    let ti_f = ctx.sym("_ZTIf");
    let gv_i = ctx.attrs.intern(AttrData::GlobalView {
        symbol: ti_i,
        indices: vec![],
        ty: None,
    });
    let gv_f = ctx.attrs.intern(AttrData::GlobalView {
        symbol: ti_f,
        indices: vec![],
        ty: None,
    });
    let eh = ctx.types.common().eh_token;
    let ct = ctx.types.common().catch_token;
    let mut func = Function::new_definition(name, void_fn, &[]);
    func.phase = Phase::Flat;
    let body = func.body.unwrap();
    let dfg = &mut func.dfg;
    let bb0 = func.layout.entry_block(body).unwrap();
    let mk = |dfg: &mut ehir_core::DataFlowGraph, layout: &mut ehir_core::Layout| {
        let b = dfg.make_block();
        layout.append_block(body, b);
        b
    };
    let bb1 = mk(dfg, &mut func.layout);
    let bb2 = mk(dfg, &mut func.layout);
    let bb3 = mk(dfg, &mut func.layout);
    let bb4 = mk(dfg, &mut func.layout);
    let bb5 = mk(dfg, &mut func.layout);
    let bb6 = mk(dfg, &mut func.layout);
    let bb7 = mk(dfg, &mut func.layout);
    let t3 = dfg.append_block_param(bb3, eh);
    let t4 = dfg.append_block_param(bb4, eh);
    let t5 = dfg.append_block_param(bb5, eh);
    let t6 = dfg.append_block_param(bb6, eh);
    let op = dfg.make_op(
        OpKind::TryCall {
            callee: f_sym.into(),
            sig: void_fn,
            flags: CallFlags::default(),
        },
        &[],
        &[],
        &[(bb1, &[]), (bb2, &[])],
        0,
        Loc::NONE,
    );
    func.layout.append_op(op, bb0);
    let op = dfg.make_op(OpKind::Br, &[], &[], &[(bb7, &[])], 0, Loc::NONE);
    func.layout.append_op(op, bb1);
    let init = dfg.make_op(OpKind::EhInitiate { cleanup: false }, &[], &[eh], &[], 0, Loc::NONE);
    func.layout.append_op(init, bb2);
    let t = dfg.results(init)[0];
    let op = dfg.make_op(OpKind::Br, &[], &[], &[(bb3, &[t])], 0, Loc::NONE);
    func.layout.append_op(op, bb2);
    let keys = dfg.make_extra(ExtraData::Handlers(vec![
        HandlerKey::Catch(gv_i),
        HandlerKey::Catch(gv_f),
        HandlerKey::CatchAll,
    ]));
    let op = dfg.make_op(
        OpKind::EhDispatch { keys },
        &[t3],
        &[],
        &[(bb4, &[]), (bb5, &[]), (bb6, &[])],
        0,
        Loc::NONE,
    );
    func.layout.append_op(op, bb3);
    for (b, tok) in [(bb4, t4), (bb5, t5), (bb6, t6)] {
        let bc = dfg.make_op(OpKind::BeginCatch, &[tok], &[ct], &[], 0, Loc::NONE);
        func.layout.append_op(bc, b);
        let c = dfg.results(bc)[0];
        let ec = dfg.make_op(OpKind::EndCatch, &[c], &[], &[], 0, Loc::NONE);
        func.layout.append_op(ec, b);
        let br = dfg.make_op(OpKind::Br, &[], &[], &[(bb7, &[])], 0, Loc::NONE);
        func.layout.append_op(br, b);
    }
    let op = dfg.make_op(OpKind::Return, &[], &[], &[], 0, Loc::NONE);
    func.layout.append_op(op, bb7);
    m.add_function(func);
    m
}

#[test]
fn multiple_catches_lower_to_typeid_compares() {
    let mut m = seed_multiple_catches();
    let id = m.function_named("someFunc").unwrap();
    let mut func = m.functions[id].clone();
    itanium::lower_function(&mut m.ctx, &mut func).unwrap();
    m.functions[id] = func;
    let text = printer::module_to_string(&m);
    println!("{text}");
    assert!(text.contains("cir.eh.landingpad [@_ZTIi, @_ZTIf, null]"), "{text}");
    assert!(text.contains("cir.eh.typeid @_ZTIi"), "{text}");
    assert!(text.contains("cir.eh.typeid @_ZTIf"), "{text}");
    assert!(text.contains("#personality_fn = @__gxx_personality_v0"), "{text}");
    assert!(!text.contains("cir.eh.dispatch"), "{text}");
    let ll = ehir_llvm::module_to_llvm_text(&m, "smoke.cir", &Default::default()).unwrap();
    println!("{ll}");
    assert!(ll.contains("landingpad { ptr, i32 }"), "{ll}");
    assert!(ll.contains("catch ptr @_ZTIi"), "{ll}");
    assert!(ll.contains("@llvm.eh.typeid.for.p0(ptr @_ZTIf)"), "{ll}");
}
