//! The accepted variants of `docs/syntax.md`: each parses and prints in canonical form.

mod common;

use common::*;
use ehir_core::{OpKind, printer};

/// Parses `text` and returns its canonical print (checking that the print round-trips).
fn canonical(text: &str) -> String {
    round_trip("variant.cir", text)
}

#[test]
fn labels_without_colon_and_with_comments() {
    let printed = canonical(
        "cir.func @f() {\n  cir.br ^bb1 // to bb1\n^bb1 // no colon\n  cir.br ^bb2\n^bb2:  // pred: ^bb1\n  cir.return\n}\n",
    );
    assert_eq!(
        printed,
        "cir.func @f() {\n  cir.br ^bb1\n^bb1:\n  cir.br ^bb2\n^bb2:\n  cir.return\n}\n"
    );
}

#[test]
fn switch_flat_and_dispatch_entries_by_newline_or_comma() {
    let by_newline = canonical(
        "cir.func @f(%arg0: !s32i) {
  cir.switch.flat %arg0 : !s32i, ^bb1 [
    0: ^bb1
    1: ^bb2 // one
  ]
^bb1:
  cir.return
^bb2:
  cir.return
}
",
    );
    let by_comma = canonical(
        "cir.func @f(%arg0: !s32i) {
  cir.switch.flat %arg0 : !s32i, ^bb1 [0: ^bb1, 1: ^bb2]
^bb1:
  cir.return
^bb2:
  cir.return
}
",
    );
    assert_eq!(by_newline, by_comma);
    assert_contains(
        &by_comma,
        "cir.switch.flat %arg0 : !s32i, ^bb1 [\n    0: ^bb1,\n    1: ^bb2\n  ]",
    );
    let dispatch = |sep: &str| {
        format!(
            "cir.func @f() {{
  cir.try_call @g() ^bb1, ^bb2 : () -> ()
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate : !cir.eh_token
  cir.eh.dispatch %t : !cir.eh_token [catch (#cir.global_view<@_ZTIi> : !u32i) : ^bb3{sep} unwind : ^bb4]
^bb3(%a : !cir.eh_token):
  cir.return
^bb4(%b : !cir.eh_token):
  cir.resume %b : !cir.eh_token
}}
"
        )
    };
    let a = canonical(&dispatch(","));
    let b = canonical(&dispatch("\n   "));
    assert_eq!(a, b);
    assert_contains(
        &a,
        "  cir.eh.dispatch %0 : !cir.eh_token [\n    catch (#cir.global_view<@_ZTIi> : !u32i) : ^bb3\n    unwind : ^bb4\n  ]\n^bb3(%1: !cir.eh_token):",
    );
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
        "  } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] (%0: !cir.eh_token) {
    %1, %2 = cir.begin_catch %0 : !cir.eh_token -> (!cir.catch_token, !cir.ptr<!s32i>)
    cir.end_catch %1 : !cir.catch_token
    cir.yield
  } unwind (%3: !cir.eh_token) {
    cir.resume %3 : !cir.eh_token
  }",
    );
}

#[test]
fn eh_only_is_eh() {
    let printed = canonical(
        "cir.func @f() {\n  cir.cleanup.scope {\n    cir.yield\n  } cleanup eh_only {\n    cir.yield\n  }\n  cir.return\n}\n",
    );
    assert_contains(&printed, "} cleanup eh {");
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
fn nothrow_and_exception_on_calls() {
    let printed = canonical(
        "cir.func @f() {
  cir.call @g() nothrow : () -> ()
  cir.call nothrow @g() : () -> ()
  cir.call exception @g() : () -> ()
  cir.call exception nothrow @g() : () -> ()
  cir.return
}
",
    );
    assert_contains(
        &printed,
        "  cir.call @g() nothrow : () -> ()
  cir.call @g() nothrow : () -> ()
  cir.call exception @g() : () -> ()
  cir.call exception @g() nothrow : () -> ()
",
    );
}

