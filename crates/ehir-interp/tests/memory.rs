//! The memory model: record fields laid out from the declared records, arrays,
//! pointers, globals and string constants; and every bad access reported as a runtime
//! error (exit status 3) instead of a host crash.

mod common;

use common::*;
use ehir_interp::EXIT_RUNTIME_ERROR;

#[test]
fn records_arrays_and_globals() {
    let o = run_text(
        r#"
!rec_S = !cir.record<struct "S" {!s8i, !s32i, !cir.double}>
!rec_U = !cir.record<union "U" {!s8i, !s64i}>
cir.global external @table = #cir.const_array<[#cir.int<5> : !s32i, #cir.int<6> : !s32i, #cir.int<7> : !s32i]> : !cir.array<!s32i x 3>
cir.global external @counter = #cir.int<40> : !s32i
cir.func @main() -> !s32i {
  %arr = cir.alloca !cir.array<!rec_S x 4>, !cir.ptr<!cir.array<!rec_S x 4>>, ["arr"]
  %base = cir.cast array_to_ptrdecay %arr : !cir.ptr<!cir.array<!rec_S x 4>> -> !cir.ptr<!rec_S>
  %three = cir.const #cir.int<3> : !s64i
  %last = cir.ptr_stride %base, %three : (!cir.ptr<!rec_S>, !s64i) -> !cir.ptr<!rec_S>
  %f1 = cir.get_member %last[1] {name = "i"} : !cir.ptr<!rec_S> -> !cir.ptr<!s32i>
  %f2 = cir.get_member %last[2] {name = "d"} : !cir.ptr<!rec_S> -> !cir.ptr<!cir.double>
  cir.call @markp(%f1) : (!cir.ptr<!s32i>) -> ()
  cir.call @markp(%f2) : (!cir.ptr<!cir.double>) -> ()
  %v = cir.const #cir.int<-9> : !s32i
  cir.store %v, %f1 : !s32i, !cir.ptr<!s32i>
  %x = cir.load %f1 : !cir.ptr<!s32i>, !s32i
  cir.call @mark(%x) : (!s32i) -> ()
  %u = cir.alloca !rec_U, !cir.ptr<!rec_U>, ["u"]
  %ub = cir.get_member %u[0] {name = "b"} : !cir.ptr<!rec_U> -> !cir.ptr<!s8i>
  %ul = cir.get_member %u[1] {name = "l"} : !cir.ptr<!rec_U> -> !cir.ptr<!s64i>
  %big = cir.const #cir.int<258> : !s64i
  cir.store %big, %ul : !s64i, !cir.ptr<!s64i>
  %low = cir.load %ub : !cir.ptr<!s8i>, !s8i
  cir.call @mark8(%low) : (!s8i) -> ()
  %t2 = cir.const #cir.global_view<@table, [2 : i32]> : !cir.ptr<!s32i>
  %seven = cir.load %t2 : !cir.ptr<!s32i>, !s32i
  cir.call @mark(%seven) : (!s32i) -> ()
  %c = cir.get_global @counter : !cir.ptr<!s32i>
  %cv = cir.load %c : !cir.ptr<!s32i>, !s32i
  %two = cir.const #cir.int<2> : !s32i
  %r = cir.binop(add, %cv, %two) : !s32i
  cir.return %r : !s32i
}
"#,
        &[],
        &[],
    );
    assert_eq!(o.exit_status, 42, "{:?}", o.runtime_error);
    // S = {i8 @0, i32 @4, f64 @8}, 16 bytes: element 3 starts at 48.
    assert_eq!(
        calls(&o),
        vec![
            "call @markp(&arr+52)",
            "call @markp(&arr+56)",
            "call @mark(-9)",
            "call @mark8(2)",
            "call @mark(7)"
        ]
    );
}

fn error_of(text: &str) -> String {
    let o = run_text(text, &[], &[]);
    assert_eq!(
        o.exit_status,
        EXIT_RUNTIME_ERROR,
        "{}",
        lines(&o).join("\n")
    );
    let l = lines(&o);
    assert_eq!(l.last().map(String::as_str), Some("exit 3"));
    let e = o.runtime_error.expect("a runtime error");
    assert_eq!(l[l.len() - 2], format!("error: {}", e.message));
    e.message
}

