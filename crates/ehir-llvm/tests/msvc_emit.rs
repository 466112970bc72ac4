//! The LLVM IR emitter for the Microsoft EH model on its own: MSVC-phase CIR in, LLVM
//! text out (funclet pads, "funclet" bundles, RTTI and throw tables, runtime redirects),
//! plus the Itanium `__pointer_type_info` objects. Running the results under wine is
//! tested in crates/ehir/tests/msvc_e2e.rs and tests/filetests/msvc-llvm/.

use ehir_core::Module;
use ehir_llvm::{EmitOptions, module_to_llvm_text};

fn parse(text: &str) -> Module {
    ehir_reader::parse_module("test.cir", text).unwrap_or_else(|d| panic!("{d}"))
}

fn emit_msvc(m: &Module) -> String {
    module_to_llvm_text(m, "test.cir", &EmitOptions::msvc()).unwrap_or_else(|d| panic!("{d}"))
}

fn listing(name_prefix: &str) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/seeds/corrected");
    let path = std::fs::read_dir(dir)
        .expect("corrected listings")
        .map(|e| e.expect("entry").path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(name_prefix))
        })
        .expect("listing");
    std::fs::read_to_string(path).expect("listing text")
}

/// The seed's MSVC-phase listing 38 (corrected): a cleanup funclet whose destructor call
/// gets the cleanup's bundle, then a catch-all catchswitch; the module is for Windows.
#[test]
fn seed_listing_38_emits_cleanup_and_catch_funclets() {
    let text = format!(
        "!rec_SomeClass = !cir.record<class \"SomeClass\" {{!s32i}}>\n{}",
        listing("38-")
    );
    let ll = emit_msvc(&parse(&text));
    assert!(
        ll.contains("target triple = \"x86_64-pc-windows-msvc\""),
        "{ll}"
    );
    assert!(
        ll.contains("define void @someFunc() uwtable personality ptr @__CxxFrameHandler3 {"),
        "{ll}"
    );
    assert!(ll.contains(" = cleanuppad within none []"), "{ll}");
    assert!(
        ll.contains("call void @_ZN9SomeClassD1Ev(ptr %v0) [ \"funclet\"(token %v1) ]"),
        "{ll}"
    );
    assert!(ll.contains("cleanupret from %v1 unwind label %bb4"), "{ll}");
    assert!(
        ll.contains("%v2 = catchswitch within none [label %bb5] unwind to caller"),
        "{ll}"
    );
    assert!(
        ll.contains("catchpad within %v2 [ptr null, i32 64, ptr null]"),
        "{ll}"
    );
    assert!(ll.contains("catchret from"), "{ll}");
    // Calls outside funclets carry no bundle.
    assert!(
        ll.contains("call void @_ZN9SomeClassD1Ev(ptr %v0)\n"),
        "{ll}"
    );
    // No float anywhere: no _fltused; no throw: no tables.
    assert!(!ll.contains("_fltused"), "{ll}");
    assert!(!ll.contains("__ImageBase"), "{ll}");
}

/// Listing 40 (corrected): typed catches reference TypeDescriptors the module defines
/// (`.H` for int, `.M` for float).
#[test]
fn seed_listing_40_defines_the_type_descriptors_it_catches() {
    let ll = emit_msvc(&parse(&listing("40-")));
    assert!(
        ll.contains("catchpad within %v0 [ptr @\"??_R0H@8\", i32 0, ptr null]"),
        "{ll}"
    );
    assert!(
        ll.contains("catchpad within %v0 [ptr @\"??_R0M@8\", i32 0, ptr null]"),
        "{ll}"
    );
    assert!(
        ll.contains("@\"??_R0H@8\" = linkonce_odr global { ptr, ptr, [3 x i8] } { ptr @ehir.type_info.vftable, ptr null, [3 x i8] c\".H\\00\" }, comdat, align 8"),
        "{ll}"
    );
    assert!(ll.contains("[3 x i8] c\".M\\00\""), "{ll}");
    assert!(
        ll.contains(
            "@ehir.type_info.vftable = private unnamed_addr constant [2 x ptr] zeroinitializer"
        ),
        "{ll}"
    );
    let m = parse(&listing("40-"));
    assert_eq!(emit_msvc(&m), emit_msvc(&m), "emission is deterministic");
}

