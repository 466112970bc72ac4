// A catch-all handler must be the last of its try; a second one after it is an error
// (Clang's, at the handler, with the source line and a caret), not a `cir.try` the
// verifier rejects.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
void f();

extern "C" void g() {
  try {
    f();
    // CHECK: error-catch-all-not-last.cpp:[[# @LINE + 3]]:5: error: catch-all handler must come last
    // CHECK-NEXT: {{^}}  } catch (...) {
    // CHECK-NEXT: {{^}}    ^
  } catch (...) {
  } catch (...) {
  }
}