#[test]
fn calls_without_a_signature() {
    let printed = canonical(
        "cir.func @declared(!s32i) -> !s64i
cir.func @f(%arg0: !s32i, %p: !cir.ptr<!void>) {
  %0 = cir.call @declared(%arg0)
  %1 = cir.call @later(%0 : !s64i)
  %2 = cir.call @__cxa_begin_catch(%p : !cir.ptr<!void>)
  cir.call @__cxa_end_catch()
  cir.call @_ZSt9terminatev()
  cir.call @__cxa_rethrow()
  cir.call @__cxa_call_unexpected(%p)
  cir.call @undeclared(%arg0)
  cir.return
}
cir.func @later(!s64i) -> !cir.bool
",
    );
    assert_contains(
        &printed,
        "  %0 = cir.call @declared(%arg0) : (!s32i) -> !s64i\n",
    );
    assert_contains(
        &printed,
        "  %1 = cir.call @later(%0) : (!s64i) -> !cir.bool\n",
    );
    assert_contains(
        &printed,
        "  %2 = cir.call @__cxa_begin_catch(%arg1) : (!cir.ptr<!void>) -> !cir.ptr<!void>\n",
    );
    assert_contains(&printed, "  cir.call @__cxa_end_catch() : () -> ()\n");
    assert_contains(&printed, "  cir.call @_ZSt9terminatev() : () -> ()\n");
    assert_contains(&printed, "  cir.call @__cxa_rethrow() : () -> ()\n");
    assert_contains(
        &printed,
        "  cir.call @__cxa_call_unexpected(%arg1) : (!cir.ptr<!void>) -> ()\n",
    );
    // An unknown callee without a signature: the arguments' types, no result.
    assert_contains(&printed, "  cir.call @undeclared(%arg0) : (!s32i) -> ()\n");
    assert_contains(&printed, "cir.func @undeclared(!s32i)\n");
    assert_contains(
        &printed,
        "cir.func @__cxa_begin_catch(!cir.ptr<!void>) -> !cir.ptr<!void>\n",
    );
    // `@later` is declared by its own `cir.func`, once.
    assert_eq!(printed.matches("cir.func @later(").count(), 1, "{printed}");
}

#[test]
fn try_call_without_a_signature_is_void() {
    let printed = canonical(
        "cir.func @f() {\n  cir.try_call @g() ^bb1, ^bb2\n^bb1:\n  cir.return\n^bb2:\n  %t = cir.eh.initiate : !cir.eh_token\n  cir.resume %t : !cir.eh_token\n}\n",
    );
    assert_contains(&printed, "  cir.try_call @g() ^bb1, ^bb2 : () -> ()\n");
    assert_contains(&printed, "cir.func @g()\n");
}

#[test]
fn resume_forms() {
    let printed = canonical(
        "cir.func @f() {
  cir.try_call @g() ^bb1, ^bb2
^bb1:
  cir.return
^bb2:
  %t = cir.eh.initiate : !cir.eh_token
  cir.br ^bb3
^bb3:
  cir.resume %t
^bb4:
  cir.resume %t : !cir.eh_token
^bb5:
  cir.resume
}
",
    );
    assert_contains(
        &printed,
        "^bb3:\n  cir.resume %0 : !cir.eh_token\n^bb4:\n  cir.resume %0 : !cir.eh_token\n^bb5:\n  cir.resume\n",
    );
}

