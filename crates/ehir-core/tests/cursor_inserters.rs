//! The cursor's typed inserters make the op layout their `OpKind` variant documents:
//! built ops print as the syntax the inserter's doc comment gives.

use ehir_core::printer::function_to_string;
use ehir_core::*;

/// `@f()` in the flat phase, its entry block holding what `body` builds before a
/// `cir.return`; returns the printed function.
fn built(body: impl FnOnce(&mut ModuleCtx, &mut FuncCursor)) -> String {
    let mut module = Module::new();
    let name = module.ctx.sym("f");
    let sig = module.ctx.types.func(vec![], None, false);
    let mut func = Function::new_definition(name, sig, &[]);
    func.phase = Phase::Flat;
    let types = *module.ctx.types.common();
    let mut cursor = FuncCursor::new(&mut func, &types);
    body(&mut module.ctx, &mut cursor);
    cursor.ret(None);
    function_to_string(&module.ctx, &func)
}

#[test]
fn load_aligned_writes_its_alignment() {
    let text = built(|ctx, cursor| {
        let s32 = ctx.types.common().s32;
        let ptr = ctx.types.ptr(s32);
        let name = ctx.sym("x");
        let slot = cursor.alloca(s32, ptr, name, false, 4);
        cursor.load_aligned(slot, s32, 8);
        cursor.load(slot, s32);
    });
    assert!(text.contains("cir.load align(8) %"), "{text}");
    assert_eq!(text.matches("cir.load").count(), 2, "{text}");
    assert_eq!(text.matches("align(8)").count(), 1, "{text}");
}

#[test]
fn get_global_names_its_symbol() {
    let text = built(|ctx, cursor| {
        let s32 = ctx.types.common().s32;
        let ptr = ctx.types.ptr(s32);
        let global = ctx.sym("counter");
        let address = cursor.get_global(global, ptr);
        let value = cursor.load(address, s32);
        cursor.store(value, address);
    });
    assert!(
        text.contains("cir.get_global @counter : !cir.ptr<!s32i>"),
        "{text}"
    );
}
