//! The front end never panics: mangled versions of the corpus (truncated, with tokens
//! deleted or bytes changed) and deeply nested programs produce modules or diagnostics.

use std::path::PathBuf;

fn sources() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for dir in ["tests/cxx", "tests/filetests/cxx"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            if f.extension().is_some_and(|e| e == "cpp")
                && let Ok(t) = std::fs::read_to_string(&f)
            {
                out.push((f.display().to_string(), t));
            }
        }
    }
    assert!(out.len() >= 60, "corpus not found");
    out
}

/// A small deterministic pseudo-random generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn compile_no_panic(name: &str, text: &str) {
    let r = std::panic::catch_unwind(|| {
        let _ = ehir_cxx::compile(name, text);
    });
    if r.is_err() {
        panic!("the front end panicked on this input ({name}):\n{text}");
    }
}

#[test]
fn truncated_programs_do_not_panic() {
    for (name, text) in sources() {
        let bytes = text.as_bytes();
        let mut cut = 0;
        while cut < bytes.len() {
            if text.is_char_boundary(cut) {
                compile_no_panic(&name, &text[..cut]);
            }
            cut += 13;
        }
    }
}

#[test]
fn mutated_programs_do_not_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let pieces = [
        "",
        ";",
        "{",
        "}",
        "(",
        ")",
        "throw",
        "try",
        "catch (...)",
        "~",
        "::",
        "&",
        "*",
        "0",
        "'",
        "\"",
        "class X",
        "new",
        "delete[]",
        "operator=",
        "goto l;",
        "l:",
        "break;",
        "case 1:",
        "noexcept",
        "throw()",
        "const",
        "static",
        "virtual",
        "template",
        "->",
        ".",
        "?",
        ":",
    ];
    for (name, text) in sources() {
        let words: Vec<&str> = text
            .split_inclusive(|c: char| c.is_whitespace() || "(){};,".contains(c))
            .collect();
        for _ in 0..40 {
            let mut w = words.clone();
            for _ in 0..(1 + rng.below(3)) {
                let i = rng.below(w.len());
                match rng.below(3) {
                    0 => {
                        w.remove(i);
                    }
                    1 => w.insert(i, pieces[rng.below(pieces.len())]),
                    _ => {
                        let j = rng.below(w.len());
                        w.swap(i, j);
                    }
                }
                if w.is_empty() {
                    break;
                }
            }
            compile_no_panic(&name, &w.concat());
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    // Run on a thread with a small stack, as a fuzzer or the CLI might.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let depth = 10_000;
            let blocks = format!(
                "int main() {{ {} return 0; {} }}",
                "{ int x = 1; ".repeat(depth),
                "}".repeat(depth)
            );
            let m = ehir_cxx::compile("blocks.cpp", &blocks).expect("deeply nested blocks compile");
            assert!(!m.functions.is_empty());
            let parens = format!(
                "int main() {{ return {}1{}; }}",
                "(".repeat(depth),
                ")".repeat(depth)
            );
            ehir_cxx::compile("parens.cpp", &parens).expect("deeply nested parentheses compile");
            let unary = format!("int main() {{ return {}1; }}", "- ".repeat(depth));
            ehir_cxx::compile("unary.cpp", &unary).expect("deeply nested unary minus compiles");
            let ifs = format!(
                "int main(int c, char**) {{ {} return 0; }}",
                "if (c) ".repeat(depth)
            );
            ehir_cxx::compile("ifs.cpp", &ifs).expect("deeply nested ifs compile");
            let too_deep = format!(
                "int main() {{ return {}1{}; }}",
                "(".repeat(60000),
                ")".repeat(60000)
            );
            let ds = ehir_cxx::compile("deep.cpp", &too_deep).expect_err("too deep");
            assert!(ds.0[0].message.contains("nesting"), "{:?}", ds.0[0].message);
        })
        .expect("thread");
    handle.join().expect("no stack overflow or panic");
}

#[test]
fn unreachable_code_still_compiles_and_verifies() {
    // Code after return/break/throw goes to fresh (unreachable) blocks, including
    // conditionals with temporaries and labels.
    let src = r#"
        struct T { T(int); ~T(); int get() const; };
        int f(bool c) {
          return 1;
          int x = c ? T(1).get() : 0;
          T t(2);
        l:
          return x && T(3).get();
        }
        void g(int n) {
          while (n) { break; T t(4); continue; }
          throw 1;
          T t(5);
        }
    "#;
    let m = ehir_cxx::compile("dead.cpp", src).expect("compiles");
    ehir_core::verifier::verify_module(&m).expect("verifies");
}
