//! The shared analyses of `ehir_core::analysis` on parsed MSVC functions (they live here
//! because ehir-core has no reader): funclet colours, pad parents and reachability.

use ehir_core::analysis::{funclet_colors, pad_of_token, pad_parent, reachable_blocks};
use ehir_core::{Block, Function, Module, Op, OpKind};

/// LLVM's nested-catch example: an inner catchswitch within the outer catchpad, whose
/// catchret returns into the outer funclet; one block nothing reaches.
const NESTED: &str = r#"
cir.func @g()
cir.func @nested_catch() #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @g() ^bb7, ^bb1 : () -> ()
^bb1:
  %0 = cir.catchswitch within none [^bb2] unwind to caller
^bb2:
  %1 = cir.catchpad within %0 [null, 64, null] : !cir.catch_token
  cir.try_call @g() ^bb6, ^bb3 : () -> ()
^bb3:
  %2 = cir.catchswitch within %1 [^bb4] unwind to caller
^bb4:
  %3 = cir.catchpad within %2 [null, 64, null] : !cir.catch_token
  cir.catchret from %3 to ^bb5
^bb5:
  cir.catchret from %1 to ^bb7
^bb6:
  cir.unreachable
^bb7:
  cir.return
^bb8:
  cir.br ^bb7
}
"#;

fn parse(text: &str) -> Module {
    ehir_reader::parse_module("analysis.cir", text).expect("parses")
}

fn body_blocks(func: &Function) -> Vec<Block> {
    func.layout.blocks(func.body.expect("definition")).collect()
}

/// The first op of each block of the body, in block order.
fn first_ops(func: &Function) -> Vec<Option<Op>> {
    body_blocks(func)
        .into_iter()
        .map(|b| func.layout.first_op(b))
        .collect()
}

#[test]
fn nested_catch_colours() {
    let module = parse(NESTED);
    let func = &module.functions[module.function_named("nested_catch").expect("defined")];
    let blocks = body_blocks(func);
    let ops = first_ops(func);
    let pad = |index: usize| ops[index].expect("block has ops");
    let (outer_switch, outer_catch, inner_switch, inner_catch) = (pad(1), pad(2), pad(3), pad(4));
    assert!(matches!(
        func.dfg.kind(outer_switch),
        OpKind::CatchSwitch { .. }
    ));

    assert_eq!(pad_parent(func, outer_switch), None);
    assert_eq!(pad_parent(func, outer_catch), Some(outer_switch));
    assert_eq!(pad_parent(func, inner_switch), Some(outer_catch));
    assert_eq!(pad_parent(func, inner_catch), Some(inner_switch));
    let token = func.dfg.results(inner_catch)[0];
    assert_eq!(pad_of_token(func, token), Some(inner_catch));

    let colors = funclet_colors(func);
    let color_of = |index: usize| colors[blocks[index]].clone();
    assert_eq!(color_of(0), vec![None]);
    // A catchswitch block is its own colour.
    assert_eq!(color_of(1), vec![Some(outer_switch)]);
    assert_eq!(color_of(2), vec![Some(outer_catch)]);
    assert_eq!(color_of(3), vec![Some(inner_switch)]);
    assert_eq!(color_of(4), vec![Some(inner_catch)]);
    // The inner catchret returns into the funclet around the inner catchswitch.
    assert_eq!(color_of(5), vec![Some(outer_catch)]);
    assert_eq!(color_of(6), vec![Some(outer_catch)]);
    // The outer catchret returns to the function's own code.
    assert_eq!(color_of(7), vec![None]);
    // Nothing reaches the last block: no colour.
    assert_eq!(color_of(8), Vec::<Option<Op>>::new());

    let reachable = reachable_blocks(func, blocks[0]);
    let reached: Vec<bool> = blocks.iter().map(|&b| reachable[b]).collect();
    assert_eq!(
        reached,
        [true, true, true, true, true, true, true, true, false]
    );
}

/// A block that the function's own code and a funclet both reach lists both colours,
/// in the order a depth-first walk from the entry reaches it.
#[test]
fn a_shared_block_lists_both_colours() {
    let module = parse(
        r#"
cir.func @f()
cir.func @g() #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @f() ^bb3, ^bb1 : () -> ()
^bb1:
  %0 = cir.catchswitch within none [^bb2] unwind to caller
^bb2:
  %1 = cir.catchpad within %0 [null, 64, null] : !cir.catch_token
  cir.br ^bb3
^bb3:
  cir.call @f() : () -> ()
  cir.return
}
"#,
    );
    let func = &module.functions[module.function_named("g").expect("defined")];
    let blocks = body_blocks(func);
    let catchpad = first_ops(func)[2];
    let colors = funclet_colors(func);
    assert_eq!(colors[blocks[3]], vec![None, catchpad]);
}
