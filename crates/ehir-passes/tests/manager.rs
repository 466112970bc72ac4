//! The pass manager: pipeline parsing, verification after each pass, the phase check,
//! printing after each pass, and `lower_to`.

use ehir_core::{Diagnostics, Module, Phase};
use ehir_passes::{KNOWN_PASSES, Pass, PassError, PassManager, lower_to};
use std::cell::RefCell;
use std::rc::Rc;

const STRUCTURED: &str = "
cir.func @f()
cir.func @g() {
  cir.cleanup.scope {
    cir.call @f() : () -> ()
    cir.yield
  } cleanup all {
    cir.call @f() : () -> ()
    cir.yield
  }
  cir.return
}
";

fn module() -> Module {
    ehir_reader::parse_module("t.cir", STRUCTURED).expect("parses")
}

fn phase_of(m: &Module, name: &str) -> Phase {
    m.functions[m.function_named(name).unwrap()].phase
}

#[test]
fn pipeline_names_are_parsed_in_order() {
    let pm = PassManager::from_pipeline("lowering-prepare, flatten-cfg").unwrap();
    assert_eq!(pm.pass_names(), vec!["lowering-prepare", "flatten-cfg"]);
    let pm = PassManager::from_pipeline("flatten-cfg,eh-abi-lowering=itanium").unwrap();
    assert_eq!(
        pm.pass_names(),
        vec!["flatten-cfg", "eh-abi-lowering=itanium"]
    );
}

#[test]
fn unknown_pass_lists_the_known_ones() {
    let err = PassManager::from_pipeline("lowering-prepare,no-such-pass")
        .err()
        .unwrap();
    let text = err.to_string();
    assert!(text.contains("unknown pass 'no-such-pass'"), "{text}");
    for known in KNOWN_PASSES {
        assert!(text.contains(known), "{text} does not list {known}");
    }
    assert!(matches!(
        PassManager::from_pipeline(""),
        Err(PassError::UnknownPass { .. })
    ));
    assert!(matches!(
        PassManager::from_pipeline("flatten-cfg,"),
        Err(PassError::UnknownPass { .. })
    ));
}

#[test]
fn flatten_changes_the_phase_and_prints_after_each_pass() {
    let mut m = module();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
    let log = seen.clone();
    pm.set_print_after_each(move |name, module| {
        log.borrow_mut().push((
            name.to_string(),
            ehir_core::printer::module_to_string(module),
        ));
    });
    pm.run(&mut m).unwrap();
    assert_eq!(phase_of(&m, "g"), Phase::Flat);
    let seen = seen.borrow();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].0, "lowering-prepare");
    assert!(seen[0].1.contains("cir.cleanup.scope"));
    assert_eq!(seen[1].0, "flatten-cfg");
    assert!(seen[1].1.contains("cir.try_call @f()"));
    assert!(!seen[1].1.contains("cir.cleanup.scope"));
}

/// A pass that breaks the IR: it empties the body of `@g`'s entry block.
struct Breaker;
impl Pass for Breaker {
    fn name(&self) -> &'static str {
        "breaker"
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let id = module.function_named("g").unwrap();
        let f = &mut module.functions[id];
        let entry = f.entry_block().unwrap();
        let ops: Vec<_> = f.layout.ops(entry).collect();
        for op in ops {
            f.layout.remove_op(op);
        }
        Ok(())
    }
}

/// A pass that claims to flatten but does nothing.
struct Liar;
impl Pass for Liar {
    fn name(&self) -> &'static str {
        "liar"
    }
    fn result_phase(&self) -> Option<Phase> {
        Some(Phase::Flat)
    }
    fn run(&self, _: &mut Module) -> Result<(), Diagnostics> {
        Ok(())
    }
}

#[test]
fn broken_ir_after_a_pass_is_reported() {
    let mut m = module();
    let mut pm = PassManager::new();
    pm.add(Box::new(Breaker));
    let err = pm.run(&mut m).unwrap_err();
    assert!(
        matches!(
            err,
            PassError::Verify {
                pass: "breaker",
                ..
            }
        ),
        "{err}"
    );
    assert!(!err.diagnostics().is_empty());
    // Without verification the same pipeline "succeeds".
    let mut m = module();
    let mut pm = PassManager::new();
    pm.add(Box::new(Breaker));
    pm.set_verify_each(false);
    assert!(pm.run(&mut m).is_ok());
}

#[test]
fn a_pass_that_misses_its_phase_is_reported() {
    let mut m = module();
    let mut pm = PassManager::new();
    pm.add(Box::new(Liar));
    let err = pm.run(&mut m).unwrap_err();
    assert!(
        matches!(err, PassError::Phase { pass: "liar", .. }),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("function @g is in phase structured, expected flat"),
        "{err}"
    );
}

#[test]
fn pass_failures_carry_located_diagnostics() {
    let text = "
cir.func @init(!cir.ptr<!s32i>)
cir.func @a(%p: !cir.ptr<!cir.array<!s32i x 2>>) {
  cir.array.ctor(%p : !cir.ptr<!cir.array<!s32i x 2>>) {
  ^bb0(%e: !cir.ptr<!s32i>):
    cir.call @init(%e) : (!cir.ptr<!s32i>) -> ()
    cir.yield
  }
  cir.return
}
";
    let mut m = ehir_reader::parse_module("t.cir", text).unwrap();
    let mut pm = PassManager::from_pipeline("flatten-cfg").unwrap();
    let err = pm.run(&mut m).unwrap_err();
    assert_eq!(err.pass(), Some("flatten-cfg"));
    let diags = err.diagnostics();
    assert_eq!(diags.0.len(), 1);
    let offset = diags.0[0].loc.offset().expect("located");
    assert!(text[offset..].starts_with("cir.array.ctor"));
}

#[test]
fn lower_to_flat_runs_what_is_needed() {
    let mut m = module();
    lower_to(&mut m, Phase::Flat).unwrap();
    assert_eq!(phase_of(&m, "g"), Phase::Flat);
    // Already flat: nothing to do, still fine.
    lower_to(&mut m, Phase::Flat).unwrap();
    // Structured target: nothing to do for a structured module; a flat one cannot go back.
    let mut s = module();
    lower_to(&mut s, Phase::Structured).unwrap();
    assert_eq!(phase_of(&s, "g"), Phase::Structured);
    let err = lower_to(&mut m, Phase::Structured).unwrap_err();
    assert!(
        err.to_string().contains("cannot be lowered to structured"),
        "{err}"
    );
}
