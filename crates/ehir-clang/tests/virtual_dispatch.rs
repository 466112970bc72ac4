//! Virtual dispatch through the Clang front end: a program with overriders, a
//! qualified call of a base's version from its overrider (a direct call, not virtual),
//! a virtual call from a base's destructor (the base's version by then), deleting an
//! object through a base pointer with a virtual destructor, `typeid` and `dynamic_cast`,
//! compiled and interpreted; its stdout and exit status must equal g++'s (the oracle).
//! Needs `clang++-22` (or `$EHIR_CLANG`) and g++.

use std::process::Command;

const PROGRAM: &str = r#"
#include <cstdio>
#include <typeinfo>
struct Base {
  virtual ~Base() { std::printf("~Base sees %d\n", value()); }
  virtual int value() const { return 1; }
};
struct Middle : Base {
  int value() const override { return 10 + Base::value(); }
};
struct Leaf : Middle {
  ~Leaf() override { std::printf("~Leaf\n"); }
  int value() const override { return 100 + Middle::value(); }
};
int main() {
  Base *objects[] = {new Base, new Middle, new Leaf};
  int sum = 0;
  for (Base *b : objects) {
    sum += b->value();
    std::printf("%d leaf %d middle %d\n", b->value(), typeid(*b) == typeid(Leaf),
                dynamic_cast<Middle *>(b) != nullptr);
    delete b;
  }
  return sum % 256;
}
"#;

#[test]
fn virtual_calls_qualified_calls_and_virtual_destructors_match_gxx() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("virtual.cpp");
    std::fs::write(&source, PROGRAM).expect("writes the program");
    let exe = dir.path().join("gxx.exe");
    let built = Command::new("g++")
        .args(["-std=c++17", "-O0", "-o"])
        .arg(&exe)
        .arg(&source)
        .status()
        .expect("g++ runs");
    assert!(built.success(), "g++ rejected the program");
    let expected = Command::new(&exe).output().expect("the program runs");

    let module = ehir_clang::compile_file(&source, PROGRAM, &ehir_clang::Options::default())
        .unwrap_or_else(|ds| panic!("{:?}", ds.0.first()));
    ehir_core::verifier::verify_module(&module).expect("verifies");
    let outcome =
        ehir_interp::run_module(&module, &ehir_interp::RunConfig::default()).expect("runs");
    assert!(
        outcome.runtime_error.is_none(),
        "{:?}",
        outcome.runtime_error
    );
    assert_eq!(
        String::from_utf8_lossy(&outcome.stdout),
        String::from_utf8_lossy(&expected.stdout)
    );
    assert_eq!(Some(outcome.exit_status), expected.status.code());
}
