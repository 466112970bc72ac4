//! Rejected inputs that need Rust: every cut of a listing is rejected with located
//! diagnostics, errors at the very end of an input without a final newline, nesting
//! limits on generated 10,000-level types and attributes, and record aliases used
//! before their declaration printing back unchanged. The other reader errors (each at
//! the offending token with its exact line and column, recovery at the next top-level
//! item) are file tests under `tests/filetests/reader/errors/`.

mod common;

use common::*;

/// The single diagnostic of `text` as `(line, column, message)`.
fn only_error(text: &str) -> (usize, usize, String) {
    let e = errors("input.cir", text);
    assert_eq!(e.len(), 1, "expected one diagnostic, got {e:?}");
    e.into_iter().next().expect("one")
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
fn record_aliases_may_be_used_before_their_declaration() {
    let text = "cir.func @f(%arg0: !cir.ptr<!Node>) {\n  cir.return\n}\n!Node = !cir.record<struct \"Node\" {!cir.ptr<!Node>, !Leaf}>\n!Leaf = !cir.record<union \"Leaf\" incomplete>\n";
    // Records print under the alias upstream gives them: `rec_` and their name.
    let canonical = text
        .replace("!Node", "!rec_Node")
        .replace("!Leaf", "!rec_Leaf");
    assert_eq!(round_trip("aliases.cir", text), canonical);
    assert_eq!(round_trip("aliases.cir", &canonical), canonical);
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
