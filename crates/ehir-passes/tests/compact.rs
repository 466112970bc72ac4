//! `Function::compact` keeps what a function means and drops what its rewrites left
//! behind: on every `.cir` file test input brought through the passes (without the
//! compaction the pass runner does), each function prints the same and still verifies
//! after compacting, and flattened functions get smaller.

use ehir_core::{Module, verifier::verify_module};
use ehir_passes::eh_abi::itanium::declare_runtime_functions;
use ehir_passes::pass_by_name;
use std::path::Path;

const PIPELINES: &[&str] = &[
    "lowering-prepare",
    "canonicalize",
    "lowering-prepare,flatten-cfg",
    "lowering-prepare,flatten-cfg,simplify-cfg,eh-abi-lowering=itanium",
    "flatten-cfg,eh-abi-lowering=msvc",
];

/// `module` through `pipeline`, each pass's step run on every function it applies to
/// without the compaction of the pass manager; `None` when a pass fails or the result
/// does not verify.
fn without_compacting(module: &Module, pipeline: &str) -> Option<Module> {
    let mut module = module.clone();
    for name in pipeline.split(',') {
        let pass = pass_by_name(name).expect("known pass");
        let step = pass.function_step(&module).expect("a function step");
        let Module { ctx, functions, .. } = &mut module;
        for func in functions.values_mut() {
            if step.applies_to(func) {
                (step.body)(ctx, func).ok()?;
            }
        }
        if step.declares_callees {
            declare_runtime_functions(&mut module).ok()?;
        }
        verify_module(&module).ok()?;
    }
    Some(module)
}

/// The functions' op table sizes.
fn op_counts(module: &Module) -> usize {
    module.functions.values().map(|f| f.dfg.ops.len()).sum()
}

#[test]
fn compacting_keeps_the_text_and_drops_dead_entities() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = ehir_testgen::cir_files_under(&root.join("tests/filetests"));
    let (mut compacted, mut before_ops, mut after_ops) = (0, 0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable test file");
        let Ok(module) = ehir_reader::parse_module("x", &text) else {
            continue;
        };
        if verify_module(&module).is_err() {
            continue;
        }
        for pipeline in PIPELINES {
            let Some(lowered) = without_compacting(&module, pipeline) else {
                continue;
            };
            let mut lowered = lowered;
            let printed = ehir_core::printer::module_to_string(&lowered);
            let flattened = pipeline.contains("flatten-cfg");
            if flattened {
                before_ops += op_counts(&lowered);
            }
            for func in lowered.functions.values_mut() {
                func.compact();
            }
            if flattened {
                after_ops += op_counts(&lowered);
            }
            let name = format!("{} -p {pipeline}", file.display());
            assert_eq!(
                ehir_core::printer::module_to_string(&lowered),
                printed,
                "{name}: compacting changed the text"
            );
            if let Err(d) = verify_module(&lowered) {
                panic!("{name}: does not verify after compacting: {d}");
            }
            compacted += 1;
            // Compacting twice changes nothing.
            let once = lowered.clone();
            for func in lowered.functions.values_mut() {
                func.compact();
            }
            assert_eq!(op_counts(&lowered), op_counts(&once), "{name}");
        }
    }
    assert!(compacted > 100, "only {compacted} modules compacted");
    // Flattening and lowering leave at least a third of the ops behind.
    assert!(
        after_ops * 3 < before_ops * 2,
        "compacting kept {after_ops} of {before_ops} ops of flattened functions"
    );
}
