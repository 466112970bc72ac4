//! Every construct outside the C++ subset is rejected with an `unsupported: ...`
//! diagnostic at the construct (never a crash, never silently miscompiled). Each case is
//! a program whose line marked `// <-` is where the diagnostic must point.

use ehir_core::SourceFile;

/// (expected message after `unsupported: `, source; the diagnostic's line has `// <-`).
const CASES: &[(&str, &str)] = &[
    (
        "#include <vector>",
        "#include <vector> // <-\nint main() { return 0; }\n",
    ),
    (
        "preprocessor directive '#define'",
        "#define N 3 // <-\nint main() { return N; }\n",
    ),
    (
        "prefixed string or character literal",
        "int main() { const char* s = u8\"x\"; // <-\n return 0; }\n",
    ),
    (
        "multi-character literal",
        "int main() { int c = 'ab'; // <-\n return c; }\n",
    ),
    (
        "templates",
        "template <class T> // <-\nT id(T x) { return x; }\n",
    ),
    ("namespaces", "namespace n { // <-\nint x; }\n"),
    (
        "virtual functions",
        "struct A {\n  virtual void f(); // <-\n};\n",
    ),
    (
        "virtual functions",
        "struct A { void f(); };\nstruct B : A {\n  void f() override; // <-\n};\n",
    ),
    (
        "virtual base classes",
        "struct A {};\nstruct B : virtual A {}; // <-\n",
    ),
    ("'union' types", "union U { // <-\n int a; float b; };\n"),
    ("'enum' types", "enum E { A, B }; // <-\n"),
    (
        "'auto'",
        "int main() {\n  auto x = 1; // <-\n  return x; }\n",
    ),
    ("'constexpr'", "constexpr int n = 3; // <-\n"),
    ("'decltype'", "int x;\ndecltype(x) y; // <-\n"),
    ("'volatile'", "volatile int v; // <-\n"),
    ("'mutable'", "struct A {\n  mutable int m; // <-\n};\n"),
    (
        "friend declarations",
        "struct A {\n  friend void f(); // <-\n};\n",
    ),
    ("rvalue references", "void f(int&& x); // <-\n"),
    (
        "lambda expressions",
        "int main() {\n  [](){}(); // <-\n  return 0; }\n",
    ),
    (
        "'dynamic_cast'",
        "struct A { int a; };\nint main() { A a; A* p = dynamic_cast<A*>(&a); // <-\n return 0; }\n",
    ),
    (
        "'reinterpret_cast'",
        "int main() { long x = reinterpret_cast<long>(&x); // <-\n return 0; }\n",
    ),
    (
        "'typeid' expressions",
        "int main() { int x = 0;\n  typeid(x); // <-\n return 0; }\n",
    ),
    (
        "overloaded 'operator+'",
        "struct V {\n  V operator+(const V&); // <-\n};\n",
    ),
    (
        "nested types",
        "struct A {\n  struct B { int x; }; // <-\n};\n",
    ),
    (
        "member typedefs",
        "struct A {\n  typedef int T; // <-\n};\n",
    ),
    ("using declarations", "using std::printf; // <-\n"),
    ("bit-fields", "struct A {\n  int x : 3; // <-\n};\n"),
    ("default arguments", "void f(int x = 1); // <-\n"),
    (
        "declarations in conditions",
        "int main() {\n  if (int x = 1) // <-\n    return x;\n  return 0; }\n",
    ),
    (
        "range-based for",
        "int main() { int a[2] = {1, 2};\n  for (int x : a) // <-\n    ; return 0; }\n",
    ),
    (
        "local classes",
        "int main() {\n  struct L { int x; }; // <-\n  return 0; }\n",
    ),
    (
        "local function declarations",
        "int main() {\n  int g(int); // <-\n  return 0; }\n",
    ),
    (
        "inline assembly",
        "int main() {\n  asm(\"nop\"); // <-\n  return 0; }\n",
    ),
    ("static_assert", "static_assert(1, \"x\"); // <-\n"),
    ("long double", "long double x; // <-\n"),
    ("type 'wchar_t'", "wchar_t c; // <-\n"),
    (
        "placement new",
        "int main() { char buf[8];\n  int* p = new (buf) int(1); // <-\n  return *p; }\n",
    ),
    (
        "braced new-initializers",
        "int main() {\n  int* p = new int{1}; // <-\n  return *p; }\n",
    ),
    (
        "pointers to members",
        "struct A { int x; };\nint main() { A a; int A::*p = 0; // <-\n return 0; }\n",
    ),
    (
        "explicit destructor calls",
        "struct A { ~A(); };\nvoid f(A* a) {\n  a->~A(); // <-\n}\n",
    ),
    ("computed goto", "int main() {\n  goto *0; // <-\n}\n"),
    (
        "case ranges",
        "int main(int argc, char**) {\n  switch (argc) {\n  case 1 ... 3: // <-\n    return 1; }\n  return 0; }\n",
    ),
    (
        "nested brace initializers",
        "int main() {\n  int g[2][2] = {{1, 2}, {3, 4}}; // <-\n  return 0; }\n",
    ),
    (
        "braced initializer arguments",
        "void f(int);\nint main() {\n  f({1}); // <-\n  return 0; }\n",
    ),
    (
        "__attribute__((packed))",
        "struct __attribute__((packed)) A { int x; }; // <-\n",
    ),
    ("trailing return types", "int f() -> int; // <-\n"),
    (
        "noexcept with a non-literal condition",
        "void f() noexcept(1 + 1); // <-\n",
    ),
    ("throw(...)", "void f() throw(...); // <-\n"),
    (
        "destructors that may throw (noexcept(false))",
        "struct A {\n  ~A() noexcept(false); // <-\n};\n",
    ),
    ("reference members", "struct A {\n  int& r; // <-\n};\n"),
    ("global references", "int x;\nint& r = x; // <-\n"),
    (
        "global objects that need a constructor or destructor call",
        "struct A { A(); };\nA a; // <-\n",
    ),
    (
        "non-constant initializer of a global (dynamic initialization)",
        "int f();\nint x = f(); // <-\n",
    ),
    (
        "static local variables that need dynamic initialization or destruction",
        "struct A { A(); };\nvoid f() {\n  static A a; // <-\n}\n",
    ),
    (
        "local extern declarations",
        "int main() {\n  extern int x; // <-\n  return 0; }\n",
    ),
    (
        "taking the address of overloaded function 'f'",
        "void f(int);\nvoid f(double);\nint main() {\n  void (*p)(int) = f; // <-\n  return 0; }\n",
    ),
    (
        "passing an object of class type through '...'",
        "#include <stdio.h>\nstruct A { int x; };\nint main() { A a;\n  printf(\"%d\", a); // <-\n  return 0; }\n",
    ),
    (
        "'?:' with operands of different class types",
        "struct A {};\nstruct B {};\nint main(int argc, char**) {\n  argc ? A() : B(); // <-\n  return 0; }\n",
    ),
    (
        "goto into a nested scope (label 'inside')",
        "int main() {\n  goto inside; // <-\n  {\n  inside:\n    ;\n  }\n  return 0; }\n",
    ),
    (
        "statements before the first case label",
        "int main(int argc, char**) {\n  switch (argc) {\n    argc = 2; // <-\n  case 1: break; }\n  return 0; }\n",
    ),
    (
        "case labels nested inside statements of a switch body",
        "int main(int argc, char**) {\n  switch (argc) {\n  case 0:\n    if (argc) { // <-\n    case 1: break; }\n  }\n  return 0; }\n",
    ),
    (
        "class 'D' has more than one 'A' subobject",
        "struct A { int a; };\nstruct B : A {};\nstruct C : A {};\nstruct D : B, C {}; // <-\n",
    ),
    (
        "class 'D' reuses the tail padding of a base class (Itanium layout)",
        "struct B { int x; char c; B(); };\nstruct D : B { // <-\n char d; };\n",
    ),
    (
        "deriving from library class 'std::exception'",
        "#include <exception>\nstruct E : std::exception { // <-\n};\n",
    ),
    (
        "multi-dimensional arrays of class type",
        "struct A { A(); };\nstruct B {\n  A grid[2][2]; // <-\n};\n",
    ),
    (
        "exception specifications on destructors",
        "struct A {\n  ~A() throw(int); // <-\n};\n",
    ),
    (
        "variadic member functions",
        "struct A {\n  void log(const char*, ...); // <-\n};\n",
    ),
    (
        "in-class initializer of a non-const static member",
        "struct A {\n  static int n = 3; // <-\n};\n",
    ),
    (
        "pointers to member functions",
        "struct A { void f(); };\nint main() {\n  &A::f; // <-\n  return 0; }\n",
    ),
    (
        "new of an array type",
        "typedef int Row[3];\nint main() {\n  int (*p)[3] = new Row; // <-\n  return 0; }\n",
    ),
    (
        "deleting a 'void*'",
        "void f(void* p) {\n  delete p; // <-\n}\n",
    ),
    (
        "aggregate initialization of classes",
        "struct P { int x; int y; };\nint main() {\n  P p = {1, 2}; // <-\n  return p.x; }\n",
    ),
    (
        "array size that is not an integer constant",
        "int main(int argc, char**) {\n  int a[argc]; // <-\n  return 0; }\n",
    ),
    (
        "switch without a compound statement body",
        "int main(int argc, char**) {\n  switch (argc) // <-\n    case 1: return 1;\n  return 0; }\n",
    ),
    (
        "statement expressions",
        "int main() {\n  int x = ({ 1; }); // <-\n  return x; }\n",
    ),
    (
        "label addresses",
        "int main() {\nl:\n  void* p = &&l; // <-\n  return 0; }\n",
    ),
    (
        "'alignof' expressions",
        "int main() {\n  return alignof(int); // <-\n}\n",
    ),
    (
        "'noexcept' expressions",
        "void f();\nint main() {\n  return noexcept(f()); // <-\n}\n",
    ),
    (
        "ref-qualified member functions",
        "struct A {\n  void f() &; // <-\n};\n",
    ),
    (
        "volatile member functions",
        "struct A {\n  void f() volatile; // <-\n};\n",
    ),
    (
        "using declarations in functions",
        "int main() {\n  using namespace std; // <-\n  return 0; }\n",
    ),
    (
        "initializing an array member with arguments",
        "struct A {\n  int a[2];\n  A() : a(1) {} // <-\n};\nint main() { A x; return 0; }\n",
    ),
    (
        "casting a prvalue to a reference type",
        "int main() {\n  const int& r = static_cast<const int&>(1); // <-\n  return r; }\n",
    ),
    (
        "assignment to a class prvalue",
        "struct A { ~A(); };\nA make();\nint main() {\n  make() = A(); // <-\n  return 0; }\n",
    ),
    (
        "global arrays of non-integer type with initializers",
        "double d[2] = {1.0, 2.0}; // <-\n",
    ),
    (
        "initializers of global objects of class type",
        "struct P { int x; };\nP p = P(); // <-\n",
    ),
    (
        "implicit copy of arrays of classes with non-trivial copy constructors",
        "struct E { E(); E(const E&); };\nstruct H { E e[2]; }; // <-\nint main() { H a; H b(a); return 0; }\n",
    ),
    (
        "implicit assignment of arrays of classes with non-trivial assignment",
        "struct E { E& operator=(const E&); };\nstruct H { E e[2]; }; // <-\nint main() { H a; H b; b = a; return 0; }\n",
    ),
    (
        "nested names",
        "struct A { static int f(); };\nint main() {\n  return A::f::g(); // <-\n}\n",
    ),
    (
        "operator function names in expressions",
        "int main() {\n  operator+(1); // <-\n  return 0; }\n",
    ),
    (
        "sizeof...",
        "int main() {\n  return sizeof...(int); // <-\n}\n",
    ),
    (
        "cast from 'int' to 'double&'",
        "int main() { int i = 0;\n  double& d = (double&)i; // <-\n  return 0; }\n",
    ),
    (
        "language linkage other than \"C\"",
        "extern \"C++\" void f(); // <-\n",
    ),
    (
        "elaborated type specifier naming undeclared class 'X'",
        "struct X* p; // <-\n",
    ),
    (
        "pointers to members",
        "struct A { int x; };\nint A::*q; // <-\n",
    ),
    ("nesting deeper than 50000 levels", ""),
];

