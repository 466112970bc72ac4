//! Builds the seed's structured listings (03, 05, 07, 09, 12, 14, 16, 18) through the
//! EHScopeStack builder and compares the printed CIR with the listing, modulo value and
//! block numbering (the seed reuses numbers across sibling regions) and the implicit
//! `cir.yield` the text format allows at the end of a region.

use ehir_builder::{CatchKind, FunctionBuilder};
use ehir_core::printer::function_to_string;
use ehir_core::{AttrData, CallFlags, CleanupKind, CmpPredicate, ModuleCtx, OpKind, Type};
use std::path::PathBuf;

fn listing(prefix: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/seeds/listings");
    let entry = std::fs::read_dir(&dir)
        .expect("listings directory")
        .filter_map(|e| e.ok())
        .find(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(prefix) && n.ends_with(".cir")
        })
        .expect("listing exists");
    std::fs::read_to_string(entry.path()).expect("readable")
}

/// Canonicalizes text for comparison: comments and blank lines dropped, whitespace
/// trimmed, every `%name` replaced by `%_`, `(){` spelled `() {`, and lines that are just
/// `cir.yield` dropped (the format adds them implicitly at the end of regions).
fn normalize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let line = line.trim();
        if line.is_empty() || line == "cir.yield" {
            continue;
        }
        let mut s = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' {
                s.push_str("%_");
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' || n == '.' {
                        chars.next();
                    } else {
                        break;
                    }
                }
            } else {
                s.push(c);
            }
        }
        out.push(upstream_cmp(&s.replace("(){", "() {")));
    }
    out
}

/// The seed's `cir.cmp(eq, %_, %_) : T, !cir.bool` in the printed (upstream's) form
/// `cir.cmp eq %_, %_ : T`.
fn upstream_cmp(line: &str) -> String {
    let Some(start) = line.find("cir.cmp(") else {
        return line.to_string();
    };
    let rest = &line[start + "cir.cmp(".len()..];
    let (Some(close), Some(bool_at)) = (rest.find(')'), rest.find(", !cir.bool")) else {
        return line.to_string();
    };
    let (predicate, operands) = rest[..close]
        .split_once(", ")
        .unwrap_or((&rest[..close], ""));
    let operand_type = rest[close + 1..bool_at].trim_start_matches(" : ");
    format!(
        "{}cir.cmp {predicate} {operands} : {operand_type}{}",
        &line[..start],
        &rest[bool_at + ", !cir.bool".len()..]
    )
}

/// Renames every value `%x` to `%_` (the seed reuses numbers across sibling regions).
fn rename_values(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let mut s = String::new();
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                s.push(c);
                if c == '%' {
                    s.push('_');
                    while chars
                        .peek()
                        .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_' || *n == '.')
                    {
                        chars.next();
                    }
                }
            }
            s
        })
        .collect()
}

/// A context that prints allocas as the seed listings write them: upstream's older
/// typed spelling (`cir.alloca T, !cir.ptr<T>, ["c", init]`).
fn listing_ctx() -> ModuleCtx {
    let mut ctx = ModuleCtx::default();
    ctx.alloca_spelling = Some(ehir_core::AllocaSpelling::Typed);
    ctx
}

