//! Rejected inputs: every error is reported at the offending token, with the exact line
//! and column, and the parser recovers at the next top-level item to report more.

mod common;

use common::*;

/// The single diagnostic of `text` as `(line, column, message)`.
fn only_error(text: &str) -> (usize, usize, String) {
    let e = errors("input.cir", text);
    assert_eq!(e.len(), 1, "expected one diagnostic, got {e:?}");
    e.into_iter().next().expect("one")
}

#[test]
fn unknown_op() {
    let e = only_error("cir.func @f() {\n  cir.bogus %0\n  cir.return\n}\n");
    assert_eq!(e, (2, 3, "unknown op 'cir.bogus'".to_string()));
}

#[test]
fn bad_types() {
    let e = only_error("cir.func @f(%arg0: !s33x) {\n  cir.return\n}\n");
    assert_eq!(e, (1, 20, "unknown type '!s33x'".to_string()));
    let e = only_error("cir.func @f(%arg0: !cir.ptr<!s32i) {\n  cir.return\n}\n");
    assert_eq!((e.0, e.1), (1, 34));
    assert_eq!(e.2, "expected '>', found ')'");
    let e = only_error("cir.func @f(%arg0: !cir.array<!s32i 4>) {\n  cir.return\n}\n");
    assert_eq!(
        e,
        (
            1,
            37,
            "expected 'x' and the array length, found '4'".to_string()
        )
    );
    let e = only_error("cir.func @f(%arg0: !s0i) {\n  cir.return\n}\n");
    assert_eq!(e.2, "unknown type '!s0i'");
    let e = only_error("cir.func @f(%arg0: !cir.record<struct \"X\" {}>) {\n  cir.return\n}\n");
    assert!(e.2.contains("declare '!rec_X = !cir.record<...>'"), "{e:?}");
}

#[test]
fn unterminated_region() {
    let text = "cir.func @f() {\n  cir.scope {\n    cir.yield\n  }\n  cir.return\n";
    let d = ehir_reader::parse_module("input.cir", text).expect_err("rejected");
    assert_eq!(d.0.len(), 1);
    let source = ehir_core::SourceFile::new("input.cir", text);
    assert_eq!(
        source.line_col(d.0[0].loc.0 as usize),
        (6, 1),
        "at the end of file"
    );
    assert_eq!(
        d.0[0].message,
        "unexpected end of file: expected '}' to close a region"
    );
    assert_eq!(
        source.line_col(d.0[0].notes[0].0.0 as usize),
        (1, 15),
        "the function's '{{'"
    );
    // A missing '}' before the next function is reported there, and that function is
    // still parsed.
    let text = "cir.func @f() {\n  cir.return\ncir.func @g() {\n  cir.bogus\n}\n";
    let e = errors("input.cir", text);
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (3, 1));
    assert_eq!(e[0].2, "expected '}' to close the region before 'cir.func'");
    assert_eq!(
        (e[1].0, e[1].1, e[1].2.as_str()),
        (4, 3, "unknown op 'cir.bogus'")
    );
}