/// Each ABI refuses functions of the other ABI's phase.
#[test]
fn the_phase_must_match_the_abi() {
    let itanium = parse(
        "cir.func @f()\ncir.func @g() phase(itanium) {\n  cir.call @f() : () -> ()\n  cir.return\n}\n",
    );
    let errors = module_to_llvm_text(&itanium, "t.cir", &EmitOptions::msvc()).unwrap_err();
    assert!(
        errors.0[0]
            .message
            .contains("is in the itanium phase; LLVM IR for the msvc ABI needs the msvc phase"),
        "{errors:?}"
    );
    let msvc = parse(
        "cir.func @f()\ncir.func @g() phase(msvc) {\n  cir.call @f() : () -> ()\n  cir.return\n}\n",
    );
    let errors = module_to_llvm_text(&msvc, "t.cir", &EmitOptions::default()).unwrap_err();
    assert!(
        errors.0[0].message.contains("is in the msvc phase"),
        "{errors:?}"
    );
}

/// A block that two funclets reach cannot carry one funclet bundle: an error, not a
/// guess (the verifier's, which the emitter runs first).
#[test]
fn a_block_shared_by_two_funclets_is_an_error() {
    let text = r#"
cir.func @f()
cir.func @g() #personality_fn = @__CxxFrameHandler3 {
  cir.try_call @f() ^shared, ^dispatch : () -> ()
^dispatch:
  %cs = cir.catchswitch within none [^handler] unwind to caller
^handler:
  %cp = cir.catchpad within %cs [null, 64, null] : !cir.catch_token
  cir.br ^shared
^shared:
  cir.call @f() : () -> ()
  cir.return
}
"#;
    let m = parse(text);
    let errors = module_to_llvm_text(&m, "t.cir", &EmitOptions::msvc()).unwrap_err();
    assert_eq!(errors.0.len(), 1, "{errors:?}");
    assert!(
        errors.0[0]
            .message
            .starts_with("input does not verify: ^bb3 belongs to 2 funclets"),
        "{errors:?}"
    );
}

