//! The printer never panics, whatever module it is given: values, blocks and regions that
//! do not belong to the function (an index from another function, out of range here) are
//! printed as placeholders so that a half-built or corrupted function can still be shown.

use ehir_core::{
    Block, CursorPosition, EntityRef, FuncCursor, Function, Module, OpKind, Value,
    printer::module_to_string,
};

#[test]
fn foreign_entities_print_without_panicking() {
    let mut m = Module::new();
    let sig = m.ctx.types.func(vec![], None, false);
    let name = m.ctx.sym("f");
    let s32 = m.ctx.types.common().s32;
    let mut f = Function::new_definition(name, sig, &[]);
    let entry = f.entry_block().expect("entry block");
    let mut cur = FuncCursor::at(&mut f, m.ctx.types.common(), CursorPosition::End(entry));
    let foreign_value = Value::new(10_000);
    let foreign_block = Block::new(20_000);
    cur.build(
        OpKind::Store {
            align: 0,
            volatile: false,
        },
        &[foreign_value, foreign_value],
        &[],
        &[],
        0,
    );
    cur.build(
        OpKind::Load {
            align: 0,
            volatile: false,
        },
        &[foreign_value],
        &[s32],
        &[],
        0,
    );
    cur.build(
        OpKind::Br,
        &[],
        &[],
        &[(foreign_block, &[foreign_value])],
        0,
    );
    m.add_function(f);
    let text = module_to_string(&m);
    assert!(text.contains("cir.func @f"), "{text}");
    assert!(ehir_core::verifier::verify_module(&m).is_err());
}