#[test]
fn truncated_files() {
    let (name, text) = seed("listings", "26");
    let mut cut_points: Vec<usize> = (0..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    cut_points.retain(|&i| i < text.len() - 2);
    for cut in cut_points {
        let truncated = &text[..cut];
        let result = ehir_reader::parse_module(&name, truncated);
        // Cut before the body's '{', the header is a complete declaration.
        if truncated.contains('{') {
            let d = result.expect_err("a truncated function is rejected");
            assert!(!d.0.is_empty());
            for diag in &d.0 {
                let offset = diag.loc.offset().expect("located");
                assert!(offset <= truncated.len(), "location inside the input");
            }
        }
    }
    let e = only_error("cir.func @f(%arg0: !cir.ptr<");
    assert_eq!(e, (1, 29, "expected a type, found end of file".to_string()));
    let e = only_error("cir.func @f() {\n  %0 = cir.const #cir.int<3");
    assert_eq!(e, (2, 28, "expected '>', found end of file".to_string()));
}

#[test]
fn undefined_block_and_value() {
    let e = errors(
        "input.cir",
        "cir.func @f() {\n  cir.br ^bb7\n^bb1:\n  cir.return %9 : !s32i\n}\n",
    );
    assert_eq!(
        e,
        vec![
            (2, 10, "use of undefined block '^bb7'".to_string()),
            (4, 14, "use of undefined value '%9'".to_string()),
        ]
    );
    // Successors name blocks of their own region only.
    let e = only_error(
        "cir.func @f() {\n  cir.br ^bb1\n^bb1:\n  cir.scope {\n    cir.br ^bb1\n  }\n  cir.return\n}\n",
    );
    assert_eq!(e, (5, 12, "use of undefined block '^bb1'".to_string()));
    // A value defined in a region is not visible after it closes.
    let e = only_error(
        "cir.func @f() -> !s32i {\n  cir.scope {\n    %x = cir.const #cir.int<1> : !s32i\n  }\n  cir.return %x : !s32i\n}\n",
    );
    assert_eq!(e, (5, 14, "use of undefined value '%x'".to_string()));
}

#[test]
fn redefinitions() {
    let e = only_error(
        "cir.func @f() {\n  cir.br ^bb1\n^bb1:\n  cir.br ^bb1\n^bb1:\n  cir.return\n}\n",
    );
    assert_eq!(e, (5, 1, "redefinition of block '^bb1'".to_string()));
    // A name visible from an enclosing region may not be defined again.
    let e = only_error(
        "cir.func @f(%arg0: !s32i) {\n  cir.scope {\n    %arg0 = cir.const #cir.int<1> : !s32i\n  }\n  cir.return\n}\n",
    );
    assert_eq!(e, (3, 5, "redefinition of value '%arg0'".to_string()));
    let e = errors(
        "input.cir",
        "cir.func @f() {\n  cir.return\n}\ncir.func @f() {\n  cir.return\n}\ncir.global external @g : !s32i\ncir.global external @g : !s32i\n",
    );
    assert_eq!(
        e,
        vec![
            (4, 10, "redefinition of function '@f'".to_string()),
            (8, 21, "redefinition of global '@g'".to_string()),
        ]
    );
}

#[test]
fn entry_blocks_are_not_branch_targets() {
    // The printer does not label an entry block without parameters, so a branch to one
    // could not be printed.
    let e = only_error("cir.func @f() {\n^bb0:\n  cir.br ^bb0\n}\n");
    assert_eq!(
        e,
        (
            3,
            10,
            "'^bb0' is the entry block of its region and cannot be a branch target".to_string()
        )
    );
    let e = only_error(
        "cir.func @f() {\n  cir.scope {\n  ^bb3:\n    cir.br ^bb4\n  ^bb4:\n    cir.br ^bb3\n  }\n  cir.return\n}\n",
    );
    assert_eq!((e.0, e.1), (6, 12));
}

#[test]
fn empty_blocks_followed_by_a_label() {
    let e = only_error("cir.func @f() {\n  cir.br ^bb1\n^bb1:\n^bb2:\n  cir.return\n}\n");
    assert_eq!(
        e,
        (
            3,
            1,
            "this block is empty: every block ends with a terminator".to_string()
        )
    );
    // An empty entry block of a nested region (it would print as nothing).
    let e = only_error(
        "cir.func @f() {\n  cir.scope {\n  ^a:\n  ^b(%x: !s32i):\n    cir.yield\n  }\n  cir.return\n}\n",
    );
    assert_eq!((e.0, e.1), (3, 3));
}

#[test]
fn type_mismatches_between_definition_and_use() {
    let e = only_error(
        "cir.func @f(%arg0: !s32i, %arg1: !cir.ptr<!s32i>) {\n  cir.store %arg0, %arg1 : !s64i, !cir.ptr<!s32i>\n  cir.return\n}\n",
    );
    assert_eq!(e.0, 2);
    assert_eq!(e.1, 13);
    assert_eq!(e.2, "'%arg0' has type !s32i but is used as !s64i");
    // A forward reference's use type is checked at the definition.
    let e = only_error(
        "cir.func @f() -> !s32i {\n  cir.br ^bb2\n^bb1:\n  cir.return %v : !s64i\n^bb2:\n  %v = cir.const #cir.int<5> : !s32i\n  cir.br ^bb1\n}\n",
    );
    assert_eq!(
        e,
        (
            6,
            3,
            "'%v' is defined with type !s32i but was used as !s64i".to_string()
        )
    );
}

#[test]
fn result_count_mismatch() {
    let e = only_error("cir.func @f() {\n  %0 = cir.call @g() : () -> ()\n  cir.return\n}\n");
    assert_eq!(
        e,
        (
            2,
            3,
            "'cir.call' produces 0 result(s) but 1 name(s) are bound to it".to_string()
        )
    );
}

#[test]
fn literals_out_of_range() {
    let e = only_error(
        "cir.func @f() {\n  %0 = cir.const #cir.int<99999999999999999999999999999999999999999> : !s32i\n  cir.return\n}\n",
    );
    assert_eq!(e, (2, 27, "integer literal is out of range".to_string()));
    let e = only_error("cir.func @f() {\n  %0 = cir.const #cir.int<128> : !s8i\n  cir.return\n}\n");
    assert_eq!(
        e,
        (
            2,
            27,
            "integer 128 does not fit in !s8i (-128 to 127)".to_string()
        )
    );
    let e = only_error("cir.func @f() {\n  %0 = cir.const #cir.int<-1> : !u8i\n  cir.return\n}\n");
    assert_eq!(e.2, "integer -1 does not fit in !u8i (0 to 255)");
    let e = only_error(
        "cir.func @f() {\n  %0 = cir.alloca !s8i, !cir.ptr<!s8i>, [\"a\"] {alignment = 70000 : i64}\n  cir.return\n}\n",
    );
    assert_eq!(e.2, "an alignment must be between 0 and 65535");
}

#[test]
fn lexical_errors() {
    let e = only_error(
        "cir.func @f() {\n  %0 = cir.alloca !s8i, !cir.ptr<!s8i>, [\"unterminated]\n  cir.return\n}\n",
    );
    assert_eq!(
        e,
        (
            2,
            42,
            "unterminated string (missing closing '\"')".to_string()
        )
    );
    let e = only_error("cir.func @f() {\n  cir.call @g(% 1) : () -> ()\n}\n");
    assert_eq!(
        e,
        (
            2,
            15,
            "expected a value name directly after '%'".to_string()
        )
    );
    let e = only_error("cir.func @f() {\n  cir.br ^ bb1\n}\n");
    assert_eq!(
        e,
        (
            2,
            10,
            "expected a block name directly after '^'".to_string()
        )
    );
    let e = only_error("cir.func @f() {\n  cir.return\n} é\n");
    assert_eq!(e.0, 3);
    assert_eq!(e.1, 3);
    assert!(e.2.starts_with("unexpected character 'é'"), "{e:?}");
    let e = only_error("cir.func @f() {\n  cir.goto \"\\q\"\n}\n");
    assert_eq!((e.0, e.1), (2, 13));
}

#[test]
fn errors_in_several_functions_are_all_reported() {
    let text = "cir.func @a() {\n  cir.bogus\n}\ncir.func @b() {\n  %0 = cir.const #cir.int<1> : !s99999i\n}\n!rec_X = !cir.record<struct \"X\" {!s32i}>\n!rec_X = !cir.record<struct \"X\" {!s64i}>\ncir.func @c() {\n  cir.br ^nowhere\n}\n";
    let e = errors("input.cir", text);
    let lines: Vec<usize> = e.iter().map(|e| e.0).collect();
    assert_eq!(lines, vec![2, 5, 8, 10], "{e:?}");
}

#[test]
fn record_aliases_may_be_used_before_their_declaration() {
    let text = "cir.func @f(%arg0: !cir.ptr<!Node>) {\n  cir.return\n}\n!Node = !cir.record<struct \"Node\" {!cir.ptr<!Node>, !Leaf}>\n!Leaf = !cir.record<union \"Leaf\" incomplete>\n";
    let printed = round_trip("aliases.cir", text);
    assert_eq!(printed, text);
    let e = only_error(
        "cir.func @f(%arg0: !cir.ptr<!Nod>) {\n  cir.return\n}\n!Node = !cir.record<struct \"Node\" {}>\n",
    );
    assert_eq!(e, (1, 29, "unknown type '!Nod'".to_string()));
}

#[test]
fn stray_tokens_at_module_level() {
    let e = only_error("}\n");
    assert_eq!(
        e.2,
        "expected a top-level item ('cir.func', 'cir.global', 'cir.typeinfo' or a record alias), found '}'"
    );
    let e = only_error("cir.func @f() {\n  cir.return\n}\n42\ncir.func @g() {\n  cir.return\n}\n");
    assert_eq!((e.0, e.1), (4, 1));
}

#[test]
fn call_signature_errors() {
    let e = only_error(
        "cir.func @f(%arg0: !s32i) {\n  cir.call @g(%arg0) : () -> ()\n  cir.return\n}\n",
    );
    assert_eq!(
        e,
        (
            2,
            22,
            "the signature lists 0 operand type(s) but the call has 1 operand(s)".to_string()
        )
    );
    let e = only_error("cir.func @f() {\n  %0 = cir.call @unknown()\n  cir.return\n}\n");
    assert_eq!((e.0, e.1), (2, 17));
    assert!(
        e.2.starts_with("cannot infer the result type of the call"),
        "{e:?}"
    );
    let e = only_error(
        "cir.func @f() {\n  %0 = cir.call @g() : () -> (!s32i, !s32i)\n  cir.return\n}\n",
    );
    assert_eq!(
        e.2,
        "expected ')' (a call returns at most one value), found ','"
    );
}

#[test]
fn nesting_limit_for_types_is_a_diagnostic() {
    let depth = 10_000;
    let ty = format!("{}!s32i{}", "!cir.ptr<".repeat(depth), ">".repeat(depth));
    let text = format!("cir.func @f(%arg0: {ty}) {{\n  cir.return\n}}\n");
    let e = only_error(&text);
    assert_eq!(e.0, 1);
    assert_eq!(e.2, "types nest deeper than 256 levels");
    let attr = format!("{}#true{}", "[".repeat(depth), "]".repeat(depth));
    let text = format!("cir.global external @g = {attr} : !cir.bool\n");
    let e = only_error(&text);
    assert_eq!(e.2, "attributes nest deeper than 256 levels");
    // 200 levels are fine, and print back.
    let ty = format!("{}!s32i{}", "!cir.ptr<".repeat(200), ">".repeat(200));
    let text = format!("cir.func @f(%arg0: {ty}) {{\n  cir.return\n}}\n");
    assert_eq!(round_trip("deep.cir", &text), text);
}

#[test]
fn param_abi_marks() {
    // A mark is a parameter's: not the callee operand of an indirect call, and not a word
    // the parser does not know.
    let text = "!rec_P = !cir.record<struct \"P\" {!s32i}>\ncir.func @f(%arg0: !cir.ptr<!cir.func<(!cir.ptr<!rec_P> by_value)>>, %arg1: !cir.ptr<!rec_P>) {\n  cir.call %arg0(%arg1) : (!cir.ptr<!cir.func<(!cir.ptr<!rec_P> by_value)>> by_value, !cir.ptr<!rec_P> by_value) -> ()\n  cir.return\n}\n";
    let e = only_error(text);
    assert_eq!(
        e,
        (
            3,
            77,
            "the callee operand cannot be marked 'by_value'".to_string()
        )
    );
    let e = only_error(
        "!rec_P = !cir.record<struct \"P\" {!s32i}>\ncir.func @g(!cir.ptr<!rec_P> by_ref)\n",
    );
    assert_eq!(
        e,
        (2, 30, "expected ',' or ')', found 'by_ref'".to_string())
    );
}
