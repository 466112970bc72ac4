// RUN: not %ehir opt %s 2>&1 | FileCheck %s
int main() {
  // CHECK: unsupported-lambda.cpp:[[# @LINE + 1]]:12: error: unsupported: lambda expressions
  int x = ([]() { return 1; })();
  return x;
}
