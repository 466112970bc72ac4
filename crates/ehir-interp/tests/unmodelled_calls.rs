//! Calls of undefined functions the interpreter does not model: in a module compiled for
//! a target (`cir.triple`) they stop the run with an error naming the function at the
//! call; in a scenario without one they are probes (traced, returning zero or their
//! script); `RunConfig::unmodelled_calls` overrides the module, and a scripted function
//! is always a probe.

use ehir_interp::{
    Event, RunConfig, RunOutcome, StopReason, UnmodelledCalls, parse_return_spec, run_module,
};

/// The text of a module whose `main` returns what the undefined `@answer` returns; with
/// `triple`, the module says which target it was compiled for.
fn program_text(triple: Option<&str>) -> String {
    let body = "cir.func @answer() -> !s32i\n\
                cir.func @main() -> !s32i {\n\
                \x20 %0 = cir.call @answer() : () -> !s32i\n\
                \x20 cir.return %0 : !s32i\n\
                }\n";
    match triple {
        Some(triple) => format!("module attributes {{cir.triple = \"{triple}\"}} {{\n{body}}}\n"),
        None => body.to_string(),
    }
}

fn program(triple: Option<&str>) -> ehir_core::Module {
    ehir_reader::parse_module("answer.cir", &program_text(triple)).expect("parses")
}

fn run(module: &ehir_core::Module, config: RunConfig) -> RunOutcome {
    run_module(module, &config).expect("runs")
}

/// The run of the module `text`, which must not stop with an error.
fn run_to_the_end(text: &str) -> RunOutcome {
    let module = ehir_reader::parse_module("program.cir", text).expect("parses");
    let outcome = run(&module, RunConfig::default());
    assert!(
        outcome.runtime_error.is_none(),
        "{:?}",
        outcome.runtime_error
    );
    outcome
}

fn probed(outcome: &RunOutcome) -> bool {
    outcome
        .trace
        .iter()
        .any(|e| matches!(e, Event::Call { callee, .. } if callee == "answer"))
}

#[test]
fn a_program_compiled_for_a_target_stops_at_an_unmodelled_call() {
    let module = program(Some("x86_64-linux-gnu"));
    let outcome = run(&module, RunConfig::default());
    let error = outcome.runtime_error.as_ref().expect("stopped");
    assert_eq!(error.reason, StopReason::Unmodelled);
    assert!(
        error.message.starts_with(
            "call of external function 'answer', which the interpreter does not model"
        ),
        "{}",
        error.message
    );
    assert_eq!(error.function, "main");
    // At the call: the op's location in the input.
    let text = program_text(Some("x86_64-linux-gnu"));
    let call = text.find("%0 = cir.call @answer").expect("a call");
    assert_eq!(error.loc.offset(), Some(call));
    assert!(!probed(&outcome));
    assert_eq!(outcome.exit_status, ehir_interp::EXIT_RUNTIME_ERROR);
}

#[test]
fn a_scenario_without_a_target_probes_undefined_functions() {
    let outcome = run(&program(None), RunConfig::default());
    assert!(outcome.runtime_error.is_none());
    assert!(probed(&outcome));
    assert_eq!(outcome.exit_status, 0);
}

#[test]
fn a_scripted_function_is_a_probe_in_every_module() {
    let config = RunConfig {
        returns: vec![parse_return_spec("@answer=42").expect("a return spec")],
        ..RunConfig::default()
    };
    let outcome = run(&program(Some("x86_64-pc-windows-msvc")), config);
    assert!(outcome.runtime_error.is_none());
    assert!(probed(&outcome));
    assert_eq!(outcome.exit_status, 42);
}

#[test]
fn the_configuration_overrides_the_module() {
    let probes = RunConfig {
        unmodelled_calls: UnmodelledCalls::Probe,
        ..RunConfig::default()
    };
    let outcome = run(&program(Some("x86_64-linux-gnu")), probes);
    assert!(outcome.runtime_error.is_none() && probed(&outcome));
    let errors = RunConfig {
        unmodelled_calls: UnmodelledCalls::Error,
        ..RunConfig::default()
    };
    let outcome = run(&program(None), errors);
    assert_eq!(
        outcome.runtime_error.map(|e| e.reason),
        Some(StopReason::Unmodelled)
    );
}

#[test]
fn msvcrt_names_of_runtime_functions_are_modelled() {
    // operator new and delete under their msvcrt names, in a program for Windows.
    let text = "module attributes {cir.triple = \"x86_64-pc-windows-msvc\"} {\n\
                cir.func @\"??2@YAPEAX_K@Z\"(!u64i) -> !cir.ptr<!void>\n\
                cir.func @\"??3@YAXPEAX_K@Z\"(!cir.ptr<!void>, !u64i)\n\
                cir.func @main() -> !s32i {\n\
                \x20 %0 = cir.const #cir.int<4> : !u64i\n\
                \x20 %1 = cir.call @\"??2@YAPEAX_K@Z\"(%0) : (!u64i) -> !cir.ptr<!void>\n\
                \x20 cir.call @\"??3@YAXPEAX_K@Z\"(%1, %0) : (!cir.ptr<!void>, !u64i) -> ()\n\
                \x20 %2 = cir.const #cir.int<0> : !s32i\n\
                \x20 cir.return %2 : !s32i\n\
                }\n}\n";
    assert_eq!(run_to_the_end(text).exit_status, 0);
}

#[test]
fn libstdcxx_exception_members_are_modelled() {
    // `std::bad_alloc::what()` and its destructor, as a program for Linux calls them.
    let text = "module attributes {cir.triple = \"x86_64-linux-gnu\"} {\n\
                cir.global constant private @.fmt = #cir.const_array<\"%s\\0A\\00\" : !cir.array<!s8i x 4>> : !cir.array<!s8i x 4>\n\
                cir.func @printf(!cir.ptr<!s8i>, ...) -> !s32i\n\
                cir.func @_ZNKSt9bad_alloc4whatEv(!cir.ptr<!void>) -> !cir.ptr<!s8i>\n\
                cir.func @_ZNSt9bad_allocD1Ev(!cir.ptr<!void>)\n\
                cir.func @main() -> !s32i {\n\
                \x20 %0 = cir.alloca !u64i, !cir.ptr<!u64i>, [\"e\"]\n\
                \x20 %1 = cir.cast bitcast %0 : !cir.ptr<!u64i> -> !cir.ptr<!void>\n\
                \x20 %2 = cir.call @_ZNKSt9bad_alloc4whatEv(%1) : (!cir.ptr<!void>) -> !cir.ptr<!s8i>\n\
                \x20 %3 = cir.get_global @.fmt : !cir.ptr<!cir.array<!s8i x 4>>\n\
                \x20 %4 = cir.cast array_to_ptrdecay %3 : !cir.ptr<!cir.array<!s8i x 4>> -> !cir.ptr<!s8i>\n\
                \x20 %5 = cir.call @printf(%4, %2) : (!cir.ptr<!s8i>, !cir.ptr<!s8i>) -> !s32i\n\
                \x20 cir.call @_ZNSt9bad_allocD1Ev(%1) : (!cir.ptr<!void>) -> ()\n\
                \x20 %6 = cir.const #cir.int<0> : !s32i\n\
                \x20 cir.return %6 : !s32i\n\
                }\n}\n";
    let outcome = run_to_the_end(text);
    assert_eq!(String::from_utf8_lossy(&outcome.stdout), "std::bad_alloc\n");
}
