// Clang's errors are ehir's diagnostics, each at its place: every error of the file, not
// only the first.
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
  // CHECK: error-type-mismatch.cpp:[[# @LINE + 3]]:3: error: no matching function for call to 'convert'
  // CHECK-NEXT: {{^}}  convert(1);
  // CHECK-NEXT: {{^}}  ^
  convert(1);
}