fn assert_same_shape(built: &str, prefix: &str) {
    // 1. The listing as the reader parses and prints it (canonical form, implicit
    //    `cir.yield`s made explicit) equals the built function modulo value names.
    let text = listing(prefix);
    let module = ehir_reader::parse_module(prefix, &text)
        .unwrap_or_else(|e| panic!("listing {prefix} parses: {e}"));
    let func = module
        .functions
        .values()
        .find(|f| !f.is_declaration())
        .expect("the listing defines a function");
    let parsed = ehir_core::printer::function_to_string(&module.ctx, func);
    assert_eq!(
        rename_values(built),
        rename_values(&parsed),
        "listing {prefix}: built\n{built}\nparsed\n{parsed}"
    );
    // 2. And the raw listing text, compared loosely (comments, spacing, yields).
    let expected = normalize(&text);
    let actual = normalize(built);
    if expected != actual {
        panic!(
            "listing {prefix} differs\n--- built ---\n{built}\n--- diff (expected | actual) ---\n{}",
            expected
                .iter()
                .zip(actual.iter().chain(std::iter::repeat(&String::new())))
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("{a}\n  | {b}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

struct SomeClass {
    rec: Type,
    method_sig: Type,
    get_sig: Type,
}

fn some_class(ctx: &mut ModuleCtx) -> SomeClass {
    let alias = ctx.sym("rec_SomeClass");
    let rec = ctx.types.record(alias);
    let p = ctx.types.ptr(rec);
    let s32 = ctx.types.common().s32;
    SomeClass {
        rec,
        method_sig: ctx.types.func(vec![p], None, false),
        get_sig: ctx.types.func(vec![p], Some(s32), false),
    }
}

fn plain() -> CallFlags {
    CallFlags::default()
}

fn exception() -> CallFlags {
    CallFlags {
        nothrow: false,
        exception: true,
        noreturn: false,
    }
}

/// `SomeClass c; c.doSomething();` with a cleanup of `kind`.
fn build_03_or_28(kind: CleanupKind) -> String {
    let mut ctx = listing_ctx();
    let sc = some_class(&mut ctx);
    let void_sig = ctx.types.func(vec![], None, false);
    let ctor = ctx.sym("_ZN9SomeClassC1Ev");
    let dtor = ctx.sym("_ZN9SomeClassD1Ev");
    let work = ctx.sym("_ZN9SomeClass11doSomethingEv");
    let mut b = FunctionBuilder::new(&mut ctx, "someFunc", void_sig, &[]);
    let c = b.alloca(sc.rec, "c", true, 0);
    b.call(ctor, sc.method_sig, &[c], plain());
    let sig = sc.method_sig;
    b.push_cleanup(kind, move |b| {
        b.call(dtor, sig, &[c], plain());
    });
    b.call(work, sc.method_sig, &[c], plain());
    b.pop_cleanup();
    let f = b.finish().expect("builds");
    function_to_string(&ctx, &f)
}

#[test]
fn listing_03_automatic_object() {
    assert_same_shape(&build_03_or_28(CleanupKind::Normal), "03-");
}

#[test]
fn listing_28_cleanup_with_unhandled_exception() {
    assert_same_shape(&build_03_or_28(CleanupKind::All), "28-");
}

#[test]
fn listing_05_multiple_objects() {
    let mut ctx = listing_ctx();
    let sc = some_class(&mut ctx);
    let void_sig = ctx.types.func(vec![], None, false);
    let ctor = ctx.sym("_ZN9SomeClassC1Ev");
    let dtor = ctx.sym("_ZN9SomeClassD1Ev");
    let work = ctx.sym("_ZN9SomeClass11doSomethingEv");
    let sig = sc.method_sig;
    let mut b = FunctionBuilder::new(&mut ctx, "someFunc", void_sig, &[]);
    let c = b.alloca(sc.rec, "c", true, 0);
    b.call(ctor, sig, &[c], plain());
    b.push_cleanup(CleanupKind::Normal, move |b| {
        b.call(dtor, sig, &[c], plain());
    });
    let c2 = b.alloca(sc.rec, "c2", true, 0);
    b.call(ctor, sig, &[c2], plain());
    b.push_cleanup(CleanupKind::Normal, move |b| {
        b.call(dtor, sig, &[c2], plain());
    });
    b.call(work, sig, &[c], plain());
    let c3 = b.alloca(sc.rec, "c3", true, 0);
    b.call(ctor, sig, &[c3], plain());
    b.push_cleanup(CleanupKind::Normal, move |b| {
        b.call(dtor, sig, &[c3], plain());
    });
    b.call(work, sig, &[c3], plain());
    // The end of the function body pops all three, innermost first.
    b.force_cleanups();
    let f = b.finish().expect("builds");
    assert_same_shape(&function_to_string(&ctx, &f), "05-");
}

fn build_07_or_31(kind: CleanupKind) -> String {
    let mut ctx = listing_ctx();
    let sc = some_class(&mut ctx);
    let s32 = ctx.types.common().s32;
    let sig = ctx.types.func(vec![], Some(s32), false);
    let ctor = ctx.sym("_ZN9SomeClassC1Ev");
    let dtor = ctx.sym("_ZN9SomeClassD1Ev");
    let get = ctx.sym("_ZN9SomeClass3getEv");
    let msig = sc.method_sig;
    let mut b = FunctionBuilder::new(&mut ctx, "someFunc", sig, &[]);
    let retval = b.alloca(s32, "__retval", false, 0);
    let i = b.alloca(s32, "i", true, 0);
    let zero = b.const_int(s32, 0);
    b.store(zero, i, 4);
    b.enter_scope();
    let w = b.create_region_op(OpKind::While, &[], &[], 2);
    b.enter_region(w, 0, false);
    let t = b.const_bool(true);
    b.emit_condition(t);
    b.exit_region();
    b.enter_region(w, 1, false);
    b.enter_scope();
    let c = b.alloca(sc.rec, "c", true, 0);
    b.call(ctor, msig, &[c], plain());
    b.push_cleanup(kind, move |b| {
        b.call(dtor, msig, &[c], plain());
    });
    for (k, continue_) in [(3, true), (7, false)] {
        b.enter_scope();
        let v = b.load(i, 4);
        let kc = b.const_int(s32, k);
        let cond = b.cmp(CmpPredicate::Eq, v, kc);
        b.begin_if(cond, false);
        if continue_ {
            b.emit_continue();
        } else {
            b.emit_break();
        }
        b.end_if();
        b.exit_scope();
    }
    let got = b.call(get, sc.get_sig, &[c], plain()).expect("result");
    b.store(got, i, 4);
    b.exit_scope(); // pops the cleanup, then closes the scope
    b.exit_region(); // the loop body
    b.exit_scope();
    let v = b.load(i, 4);
    b.store(v, retval, 0);
    let r = b.load(retval, 0);
    b.emit_return(Some(r));
    assert_eq!(
        b.branch_exits().len(),
        3,
        "continue, break, return recorded"
    );
    assert_eq!(
        b.branch_exits()[0].cleanups.len(),
        1,
        "continue leaves the cleanup"
    );
    assert_eq!(
        b.branch_exits()[1].cleanups.len(),
        1,
        "break leaves the cleanup"
    );
    assert!(
        b.branch_exits()[2].cleanups.is_empty(),
        "return leaves none"
    );
    let f = b.finish().expect("builds");
    function_to_string(&ctx, &f)
}

#[test]
fn listing_07_branch_through_cleanup() {
    assert_same_shape(&build_07_or_31(CleanupKind::Normal), "07-");
}

#[test]
fn listing_31_shared_cleanups() {
    assert_same_shape(&build_07_or_31(CleanupKind::All), "31-");
}

#[test]
fn listing_09_eh_only_cleanup() {
    let mut ctx = listing_ctx();
    let derived = {
        let a = ctx.sym("rec_Derived");
        ctx.types.record(a)
    };
    let base = {
        let a = ctx.sym("rec_Base");
        ctx.types.record(a)
    };
    let dptr = ctx.types.ptr(derived);
    let bptr = ctx.types.ptr(base);
    let sig = ctx.types.func(vec![dptr], None, false);
    let base_sig = ctx.types.func(vec![bptr], None, false);
    let void_sig = ctx.types.func(vec![], None, false);
    let base_ctor = ctx.sym("_ZN4BaseC2Ev");
    let base_dtor = ctx.sym("_ZN4BaseD2Ev");
    let f_sym = ctx.sym("_Z1fv");
    let mut b = FunctionBuilder::new(&mut ctx, "_ZN7DerivedC2Ev", sig, &[dptr]);
    let arg = b.params()[0];
    let this_slot = b.alloca(dptr, "this", true, 0);
    b.store(arg, this_slot, 0);
    let this = b.load(this_slot, 0);
    let bp = b.base_class_addr(this, base, 0, true);
    b.call(base_ctor, base_sig, &[bp], plain());
    b.push_cleanup(CleanupKind::Eh, move |b| {
        let bp = b.base_class_addr(this, base, 0, true);
        b.call(base_dtor, base_sig, &[bp], plain());
    });
    b.call(f_sym, void_sig, &[], exception());
    b.pop_cleanup();
    let f = b.finish().expect("builds");
    assert_same_shape(&function_to_string(&ctx, &f), "09-");
}

/// `try { f(); } catch (std::exception &e) {} [catch (...) {}]` in the seed's form.
fn build_12_or_14(catch_all: bool) -> String {
    let mut ctx = listing_ctx();
    let exc = {
        let a = ctx.sym("rec_std3A3Aexception");
        ctx.types.record(a)
    };
    let exc_ptr = ctx.types.ptr(exc);
    let exc_ptr_ptr = ctx.types.ptr(exc_ptr);
    let void_sig = ctx.types.func(vec![], None, false);
    let f_sym = ctx.sym("_Z1fv");
    let ti = ctx.sym("_ZTISt9exception");
    let mut b = FunctionBuilder::new(&mut ctx, "someFunc", void_sig, &[]);
    let e = b.alloca(exc_ptr, "e", false, 0);
    b.enter_scope();
    b.enter_try();
    b.call(f_sym, void_sig, &[], exception());
    let p = b.emit_catch(CatchKind::Type(ti), exc_ptr_ptr);
    let v = b.load(p, 8);
    b.store(v, e, 8);
    if catch_all {
        b.emit_catch(CatchKind::All, exc_ptr_ptr);
    }
    b.exit_try();
    b.exit_scope();
    let f = b.finish().expect("builds");
    function_to_string(&ctx, &f)
}

#[test]
fn listing_12_simple_try_catch() {
    let text = build_12_or_14(false);
    assert!(text.contains("} unwind {\n      cir.resume\n"), "{text}");
    assert_same_shape(&text, "12-");
}

#[test]
fn listing_14_try_catch_all() {
    let text = build_12_or_14(true);
    assert!(!text.contains("unwind"), "{text}");
    assert_same_shape(&text, "14-");
}

fn build_16_or_25() -> String {
    let mut ctx = listing_ctx();
    let sc = some_class(&mut ctx);
    let void_sig = ctx.types.func(vec![], None, false);
    let ctor = ctx.sym("_ZN9SomeClassC1Ev");
    let dtor = ctx.sym("_ZN9SomeClassD1Ev");
    let work = ctx.sym("_ZN9SomeClass11doSomethingEv");
    let sig = sc.method_sig;
    let void_ptr = ctx.types.common().void_ptr;
    let mut b = FunctionBuilder::new(&mut ctx, "someFunc", void_sig, &[]);
    b.enter_scope();
    b.enter_try();
    let c = b.alloca(sc.rec, "c", true, 0);
    b.call(ctor, sig, &[c], plain());
    b.push_cleanup(CleanupKind::All, move |b| {
        b.call(dtor, sig, &[c], plain());
    });
    b.call(work, sig, &[c], plain());
    // emit_catch pops the cleanups of the try body.
    b.emit_catch(CatchKind::All, void_ptr);
    b.exit_try();
    b.exit_scope();
    let f = b.finish().expect("builds");
    function_to_string(&ctx, &f)
}

#[test]
fn listing_16_try_catch_with_cleanup() {
    assert_same_shape(&build_16_or_25(), "16-");
}

#[test]
fn listing_25_try_catch_with_cleanup_high_level() {
    assert_same_shape(&build_16_or_25(), "25-");
}

#[test]
fn listing_18_try_within_cleanup() {
    let mut ctx = listing_ctx();
    let sc = some_class(&mut ctx);
    let exc = {
        let a = ctx.sym("rec_std3A3Aexception");
        ctx.types.record(a)
    };
    let exc_ptr = ctx.types.ptr(exc);
    let exc_ptr_ptr = ctx.types.ptr(exc_ptr);
    let void_sig = ctx.types.func(vec![], None, false);
    let ctor = ctx.sym("_ZN9SomeClassC1Ev");
    let dtor = ctx.sym("_ZN9SomeClassD1Ev");
    let work = ctx.sym("_ZN9SomeClass11doSomethingEv");
    let ti = ctx.sym("_ZTISt9exception");
    let sig = sc.method_sig;
    let mut b = FunctionBuilder::new(&mut ctx, "someFunc", void_sig, &[]);
    let c = b.alloca(sc.rec, "c", true, 0);
    let e = b.alloca(exc_ptr, "e", false, 0);
    b.call(ctor, sig, &[c], plain());
    b.push_cleanup(CleanupKind::All, move |b| {
        b.call(dtor, sig, &[c], plain());
    });
    b.enter_scope();
    b.enter_try();
    b.call(work, sig, &[c], plain());
    let p = b.emit_catch(CatchKind::Type(ti), exc_ptr_ptr);
    let v = b.load(p, 8);
    b.store(v, e, 8);
    b.exit_try();
    b.exit_scope();
    b.pop_cleanup();
    let f = b.finish().expect("builds");
    assert_same_shape(&function_to_string(&ctx, &f), "18-");
}

#[test]
fn conditional_cleanup_wraps_the_conditional_and_tests_a_flag() {
    // `int x = c ? T().get() : 0;` — the temporary exists only on the true arm.
    let mut ctx = listing_ctx();
    let sc = some_class(&mut ctx);
    let s32 = ctx.types.common().s32;
    let bool_ty = ctx.types.common().bool;
    let sig = ctx.types.func(vec![bool_ty], None, false);
    let ctor = ctx.sym("_ZN9SomeClassC1Ev");
    let dtor = ctx.sym("_ZN9SomeClassD1Ev");
    let get = ctx.sym("_ZN9SomeClass3getEv");
    let msig = sc.method_sig;
    let get_sig = sc.get_sig;
    let mut b = FunctionBuilder::new(&mut ctx, "f", sig, &[bool_ty]);
    let cond = b.params()[0];
    let x = b.alloca(s32, "x", true, 4);
    let tmp = b.alloca(sc.rec, "ref.tmp", false, 0);
    let full = b.begin_full_expression();
    b.begin_conditional();
    let t = b.create_region_op(OpKind::Ternary, &[cond], &[s32], 2);
    b.enter_region(t, 0, false);
    b.call(ctor, msig, &[tmp], plain());
    b.push_temporary_cleanup(CleanupKind::All, move |b| {
        b.call(dtor, msig, &[tmp], plain());
    });
    let v = b.call(get, get_sig, &[tmp], plain()).expect("result");
    b.exit_region_yielding(&[v]);
    b.enter_region(t, 1, false);
    let z = b.const_int(s32, 0);
    b.exit_region_yielding(&[z]);
    b.end_conditional();
    let r = b.result(t, 0);
    b.store(r, x, 4);
    assert!(b.full_expression_has_cleanups(full));
    b.end_full_expression(full);
    let f = b.finish().expect("builds");
    let text = function_to_string(&ctx, &f);
    let expected = "\
cir.func @f(%arg0: !cir.bool) {
  %0 = cir.alloca !s32i, !cir.ptr<!s32i>, [\"x\", init] {alignment = 4 : i64}
  %1 = cir.alloca !rec_SomeClass, !cir.ptr<!rec_SomeClass>, [\"ref.tmp\"]
  %2 = cir.alloca !cir.bool, !cir.ptr<!cir.bool>, [\"cleanup.cond\"] {alignment = 1 : i64}
  %3 = cir.const #false
  cir.store align(1) %3, %2 : !cir.bool, !cir.ptr<!cir.bool>
  cir.cleanup.scope {
    %4 = cir.ternary(%arg0, true {
      cir.call @_ZN9SomeClassC1Ev(%1) : (!cir.ptr<!rec_SomeClass>) -> ()
      %5 = cir.const #true
      cir.store align(1) %5, %2 : !cir.bool, !cir.ptr<!cir.bool>
      %6 = cir.call @_ZN9SomeClass3getEv(%1) : (!cir.ptr<!rec_SomeClass>) -> !s32i
      cir.yield %6 : !s32i
    }, false {
      %7 = cir.const #cir.int<0> : !s32i
      cir.yield %7 : !s32i
    }) : (!cir.bool) -> !s32i
    cir.store align(4) %4, %0 : !s32i, !cir.ptr<!s32i>
    cir.yield
  } cleanup all {
    %8 = cir.load align(1) %2 : !cir.ptr<!cir.bool>, !cir.bool
    cir.if %8 {
      cir.call @_ZN9SomeClassD1Ev(%1) : (!cir.ptr<!rec_SomeClass>) -> ()
      cir.yield
    }
    cir.yield
  }
  cir.return
}
";
    assert_eq!(text, expected);
}

#[test]
fn exception_specifications_and_throw() {
    let mut ctx = listing_ctx();
    let s32 = ctx.types.common().s32;
    let void_sig = ctx.types.func(vec![], None, false);
    let ti = ctx.sym("_ZTIi");
    let mut b = FunctionBuilder::new(&mut ctx, "_Z1gv", void_sig, &[]);
    b.enter_try();
    let p = b.alloc_exception(s32, 4);
    let v = b.const_int(s32, 7);
    b.store(v, p, 4);
    b.emit_throw(p, ti, None);
    b.emit_filter(&[ti]);
    b.exit_try();
    b.enter_try();
    b.emit_rethrow();
    b.emit_terminate();
    b.exit_try();
    let f = b.finish().expect("builds");
    let text = function_to_string(&ctx, &f);
    let expected = "\
cir.func @_Z1gv() {
  cir.try {
    %0 = cir.alloc.exception 4 -> !cir.ptr<!s32i>
    %1 = cir.const #cir.int<7> : !s32i
    cir.store align(4) %1, %0 : !s32i, !cir.ptr<!s32i>
    cir.throw %0 : !cir.ptr<!s32i>, @_ZTIi
    cir.unreachable
  } filter [#cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
    cir.unreachable
  }
  cir.try {
    cir.throw
    cir.unreachable
  } terminate {
    cir.unreachable
  }
  cir.return
}
";
    assert_eq!(text, expected);
}

#[test]
fn misuse_is_reported_not_panicked() {
    let mut ctx = listing_ctx();
    let void_sig = ctx.types.func(vec![], None, false);
    let mut b = FunctionBuilder::new(&mut ctx, "f", void_sig, &[]);
    b.pop_cleanup();
    b.emit_break();
    let err = b.finish().expect_err("misuse");
    assert!(err.to_string().contains("pop_cleanup"), "{err}");

    let mut ctx = listing_ctx();
    let mut b = FunctionBuilder::new(&mut ctx, "f", void_sig, &[]);
    b.enter_scope();
    let err = b.finish().expect_err("open scope");
    assert!(err.to_string().contains("still open"), "{err}");
    let _ = AttrData::Bool(true);
}
