// Clang's own errors become ehir diagnostics at their location (exit status 1).
// RUN: %ehir opt %s 2> %t.err; test $? -eq 1
// RUN: FileCheck %s < %t.err
int main() {
  // CHECK: clang-error.cpp:[[# @LINE + 1]]:10: error: use of undeclared identifier 'missing'
  return missing;
}
