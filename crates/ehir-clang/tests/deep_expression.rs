//! Deep expression chains do not overflow the stack: Clang's AST of
//! `int main() { return 0 + 1 + 1 ... ; }` nested DEPTH levels deep (written as Clang
//! writes it, compactly) is read, indexed, generated and dropped; the module verifies and
//! the interpreter computes the sum. (Clang itself writes this JSON indented, quadratic
//! in the depth, and crashes near 30,000 levels; the reader and generator must not be
//! the limit.)

const DEPTH: usize = 200_000;

/// The JSON AST of the program, `depth` additions deep.
fn deep_json(depth: usize) -> String {
    let literal = |value: u32, offset: usize| {
        format!(
            r#"{{"id":"0x{offset:x}1","kind":"IntegerLiteral","range":{{"begin":{{"offset":{offset}}},"end":{{"offset":{offset}}}}},"type":{{"qualType":"int"}},"valueCategory":"prvalue","value":"{value}"}}"#
        )
    };
    let mut json = String::with_capacity(depth * 260 + 1024);
    json.push_str(r#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[{"id":"0x2","kind":"FunctionDecl","loc":{"offset":4,"file":"deep.cpp","line":1,"col":5,"tokLen":4},"range":{"begin":{"offset":0},"end":{"offset":9}},"name":"main","mangledName":"main","type":{"qualType":"int ()"},"inner":[{"id":"0x3","kind":"CompoundStmt","range":{"begin":{"offset":11},"end":{"offset":12}},"inner":[{"id":"0x4","kind":"ReturnStmt","range":{"begin":{"offset":13},"end":{"offset":14}},"inner":["#);
    for level in 0..depth {
        json.push_str(&format!(
            r#"{{"id":"0x{:x}0","kind":"BinaryOperator","range":{{"begin":{{"offset":20}},"end":{{"offset":21}}}},"type":{{"qualType":"int"}},"valueCategory":"prvalue","opcode":"+","inner":["#,
            level + 16
        ));
    }
    json.push_str(&literal(0, 20));
    for level in (0..depth).rev() {
        json.push(',');
        json.push_str(&literal(1, level + 24));
        json.push_str("]}");
    }
    json.push_str("]}]}]}]}");
    json
}

#[test]
fn a_deep_chain_of_additions_is_read_generated_and_run() {
    let json = deep_json(DEPTH);
    let module = ehir_clang::compile_json(&json, "deep.cpp", &ehir_clang::Options::default())
        .unwrap_or_else(|ds| panic!("{:?}", ds.0.first()));
    drop(json);
    ehir_core::verifier::verify_module(&module).expect("verifies");
    let outcome =
        ehir_interp::run_module(&module, &ehir_interp::RunConfig::default()).expect("runs");
    assert!(outcome.runtime_error.is_none());
    assert_eq!(outcome.exit_status, (DEPTH % 256) as i32);
}

#[test]
fn a_shallow_chain_computes_the_same_way() {
    // The same generator at depth 3: `0 + 1 + 1 + 1` exits with 3.
    let module =
        ehir_clang::compile_json(&deep_json(3), "deep.cpp", &ehir_clang::Options::default())
            .unwrap_or_else(|ds| panic!("{:?}", ds.0.first()));
    let outcome =
        ehir_interp::run_module(&module, &ehir_interp::RunConfig::default()).expect("runs");
    assert_eq!(outcome.exit_status, 3);
}
