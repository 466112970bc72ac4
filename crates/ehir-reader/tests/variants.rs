//! The accepted variants of `docs/syntax.md` that need Rust: inputs the reader accepts
//! but the verifier rejects (the CLI always verifies), the phase a function is given, and
//! the successor structure a dispatch is built with. Each parses and prints in canonical
//! form. The other variants are file tests under `tests/filetests/reader/variants/`.

mod common;

use common::*;
use ehir_core::{OpKind, printer};

/// Parses `text` and returns its canonical print (checking that the print round-trips).
fn canonical(text: &str) -> String {
    round_trip("variant.cir", text)
}

#[test]
fn unterminated_and_empty_regions_get_an_implicit_yield() {
    let printed = canonical(
        "cir.func @f(%arg0: !cir.bool) {
  cir.scope {
  }
  cir.if %arg0 {
    cir.call @g() : () -> ()
  } else {}
  cir.try {
    cir.call @g() : () -> ()
  } catch all {
    cir.yield
  }
  cir.return
}
",
    );
    assert_eq!(
        printed,
        "cir.func @f(%arg0: !cir.bool) {
  cir.scope {
    cir.yield
  }
  cir.if %arg0 {
    cir.call @g() : () -> ()
    cir.yield
  } else {
    cir.yield
  }
  cir.try {
    cir.call @g() : () -> ()
    cir.yield
  } catch all {
    cir.yield
  }
  cir.return
}
cir.func @g()
"
    );
}

#[test]
fn handler_regions_taking_the_token() {
    let printed = canonical(
        "cir.func @f() {
  cir.try {
    cir.call @g() : () -> ()
  } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] (%t : !cir.eh_token) {
    %c, %e = cir.begin_catch %t : !cir.eh_token -> (!cir.catch_token, !cir.ptr<!s32i>)
    cir.end_catch %c : !cir.catch_token
    cir.yield
  } unwind (%u : !cir.eh_token) {
    cir.resume %u : !cir.eh_token
  }
  cir.return
}
",
    );
    // The token becomes the parameter of the handler region's entry block, printed in
    // the handler's head as upstream does; the structured phase stays (upstream's catch
    // handlers begin with `cir.begin_catch`).
    assert_contains(
        &printed,
        "  } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] (%arg0: !cir.eh_token) {
    %0, %1 = cir.begin_catch %arg0 : !cir.eh_token -> (!cir.catch_token, !cir.ptr<!s32i>)
    cir.end_catch %0 : !cir.catch_token
    cir.yield
  } unwind (%arg1: !cir.eh_token) {
    cir.resume %arg1 : !cir.eh_token
  }",
    );
}

#[test]
fn parenthesized_begin_and_end_forms() {
    let printed = canonical(
        "cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate cleanup
  %c = cir.begin_cleanup(%t : !cir.eh_token) : !cir.cleanup_token
  cir.end_cleanup(%c : !cir.cleanup_token)
  %k = cir.begin_catch(%t : !cir.eh_token) : !cir.catch_token
  cir.end_catch(%k : !cir.catch_token)
  %k2, %e = cir.begin_catch %t -> (!cir.catch_token, !cir.ptr<!s32i>)
  cir.end_catch %k2
  cir.resume
}
",
    );
    assert_eq!(
        printed,
        "cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %0 = cir.eh.initiate cleanup : !cir.eh_token
  %1 = cir.begin_cleanup %0 : !cir.eh_token -> !cir.cleanup_token
  cir.end_cleanup %1 : !cir.cleanup_token
  %2 = cir.begin_catch %0 : !cir.eh_token -> !cir.catch_token
  cir.end_catch %2 : !cir.catch_token
  %3, %4 = cir.begin_catch %0 : !cir.eh_token -> (!cir.catch_token, !cir.ptr<!s32i>)
  cir.end_catch %3 : !cir.catch_token
  cir.resume
}
cir.func @g()
"
    );
}

