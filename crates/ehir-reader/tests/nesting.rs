//! Deep nesting: 10,000 nested `cir.scope`s parse (and print) on a thread with the default
//! 2 MiB stack, because regions are parsed with an explicit stack, not by recursion.

use ehir_core::printer;

fn nested_scopes(depth: usize) -> String {
    let mut text = String::from("cir.func @deep() {\n");
    for _ in 0..depth {
        text.push_str("cir.scope {\n");
    }
    text.push_str("%0 = cir.const #cir.int<1> : !s32i\n");
    for _ in 0..depth {
        text.push_str("}\n");
    }
    text.push_str("cir.return\n}\n");
    text
}

#[test]
fn ten_thousand_nested_scopes_on_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let depth = 10_000;
            let text = nested_scopes(depth);
            let module = ehir_reader::parse_module("deep.cir", &text).expect("parses");
            let f = &module.functions[module.function_named("deep").expect("deep")];
            // depth scopes + const + depth implicit yields + return
            assert_eq!(f.walk_ops().len(), 2 * depth + 2);
        })
        .expect("spawn");
    handle.join().expect("no stack overflow");
}

#[test]
fn deep_nesting_round_trips() {
    // The printed form indents by depth (quadratic size), so this uses 1,000 levels.
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let text = nested_scopes(1_000);
            let module = ehir_reader::parse_module("deep.cir", &text).expect("parses");
            let printed = printer::module_to_string(&module);
            let again = ehir_reader::parse_module("printed.cir", &printed).expect("reparses");
            assert_eq!(printer::module_to_string(&again), printed);
            printed.lines().count()
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no stack overflow"), 3 * 1_000 + 4);
}

#[test]
fn unterminated_deep_nesting_is_a_diagnostic() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let text = "cir.func @deep() {\n".to_string() + &"cir.scope {\n".repeat(50_000);
            let d = ehir_reader::parse_module("deep.cir", &text).expect_err("unterminated");
            d.0.len()
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no stack overflow"), 1);
}