#[test]
fn out_of_bounds_access_is_reported() {
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %a = cir.alloca !cir.array<!s32i x 4>, !cir.ptr<!cir.array<!s32i x 4>>, ["a"]
  %p = cir.cast array_to_ptrdecay %a : !cir.ptr<!cir.array<!s32i x 4>> -> !cir.ptr<!s32i>
  %four = cir.const #cir.int<4> : !s32i
  %q = cir.ptr_stride %p, %four : (!cir.ptr<!s32i>, !s32i) -> !cir.ptr<!s32i>
  %v = cir.load %q : !cir.ptr<!s32i>, !s32i
  cir.return %v : !s32i
}
"#,
    );
    assert_eq!(
        m,
        "out-of-bounds access of 4 bytes at offset 16 of &a (16 bytes)"
    );
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %a = cir.alloca !s32i, !cir.ptr<!s32i>, ["a"]
  %m = cir.const #cir.int<-1> : !s32i
  %q = cir.ptr_stride %a, %m : (!cir.ptr<!s32i>, !s32i) -> !cir.ptr<!s32i>
  %v = cir.load %q : !cir.ptr<!s32i>, !s32i
  cir.return %v : !s32i
}
"#,
    );
    assert_eq!(
        m,
        "out-of-bounds access of 4 bytes at offset -4 of &a (4 bytes)"
    );
}

/// A pointer to an alloca of an inner scope used after the scope ended.
#[test]
fn use_after_scope_is_reported() {
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %slot = cir.alloca !cir.ptr<!s32i>, !cir.ptr<!cir.ptr<!s32i>>, ["slot"]
  cir.scope {
    %x = cir.alloca !s32i, !cir.ptr<!s32i>, ["x", init]
    %one = cir.const #cir.int<1> : !s32i
    cir.store %one, %x : !s32i, !cir.ptr<!s32i>
    cir.store %x, %slot : !cir.ptr<!s32i>, !cir.ptr<!cir.ptr<!s32i>>
    cir.yield
  }
  %p = cir.load %slot : !cir.ptr<!cir.ptr<!s32i>>, !cir.ptr<!s32i>
  %v = cir.load %p : !cir.ptr<!s32i>, !s32i
  cir.return %v : !s32i
}
"#,
    );
    assert_eq!(m, "use of &x after its scope ended");
}

#[test]
fn null_dangling_heap_and_constant_accesses_are_reported() {
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %p = cir.const #cir.ptr<null> : !cir.ptr<!s32i>
  %v = cir.load %p : !cir.ptr<!s32i>, !s32i
  cir.return %v : !s32i
}
"#,
    );
    assert_eq!(m, "null pointer dereference");
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %n = cir.const #cir.int<8> : !u64i
  %p = cir.call @malloc(%n) : (!u64i) -> !cir.ptr<!s32i>
  cir.call @free(%p) : (!cir.ptr<!s32i>) -> ()
  %v = cir.load %p : !cir.ptr<!s32i>, !s32i
  cir.return %v : !s32i
}
"#,
    );
    assert_eq!(m, "use of heap#1 after it was freed");
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %n = cir.const #cir.int<8> : !u64i
  %p = cir.call @_Znwm(%n) : (!u64i) -> !cir.ptr<!s32i>
  cir.call @_ZdlPv(%p) : (!cir.ptr<!s32i>) -> ()
  cir.call @_ZdlPv(%p) : (!cir.ptr<!s32i>) -> ()
  %z = cir.const #cir.int<0> : !s32i
  cir.return %z : !s32i
}
"#,
    );
    assert_eq!(m, "delete of heap#1+0, which was already freed");
    let m = error_of(
        r#"
cir.global constant external @k = #cir.int<1> : !s32i
cir.func @main() -> !s32i {
  %p = cir.get_global @k : !cir.ptr<!s32i>
  %two = cir.const #cir.int<2> : !s32i
  cir.store %two, %p : !s32i, !cir.ptr<!s32i>
  cir.return %two : !s32i
}
"#,
    );
    assert_eq!(m, "write to constant @k");
}

#[test]
fn arithmetic_errors_are_reported() {
    let m = error_of(
        r#"
cir.func @main() -> !s32i {
  %a = cir.const #cir.int<1> : !s32i
  %z = cir.const #cir.int<0> : !s32i
  %q = cir.binop(div, %a, %z) : !s32i
  cir.return %q : !s32i
}
"#,
    );
    assert_eq!(m, "integer division by zero");
    let m = error_of("cir.func @main() -> !s32i {\n  cir.unreachable\n}\n");
    assert_eq!(m, "reached cir.unreachable");
}

/// The error names the function and carries the op's source location.
#[test]
fn runtime_errors_are_located() {
    let text = "cir.func @main() -> !s32i {\n  %p = cir.const #cir.ptr<null> : !cir.ptr<!s32i>\n  %v = cir.load %p : !cir.ptr<!s32i>, !s32i\n  cir.return %v : !s32i\n}\n";
    let o = run_text(text, &[], &[]);
    let e = o.runtime_error.expect("error");
    assert_eq!(e.function, "main");
    let offset = e.loc.offset().expect("a location");
    assert!(
        text[offset..].starts_with("%v = cir.load") || text[offset..].starts_with("cir.load"),
        "{}",
        &text[offset..]
    );
}
