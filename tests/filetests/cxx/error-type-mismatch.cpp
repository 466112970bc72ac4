// Ordinary errors are diagnosed too (not only unsupported constructs); each function
// reports its first error.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
struct A {
  int x;
};
int convert() {
  A a;
  // CHECK: error-type-mismatch.cpp:[[# @LINE + 1]]:7: error: no viable conversion from 'A' to 'int'
  int i = a;
  return i;
}
void member() {
  A a;
  // CHECK: error-type-mismatch.cpp:[[# @LINE + 1]]:5: error: no member named 'y' in 'A'
  a.y = 1;
}
void call() {
  // CHECK: error-type-mismatch.cpp:[[# @LINE + 1]]:10: error: no matching function for call to 'convert' with arguments (int)
  convert(1);
}
