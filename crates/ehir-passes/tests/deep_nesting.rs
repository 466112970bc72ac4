//! Deep nesting: functions nested 10,000 scopes (or 10,000 cleanup scopes) deep flatten
//! and simplify (`flatten-cfg`, `simplify-cfg`) without recursing on the host stack. The passes run on a thread with a 256 KiB stack,
//! far less than 10,000 frames of any recursive walk would need.

use ehir_core::{Module, OpKind, Phase};
use ehir_passes::PassManager;
use ehir_testgen::{deep_cleanups, deep_scopes};

fn flatten_on_small_stack(module: Module) -> Module {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut module = module;
            let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg,simplify-cfg")
                .expect("known passes");
            pm.set_verify_each(false);
            pm.run(&mut module).expect("flattening succeeds");
            module
        })
        .expect("thread starts")
        .join()
        .expect("flattening does not overflow a 256 KiB stack")
}

fn count(module: &Module, func: &str, pred: impl Fn(&OpKind) -> bool) -> usize {
    let f = &module.functions[module.function_named(func).expect("function exists")];
    f.walk_ops()
        .into_iter()
        .filter(|&op| pred(f.dfg.kind(op)))
        .count()
}

#[test]
fn ten_thousand_nested_scopes() {
    let text = deep_scopes(10_000);
    let module = ehir_reader::parse_module("deep.cir", &text).expect("parses");
    let module = flatten_on_small_stack(module);
    let f = &module.functions[module.function_named("deep").unwrap()];
    assert_eq!(f.phase, Phase::Flat);
    assert!(!f.has_nested_regions());
    // The innermost call unwinds through the cleanup, whose destructor call unwinds to
    // terminate: two try_calls, two landing pads.
    assert_eq!(
        count(&module, "deep", |k| matches!(k, OpKind::TryCall { .. })),
        2
    );
    assert_eq!(
        count(&module, "deep", |k| matches!(k, OpKind::EhInitiate { .. })),
        2
    );
    // The blocks of the empty scopes are forwarders that simplify-cfg removes.
    assert!(f.layout.blocks(f.body.unwrap()).count() < 10);
    ehir_core::verifier::verify_module(&module).expect("verifies");
}

#[test]
fn ten_thousand_nested_cleanup_scopes() {
    let text = deep_cleanups(10_000);
    let module = ehir_reader::parse_module("deep.cir", &text).expect("parses");
    let module = flatten_on_small_stack(module);
    let f = &module.functions[module.function_named("deep_cleanups").unwrap()];
    assert_eq!(f.phase, Phase::Flat);
    // Every body call unwinds through its scope's cleanups, and every normal cleanup runs
    // once: 10,001 calls of @ev (all may throw inside a scope), 10,000 normal and 10,000
    // EH calls of @dtor (the EH ones unwind to terminate).
    assert_eq!(
        count(&module, "deep_cleanups", |k| matches!(
            k,
            OpKind::TryCall { .. }
        )),
        10_001 + 10_000 + 10_000 - 1
    );
    assert_eq!(
        count(&module, "deep_cleanups", |k| matches!(
            k,
            OpKind::BeginCleanup
        )),
        10_000
    );
    ehir_core::verifier::verify_module(&module).expect("verifies");
}
