//! The front end's own code never panics on an AST Clang would not write: Clang's JSON
//! AST of corpus programs, mutated (nodes dropped, copied over others, keys removed,
//! strings swapped for others of the dump, the text cut short), is read and generated
//! for both ABIs into a module that verifies, or into diagnostics. (The `clang_ast` fuzz
//! target does the same without bound; this is its deterministic, bounded part, and
//! `EHIR_AST_MUTANTS=N` makes it longer.) Needs
//! `clang++-22` (or `$EHIR_CLANG`) for the dumps; fails loudly without it.

use ehir_clang::ClangOptions;
use ehir_core::abi::EhAbi;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The programs whose dumps are mutated, with their dialect.
const PROGRAMS: &[(&str, &str)] = &[
    ("tests/cxx/16-ctor-throws-partial-destruction.cpp", "c++14"),
    ("tests/cxx/25-ctor-function-try-block.cpp", "c++14"),
    ("examples/eh-tour.cpp", "c++14"),
    ("tests/cxx-corpus/05-lambda-cleanups.cpp", "c++17"),
];

/// Mutants of each dump (`EHIR_AST_MUTANTS` overrides it, for a longer run).
fn mutants() -> u64 {
    std::env::var("EHIR_AST_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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

/// The number of JSON objects in `value`.
fn count_objects(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(count_objects).sum::<usize>(),
        Value::Array(items) => items.iter().map(count_objects).sum(),
        _ => 0,
    }
}

/// The `n`th object of `value` in depth-first order (`n` counts down to it).
fn nth_object<'v>(value: &'v mut Value, n: &mut usize) -> Option<&'v mut Map<String, Value>> {
    match value {
        Value::Object(_) if *n == 0 => match value {
            Value::Object(map) => Some(map),
            _ => None,
        },
        Value::Object(map) => {
            *n -= 1;
            map.values_mut().find_map(|v| nth_object(v, n))
        }
        Value::Array(items) => items.iter_mut().find_map(|v| nth_object(v, n)),
        _ => None,
    }
}

/// Every string value of the dump with its key.
fn strings(value: &Value, key: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) => out.push((key.to_string(), s.clone())),
        Value::Object(map) => map.iter().for_each(|(k, v)| strings(v, k, out)),
        Value::Array(items) => items.iter().for_each(|v| strings(v, key, out)),
        _ => {}
    }
}

