// A catch-all handler must be the last of its try; a second one after it is an error,
// not a `cir.try` the verifier rejects (found by fuzz/cxx_compile).
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
void f();

extern "C" void g() {
  try {
    f();
  } catch (...) {
  } catch (...) {
  }
}

// CHECK: error: '...' handler must be the last handler for its try block
