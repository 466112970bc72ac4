// RUN: not %ehir emit-llvm --abi msvc %s -o %t.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.ll
// RUN: %ehir emit-llvm %s | FileCheck %s --check-prefix=ITANIUM
// The Microsoft lowering passes every class by address, which is consistent among
// ehir's objects but not the Microsoft x64 calling convention: a function defined
// elsewhere that takes or returns a class by value (trivial for the purposes of calls)
// is refused, at its declaration (the C++ is compiled for Windows, so the names are
// Microsoft's). The Itanium lowering passes it as g++ does.

struct P { int x; int y; };
struct NT {
  int v;
  NT(const NT& o) : v(o.v) {}
};

// CHECK-DAG: by-value-external.cpp:[[# @LINE + 2]]:{{[0-9]+}}: error: unsupported: @?takes@@YAHUP@@@Z is not defined in this module and passes a class by value (parameter #0); LLVM IR for the msvc ABI passes such classes by address, not as the Microsoft x64 calling convention does
// ITANIUM-DAG: declare i32 @_Z5takes1P(i64)
int takes(P p);
// CHECK-DAG: by-value-external.cpp:[[# @LINE + 2]]:{{[0-9]+}}: error: unsupported: @?returns@@YA?AUP@@XZ is not defined in this module and returns a class by value (parameter #0)
// ITANIUM-DAG: declare i64 @_Z7returnsv()
P returns();
// Not trivial for calls: by address on both ABIs.
// CHECK-NOT: error: {{.*}}?by_ref@@
// ITANIUM-DAG: declare i32 @_Z6by_ref2NT(ptr)
int by_ref(NT n);

// Defined here: consistent by address.
// CHECK-NOT: error: {{.*}}?local@@
int local(P p) { return p.x; }

int main() {
  P p = returns();
  NT* n = 0;
  return takes(p) + local(p) + (n ? by_ref(*n) : 0);
}
