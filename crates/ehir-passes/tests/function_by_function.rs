//! `PassManager::run_function_by_function` gives the result of `PassManager::run`: on
//! every `.cir` file test input and the EH workload, for every pipeline below, on one
//! thread and on two, the function-by-function print is the whole-module print byte for
//! byte when the whole-module run succeeds, and it stops (asking for the whole-module
//! run, which reports the errors) when that run fails.

use ehir_core::Module;
use ehir_passes::function_by_function::print_function_by_function;
use ehir_passes::{FunctionByFunctionError, PassManager};
use std::path::Path;

/// Pipelines of the file tests, and longer ones.
const PIPELINES: &[&str] = &[
    "flatten-cfg",
    "lowering-prepare",
    "canonicalize",
    "simplify-cfg",
    "lowering-prepare,flatten-cfg",
    "flatten-cfg,simplify-cfg",
    "lowering-prepare,flatten-cfg,eh-abi-lowering=itanium",
    "lowering-prepare,flatten-cfg,simplify-cfg,eh-abi-lowering=itanium,simplify-cfg",
    "flatten-cfg,eh-abi-lowering=msvc",
    "flatten-cfg,simplify-cfg,eh-abi-lowering=msvc",
    "eh-abi-lowering=itanium",
    "eh-abi-lowering=msvc",
    "canonicalize,lowering-prepare,flatten-cfg,simplify-cfg",
];

/// The whole-module print after `pipeline`, or `None` when the run fails.
fn whole_module(module: &Module, pipeline: &str) -> Option<Vec<u8>> {
    let mut module = module.clone();
    let mut manager = PassManager::from_pipeline(pipeline).expect("known passes");
    manager.set_verify_input(false);
    manager.run(&mut module).ok()?;
    let mut text = Vec::new();
    ehir_core::printer::print_module(&mut text, &module).expect("prints");
    Some(text)
}

/// The function-by-function print, or `None` when it asks for the whole-module run.
fn function_by_function(module: &Module, pipeline: &str) -> Option<Vec<u8>> {
    let mut module = module.clone();
    let mut manager = PassManager::from_pipeline(pipeline).expect("known passes");
    manager.set_verify_input(false);
    let mut text = Vec::new();
    match print_function_by_function(&manager, &mut module, &mut text) {
        Ok(()) => Some(text),
        Err(FunctionByFunctionError::WholeModuleRunNeeded) => None,
        Err(FunctionByFunctionError::Consumer(e)) => panic!("writing to a Vec failed: {e}"),
    }
}

/// Compares both runs of every pipeline on `module`; returns the runs that succeeded.
fn compare(name: &str, module: &Module, failures: &mut Vec<String>) -> usize {
    let mut succeeded = 0;
    for pipeline in PIPELINES {
        let expected = whole_module(module, pipeline);
        let got = function_by_function(module, pipeline);
        match (&expected, &got) {
            (Some(a), Some(b)) if a == b => succeeded += 1,
            (None, None) => {}
            (Some(_), Some(_)) => failures.push(format!("{name} -p {pipeline}: texts differ")),
            (Some(_), None) => failures.push(format!(
                "{name} -p {pipeline}: the whole-module run succeeds, the function-by-function run stops"
            )),
            (None, Some(_)) => failures.push(format!(
                "{name} -p {pipeline}: the whole-module run fails, the function-by-function run succeeds"
            )),
        }
    }
    succeeded
}

fn compare_all() -> (usize, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = ehir_testgen::cir_files_under(&root.join("tests/filetests"));
    files.extend(ehir_testgen::cir_files_under(&root.join("examples")));
    let mut failures = Vec::new();
    let mut succeeded = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable test file");
        let Ok(module) = ehir_reader::parse_module("x", &text) else {
            continue;
        };
        if ehir_core::verifier::verify_module(&module).is_err() {
            continue;
        }
        succeeded += compare(&file.display().to_string(), &module, &mut failures);
    }
    let (workload, _) = ehir_testgen::eh_workload(40);
    let module = ehir_reader::parse_module("workload", &workload).expect("parses");
    succeeded += compare("eh_workload(40)", &module, &mut failures);
    (succeeded, failures)
}

#[test]
fn function_by_function_prints_what_the_whole_module_run_prints() {
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        let (succeeded, failures) = pool.install(compare_all);
        assert!(
            failures.is_empty(),
            "{threads} thread(s):\n{}",
            failures.join("\n")
        );
        // Most runs succeed: the comparison is not vacuous.
        assert!(
            succeeded > 300,
            "{threads} thread(s): only {succeeded} runs succeeded"
        );
    }
}