/// The C++ runtime the front end calls by Itanium names goes to msvcrt's exports;
/// `std::uncaught_exception` is defined over `__uncaught_exception`; floating point brings
/// a `_fltused` that `opt` cannot drop.
#[test]
fn runtime_calls_are_redirected_to_msvcrt() {
    let text = r#"
cir.func nothrow @_ZSt9terminatev()
cir.func @_Znwm(!u64i) -> !cir.ptr<!void>
cir.func nothrow @_ZdlPv(!cir.ptr<!void>)
cir.func nothrow @_ZSt13set_terminatePFvvE(!cir.ptr<!cir.func<()>>) -> !cir.ptr<!cir.func<()>>
cir.func nothrow @_ZSt18uncaught_exceptionv() -> !cir.bool
cir.func @handler() phase(msvc) {
  cir.call @_ZSt9terminatev() nothrow : () -> ()
  cir.return
}
cir.func @main() -> !s32i phase(msvc) {
  %n = cir.const #cir.int<8> : !u64i
  %p = cir.call @_Znwm(%n) : (!u64i) -> !cir.ptr<!void>
  cir.call @_ZdlPv(%p) nothrow : (!cir.ptr<!void>) -> ()
  %h = cir.get_global @handler : !cir.ptr<!cir.func<()>>
  %old = cir.call @_ZSt13set_terminatePFvvE(%h) nothrow : (!cir.ptr<!cir.func<()>>) -> !cir.ptr<!cir.func<()>>
  %u = cir.call @_ZSt18uncaught_exceptionv() nothrow : () -> !cir.bool
  %d = cir.const #cir.fp<1.5> : !cir.double
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#;
    let ll = emit_msvc(&parse(text));
    assert!(ll.contains("call void @\"?terminate@@YAXXZ\"()"), "{ll}");
    assert!(ll.contains("call ptr @\"??2@YAPEAX_K@Z\"(i64 8)"), "{ll}");
    assert!(ll.contains("call void @\"??3@YAXPEAX@Z\"(ptr %"), "{ll}");
    assert!(
        ll.contains("call ptr @\"?set_terminate@@YAP6AXXZP6AXXZ@Z\"(ptr @handler)"),
        "{ll}"
    );
    for itanium in [
        "_ZSt9terminatev",
        "_Znwm",
        "_ZdlPv",
        "_ZSt13set_terminatePFvvE",
    ] {
        assert!(!ll.contains(&format!("@{itanium}")), "{itanium}: {ll}");
    }
    assert!(
        ll.contains(
            "define linkonce_odr zeroext i1 @_ZSt18uncaught_exceptionv() nounwind comdat {"
        ),
        "{ll}"
    );
    assert!(ll.contains("call i32 @__uncaught_exception()"), "{ll}");
    assert!(
        ll.contains("@_fltused = weak global i32 0, comdat, align 4"),
        "{ll}"
    );
}

/// A throw's CatchableTypeArray lists the class and its unambiguous public bases: a base
/// reached twice (A in both B and C) cannot catch the object and is left out.
#[test]
fn ambiguous_bases_are_not_catchable() {
    let text = r#"
!rec_A = !cir.record<struct "A" {!s32i}>
!rec_B = !cir.record<struct "B" {!rec_A}>
!rec_C = !cir.record<struct "C" {!rec_A}>
!rec_D = !cir.record<struct "D" {!rec_B, !rec_C}>
cir.typeinfo @_ZTI1A : !rec_A
cir.typeinfo @_ZTI1B : !rec_B bases [@_ZTI1A at 0]
cir.typeinfo @_ZTI1C : !rec_C bases [@_ZTI1A at 0]
cir.typeinfo @_ZTI1D : !rec_D bases [@_ZTI1B at 0, @_ZTI1C at 4]
cir.func @thrower() phase(msvc) {
  %x = cir.alloc.exception 8 -> !cir.ptr<!rec_D>
  cir.throw %x : !cir.ptr<!rec_D>, @_ZTI1D
}
"#;
    let ll = emit_msvc(&parse(text));
    let array = ll
        .lines()
        .find(|l| l.starts_with("@\"_CTA3?AUD@@\""))
        .unwrap_or_else(|| panic!("a 3-entry CatchableTypeArray for D: {ll}"));
    assert!(array.contains("_CT??_R0?AUD@@@88"), "{array}");
    assert!(array.contains("_CT??_R0?AUB@@@84"), "{array}");
    assert!(array.contains("_CT??_R0?AUC@@@84@4"), "{array}");
    assert!(!ll.contains("??_R0?AUA@@@8"), "{ll}");
    assert!(
        ll.contains("call void @_CxxThrowException(ptr %v0, ptr @\"_TI3?AUD@@\")"),
        "{ll}"
    );
}

/// Itanium: the typeinfo of a pointer to a class is a `__pointer_type_info` naming the
/// pointee's typeinfo, with the pointee's qualifiers as flags.
#[test]
fn itanium_pointer_typeinfo() {
    let text = r#"
!rec_Node = !cir.record<struct "Node" {!s32i}>
cir.typeinfo @_ZTI4Node : !rec_Node
cir.typeinfo @_ZTIP4Node : !cir.ptr<!rec_Node>
cir.typeinfo @_ZTIPK4Node : !cir.ptr<!rec_Node>
cir.typeinfo @_ZTIPi : !cir.ptr<!s32i>
"#;
    let ll = module_to_llvm_text(&parse(text), "t.cir", &EmitOptions::default())
        .unwrap_or_else(|d| panic!("{d}"));
    assert!(
        ll.contains("@_ZTIP4Node = linkonce_odr constant { ptr, ptr, i32, ptr } { ptr getelementptr inbounds (ptr, ptr @_ZTVN10__cxxabiv119__pointer_type_infoE, i64 2), ptr @_ZTSP4Node, i32 0, ptr @_ZTI4Node }, comdat, align 8"),
        "{ll}"
    );
    assert!(
        ll.contains("@_ZTIPK4Node = linkonce_odr constant { ptr, ptr, i32, ptr } { ptr getelementptr inbounds (ptr, ptr @_ZTVN10__cxxabiv119__pointer_type_infoE, i64 2), ptr @_ZTSPK4Node, i32 1, ptr @_ZTI4Node }"),
        "{ll}"
    );
    assert!(
        ll.contains("@_ZTSPK4Node = linkonce_odr constant [8 x i8] c\"PK4Node\\00\""),
        "{ll}"
    );
    // The pointee of a fundamental pointer comes from libstdc++.
    assert!(ll.contains("ptr @_ZTIi }"), "{ll}");
    assert!(ll.contains("@_ZTIi = external constant ptr"), "{ll}");
    assert!(
        ll.contains("@_ZTVN10__cxxabiv119__pointer_type_infoE = external global ptr"),
        "{ll}"
    );
}
