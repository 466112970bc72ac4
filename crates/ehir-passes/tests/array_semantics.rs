//! What the lowered array loops do, run by the interpreter after
//! `lowering-prepare,flatten-cfg`, against what C++ requires (and g++ does): a throwing
//! element constructor destroys exactly the elements constructed before it, in reverse
//! order (nothing when the first one throws); a throwing element destructor still
//! destroys the elements before it.

use ehir_interp::{CallSelector, Event, RunConfig, ThrowSpec};
use ehir_passes::PassManager;

const PROGRAM: &str = "
!rec_S = !cir.record<struct \"S\" {!s32i}>
cir.func @_ZN1SC1Ev(!cir.ptr<!rec_S>)
cir.func @_ZN1SD1Ev(!cir.ptr<!rec_S>)
cir.func @make(%arr: !cir.ptr<!cir.array<!rec_S x 3>>) {
  cir.array.ctor(%arr : !cir.ptr<!cir.array<!rec_S x 3>>) {
  ^bb0(%e: !cir.ptr<!rec_S>):
    cir.call @_ZN1SC1Ev(%e) : (!cir.ptr<!rec_S>) -> ()
    cir.yield
  } cleanup {
  ^bb0(%e: !cir.ptr<!rec_S>):
    cir.call @_ZN1SD1Ev(%e) : (!cir.ptr<!rec_S>) -> ()
    cir.yield
  }
  cir.return
}
cir.func @destroy(%arr: !cir.ptr<!cir.array<!rec_S x 3>>) {
  cir.array.dtor(%arr : !cir.ptr<!cir.array<!rec_S x 3>>) {
  ^bb0(%e: !cir.ptr<!rec_S>):
    cir.call @_ZN1SD1Ev(%e) : (!cir.ptr<!rec_S>) -> ()
    cir.yield
  }
  cir.return
}
";

/// The calls of the flattened `entry` with the n-th call of `callee` throwing, as
/// `callee(arg)` strings, followed by how the run ended.
fn calls(entry: &str, callee: &str, n: u64) -> Vec<String> {
    let mut module = ehir_reader::parse_module("arrays.cir", PROGRAM).expect("parses");
    let mut pm = PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
    pm.run(&mut module).expect("flattens");
    let config = RunConfig {
        entry: Some(entry.to_string()),
        throw_at: vec![ThrowSpec {
            callee: callee.to_string(),
            selector: CallSelector::Nth(n),
            type_name: "int".to_string(),
            value: Some("7".to_string()),
        }],
        ..RunConfig::default()
    };
    let outcome = ehir_interp::run_module(&module, &config).expect("runs");
    assert!(
        outcome.runtime_error.is_none(),
        "{:?}",
        outcome.runtime_error
    );
    outcome
        .trace
        .iter()
        .filter_map(|e| match e {
            Event::Call { callee, args } => {
                let short = if callee.contains("C1") {
                    "ctor"
                } else {
                    "dtor"
                };
                Some(format!("{short}({})", args.join(",")))
            }
            Event::Escape { .. } => Some("escape".to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn first_constructor_throwing_destroys_nothing() {
    assert_eq!(calls("make", "_ZN1SC1Ev", 1), ["ctor(&arg0+0)", "escape"]);
}

#[test]
fn later_constructor_throwing_destroys_the_constructed_ones_in_reverse() {
    assert_eq!(
        calls("make", "_ZN1SC1Ev", 3),
        [
            "ctor(&arg0+0)",
            "ctor(&arg0+4)",
            "ctor(&arg0+8)",
            "dtor(&arg0+4)",
            "dtor(&arg0+0)",
            "escape"
        ]
    );
}

#[test]
fn throwing_destructor_still_destroys_the_rest() {
    // g++: `S a[3]` with ~S throwing for a[1] prints dtor 2, dtor 1, dtor 0.
    assert_eq!(
        calls("destroy", "_ZN1SD1Ev", 2),
        ["dtor(&arg0+8)", "dtor(&arg0+4)", "dtor(&arg0+0)", "escape"]
    );
}