fn line_of_marker(src: &str) -> Option<usize> {
    src.lines().position(|l| l.contains("// <-")).map(|i| i + 1)
}

#[test]
fn unsupported_constructs_are_diagnosed_where_they_are() {
    let mut failures = Vec::new();
    for (i, (expected, src)) in CASES.iter().enumerate() {
        let owned;
        let src = if src.is_empty() {
            owned = format!(
                "int x = {}1{}; // <-\n",
                "(".repeat(60000),
                ")".repeat(60000)
            );
            owned.as_str()
        } else {
            src
        };
        let name = format!("case{i}.cpp");
        match ehir_cxx::compile(&name, src) {
            Ok(_) => failures.push(format!("case {i} ({expected}) compiled:\n{src}")),
            Err(ds) => {
                let Some(d) = ds.0.iter().find(|d| d.message.starts_with("unsupported: ")) else {
                    failures.push(format!(
                        "case {i}: no unsupported diagnostic, got: {:?}\n{src}",
                        ds.0.iter().map(|d| &d.message).collect::<Vec<_>>()
                    ));
                    continue;
                };
                let want = format!("unsupported: {expected}");
                if d.message != want {
                    failures.push(format!(
                        "case {i}: expected '{want}', got '{}'\n{src}",
                        d.message
                    ));
                    continue;
                }
                let file = SourceFile::new(&name, src);
                let line = d.loc.offset().map(|o| file.line_col(o).0);
                if line != line_of_marker(src) {
                    failures.push(format!(
                        "case {i} ({expected}): reported on line {line:?}, expected {:?}\n{}",
                        line_of_marker(src),
                        file.render(d)
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn diagnostics_render_as_file_line_col() {
    let src = "int main() {\n  auto x = 1;\n  return x;\n}\n";
    let ds = ehir_cxx::compile("x.cpp", src).expect_err("auto is unsupported");
    let text = SourceFile::new("x.cpp", src).render_all(&ds);
    assert_eq!(
        text,
        "x.cpp:2:3: error: unsupported: 'auto'\n  auto x = 1;\n  ^\n"
    );
}