#[test]
fn msvc_spellings() {
    let printed = canonical(
        "cir.func @f(%arg0: !cir.ptr<!s32i>) personality(@__CxxFrameHandler3) {
  cir.try_call @g() ^bb1, ^bb2
^bb1:
  cir.return
^bb2:
  %cs = cir.eh.catchswitch within none [^bb3, ^bb4, ^bb5] unwind to caller
^bb3:
  %a = cir.catchpad within %cs [null : !cir.ptr<!void>] : !cir.catch_token
  cir.catchret within %a to ^bb1
^bb4:
  %b = cir.catchpad within %cs [eh.typeid @\"??_R0H@8\", 0, %arg0 : (!cir.ptr<!void>, !u32i, !cir.ptr<!s32i>)]
  cir.catchret from %b to ^bb1
^bb5:
  %c = cir.catchpad within %cs [@\"??_R0M@8\"] : !cir.catch_token
  cir.catchret from %c to ^bb1
}
",
    );
    assert_contains(
        &printed,
        "cir.func @f(%arg0: !cir.ptr<!s32i>) personality(@__CxxFrameHandler3) {\n",
    );
    assert_contains(
        &printed,
        "%0 = cir.catchswitch within none [^bb3, ^bb4, ^bb5] unwind to caller\n",
    );
    assert_contains(
        &printed,
        "%1 = cir.catchpad within %0 [null, 64, null] : !cir.catch_token\n  cir.catchret from %1 to ^bb1\n",
    );
    assert_contains(
        &printed,
        "%2 = cir.catchpad within %0 [@\"??_R0H@8\", 0, %arg0 : !cir.ptr<!s32i>] : !cir.catch_token\n",
    );
    assert_contains(
        &printed,
        "%3 = cir.catchpad within %0 [@\"??_R0M@8\", 0, null] : !cir.catch_token\n",
    );
    let module = parse_ok("msvc.cir", &printed);
    let f = &module.functions[module.function_named("f").expect("f")];
    assert_eq!(f.phase, ehir_core::Phase::Msvc);
}

#[test]
fn dispatch_passes_the_token_implicitly() {
    let text = "cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate : !cir.eh_token
  cir.eh.dispatch %t : !cir.eh_token [
    catch_all : ^bb3
  ]
^bb3(%u : !cir.eh_token):
  %c = cir.begin_catch %u : !cir.eh_token -> !cir.catch_token
  cir.end_catch %c : !cir.catch_token
  cir.return
}
";
    let module = parse_ok("dispatch.cir", text);
    let f = &module.functions[module.function_named("f").expect("f")];
    let dispatch = f
        .walk_ops()
        .into_iter()
        .find(|&op| matches!(f.dfg.kind(op), OpKind::EhDispatch { .. }))
        .expect("dispatch");
    let succ = f.dfg.successors(dispatch)[0];
    assert!(
        f.dfg.successor_args(succ).is_empty(),
        "no explicit arguments"
    );
    assert_eq!(f.dfg.block_params(f.dfg.successor_block(succ)).len(), 1);
    let printed = printer::module_to_string(&module);
    assert_contains(
        &printed,
        "    catch_all : ^bb3\n  ]\n^bb3(%1: !cir.eh_token):\n",
    );
}

#[test]
fn block_argument_count_mismatch_is_built_as_written() {
    // Arity mismatches are the verifier's to report.
    let printed = canonical(
        "cir.func @f(%arg0: !s32i) {\n  cir.br ^bb1(%arg0 : !s32i)\n^bb1:\n  cir.return\n}\n",
    );
    assert_contains(&printed, "cir.br ^bb1(%arg0 : !s32i)\n^bb1:\n");
}

#[test]
fn explicit_phase_is_kept() {
    let printed = canonical("cir.func @f() phase(msvc) {\n  cir.return\n}\n");
    assert_eq!(printed, "cir.func @f() phase(msvc) {\n  cir.return\n}\n");
    let module = parse_ok(
        "p.cir",
        "cir.func @f() phase(structured) #personality_fn = @__gxx_personality_v0 {\n  cir.return\n}\n",
    );
    let f = &module.functions[module.function_named("f").expect("f")];
    assert_eq!(f.phase, ehir_core::Phase::Structured);
}