#[test]
fn alignment_spellings() {
    let printed = canonical(
        "cir.global external @g = #cir.int<1> : !s32i {alignment = 8 : i64}
cir.func @f(%arg0: !s32i) {
  %0 = cir.alloca !s32i, !cir.ptr<!s32i>, [\"x\"] {alignment = 4 : i64}
  %1 = cir.alloca !s32i, !cir.ptr<!s32i>, [\"y\", init] align(16)
  cir.store align(4) %arg0, %0 : !s32i, !cir.ptr<!s32i>
  %2 = cir.load align(4) volatile %0 : !cir.ptr<!s32i>, !s32i
  cir.return
}
",
    );
    assert_contains(
        &printed,
        "cir.global external @g = #cir.int<1> : !s32i {alignment = 8 : i64}\n",
    );
    assert_contains(
        &printed,
        "%0 = cir.alloca !s32i, !cir.ptr<!s32i>, [\"x\"] {alignment = 4 : i64}\n",
    );
    assert_contains(
        &printed,
        "%1 = cir.alloca !s32i, !cir.ptr<!s32i>, [\"y\", init] {alignment = 16 : i64}\n",
    );
    assert_contains(
        &printed,
        "cir.store align(4) %arg0, %0 : !s32i, !cir.ptr<!s32i>\n",
    );
    assert_contains(
        &printed,
        "%2 = cir.load volatile align(4) %0 : !cir.ptr<!s32i>, !s32i\n",
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
        "cir.func @f(%arg0: !cir.ptr<!s32i>) #personality_fn = @__CxxFrameHandler3 {\n",
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
fn catchpad_trailing_types_are_checked() {
    let text = "cir.func @f(%arg0: !cir.ptr<!s32i>) #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @g() ^bb1, ^bb2
^bb1:
  cir.return
^bb2:
  %cs = cir.catchswitch within none [^bb3] unwind to caller
^bb3:
  %b = cir.catchpad within %cs [@\"??_R0H@8\", 0, %arg0 : (!cir.ptr<!void>, !u32i, !cir.ptr<!s64i>)]
  cir.catchret from %b to ^bb1
}
";
    let e = errors("bad.cir", text);
    assert_eq!((e[0].0, e[0].1), (8, 49), "{e:?}");
    assert_eq!(
        e[0].2,
        "'%arg0' has type !cir.ptr<!s32i> but is used as !cir.ptr<!s64i>"
    );
    let text = text.replace(
        " : (!cir.ptr<!void>, !u32i, !cir.ptr<!s64i>)",
        " : (!cir.ptr<!void>, !u32i)",
    );
    let e = errors("bad.cir", &text);
    assert_eq!(e[0].2, "2 argument type(s) for 3 catchpad argument(s)");
}

#[test]
fn landingpad_result_types_without_parens() {
    let printed = canonical(
        "cir.func @f() #personality_fn = @__gxx_personality_v0 {
  cir.try_call @g() ^bb1, ^bb2
^bb1:
  cir.return
^bb2:
  %e, %s = cir.eh.landingpad [@_ZTIi] : !cir.ptr<!void>, !u32i
  cir.resume.flat %e, %s : !cir.ptr<!void>, !u32i
}
",
    );
    assert_contains(
        &printed,
        "%0, %1 = cir.eh.landingpad [@_ZTIi] : (!cir.ptr<!void>, !u32i)\n",
    );
}

#[test]
fn older_cast_form() {
    let printed = canonical(
        "cir.func @f(%arg0: !s32i) {\n  %0 = cir.cast(integral, %arg0 : !s32i), !s64i\n  cir.return\n}\n",
    );
    assert_contains(&printed, "%0 = cir.cast integral %arg0 : !s32i -> !s64i\n");
}

#[test]
fn other_upstream_spellings() {
    let printed = canonical(
        "cir.func @f() -> !cir.int<s, 32> {
  %0 = cir.const #cir.bool<true> : !cir.bool
  %1 = cir.const #cir.int<3> : !cir.int<s, 32>
  cir.return %1 : !s32i
}
",
    );
    assert_contains(
        &printed,
        "cir.func @f() -> !s32i {\n  %0 = cir.const #true\n",
    );
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
fn forward_references_across_blocks() {
    // `%v` is used in ^bb1 before ^bb2 defines it in text order (^bb2 dominates ^bb1).
    let printed = canonical(
        "cir.func @f() -> !s32i {
  cir.br ^bb2
^bb1:
  cir.return %v : !s32i
^bb2:
  %v = cir.const #cir.int<5> : !s32i
  cir.br ^bb1
}
",
    );
    assert_eq!(
        printed,
        "cir.func @f() -> !s32i {
  cir.br ^bb2
^bb1:
  cir.return %0 : !s32i
^bb2:
  %0 = cir.const #cir.int<5> : !s32i
  cir.br ^bb1
}
"
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
fn quoted_symbols_and_strings() {
    let printed = canonical(
        "cir.func @\"with space\"() {\n  %0 = cir.alloca !s8i, !cir.ptr<!s8i>, [\"\\22q\\\\\\n\"]\n  cir.return\n}\n",
    );
    assert_contains(&printed, "cir.func @\"with space\"() {\n");
    assert_contains(&printed, "[\"\\\"q\\\\\\0A\"]");
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