/// One mutation of `dump`, as JSON text.
fn mutate(dump: &Value, pool: &[(String, String)], rng: &mut Rng) -> String {
    let mut value = dump.clone();
    let objects = count_objects(&value);
    let pick = |rng: &mut Rng| rng.below(objects);
    match rng.below(5) {
        // Drop a child node.
        0 => {
            let mut n = pick(rng);
            if let Some(Value::Array(inner)) = nth_object(&mut value, &mut n)
                .and_then(|map| map.get_mut("inner"))
                .filter(|inner| inner.as_array().is_some_and(|a| !a.is_empty()))
            {
                let at = rng.below(inner.len());
                inner.remove(at);
            }
        }
        // Copy one node over another.
        1 => {
            let mut from = pick(rng);
            let copied = nth_object(&mut value, &mut from).map(|m| m.clone());
            let mut to = pick(rng);
            if let (Some(copied), Some(target)) = (copied, nth_object(&mut value, &mut to)) {
                *target = copied;
            }
        }
        // Remove a key.
        2 => {
            let mut n = pick(rng);
            if let Some(map) = nth_object(&mut value, &mut n)
                && !map.is_empty()
            {
                let key = map.keys().nth(rng.below(map.len())).cloned();
                if let Some(key) = key {
                    map.remove(&key);
                }
            }
        }
        // Give a string another value the dump has, of the same key or of any.
        3 => {
            let mut n = pick(rng);
            if let Some(map) = nth_object(&mut value, &mut n) {
                let keys: Vec<String> = map
                    .iter()
                    .filter(|(_, v)| v.is_string())
                    .map(|(k, _)| k.clone())
                    .collect();
                if !keys.is_empty() {
                    let key = &keys[rng.below(keys.len())];
                    let same: Vec<&String> = pool
                        .iter()
                        .filter(|(k, _)| k == key)
                        .map(|(_, s)| s)
                        .collect();
                    let replacement = if rng.below(2) == 0 && !same.is_empty() {
                        same[rng.below(same.len())].clone()
                    } else {
                        pool[rng.below(pool.len())].1.clone()
                    };
                    map.insert(key.clone(), Value::String(replacement));
                }
            }
        }
        // Cut the text short.
        _ => {
            let text = value.to_string();
            let mut cut = rng.below(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return text[..cut].to_string();
        }
    }
    value.to_string()
}

#[test]
fn mutated_clang_asts_give_modules_that_verify_or_diagnostics() {
    let mut compiled = 0;
    let mut rejected = 0;
    for (index, (program, std)) in PROGRAMS.iter().enumerate() {
        let path = root().join(program);
        let text = std::fs::read_to_string(&path).expect("readable");
        let options = ClangOptions {
            std: Some(std.to_string()),
            ..Default::default()
        };
        // The Windows target's own small headers keep the dump near 100 KB.
        let json = ehir_clang::clang::dump_ast(&path, &text, EhAbi::Msvc, &options)
            .unwrap_or_else(|e| panic!("{program}: Clang's AST dump failed: {e}"));
        let dump: Value = serde_json::from_str(&json).expect("Clang writes JSON");
        let mut pool = Vec::new();
        strings(&dump, "", &mut pool);
        let main_file = path.display().to_string();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (index as u64 + 1));
        for mutant in 0..mutants() {
            let mutated = mutate(&dump, &pool, &mut rng);
            for abi in EhAbi::ALL {
                let compile_options = ehir_clang::Options {
                    abi,
                    clang: options.clone(),
                };
                let result = std::panic::catch_unwind(|| {
                    ehir_clang::compile_json(&mutated, &main_file, &compile_options)
                });
                match result {
                    Err(_) => panic!(
                        "{program}: mutant {mutant} ({}) panicked the front end",
                        abi.name()
                    ),
                    Ok(Err(_)) => rejected += 1,
                    Ok(Ok(module)) => {
                        if let Err(d) = ehir_core::verifier::verify_module(&module) {
                            panic!(
                                "{program}: mutant {mutant} ({}) gives a module that does not verify: {:?}",
                                abi.name(),
                                d.0.first()
                            );
                        }
                        compiled += 1;
                    }
                }
            }
        }
    }
    ehir_clang::headers::remove_msvc_headers();
    println!("{compiled} mutants compiled to modules that verify, {rejected} rejected");
    // Both outcomes occur: the mutations neither all break the dump nor all miss it.
    assert!(
        compiled > 0 && rejected > 0,
        "{compiled} compiled, {rejected} rejected"
    );
}

/// A cast the AST calls a scalar conversion but whose operand is no scalar (here an array
/// decay renamed `IntegralToPointer`, as the `clang_ast` fuzz target produced) is a
/// diagnostic, not a module with `cir.cast int_to_ptr` of an array that does not verify.
#[test]
fn a_scalar_cast_of_an_array_is_a_diagnostic() {
    let dir = std::env::temp_dir().join(format!("ehir-hostile-cast-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join("decay.cpp");
    let text = "int main() { char name[4] = \"abc\"; const char *p = name; return p[1]; }\n";
    std::fs::write(&path, text).expect("written");
    let options = ClangOptions::default();
    let json = ehir_clang::clang::dump_ast(&path, text, EhAbi::Itanium, &options)
        .unwrap_or_else(|e| panic!("Clang's AST dump failed: {e}"));
    let decay = "\"castKind\":\"ArrayToPointerDecay\"";
    let compact: String = serde_json::from_str::<Value>(&json)
        .expect("Clang writes JSON")
        .to_string();
    assert!(compact.contains(decay), "the dump has an array decay");
    let mutated = compact.replace(decay, "\"castKind\":\"IntegralToPointer\"");
    let main_file = path.display().to_string();
    let compile_options = ehir_clang::Options {
        abi: EhAbi::Itanium,
        clang: options,
    };
    let result = ehir_clang::compile_json(&mutated, &main_file, &compile_options);
    let _ = std::fs::remove_dir_all(&dir);
    let diagnostics = result.expect_err("the front end rejects the malformed cast");
    assert!(
        diagnostics
            .0
            .iter()
            .any(|d| d.message.contains("a scalar conversion from 'char[4]'")),
        "{diagnostics:?}"
    );
}
