// A goto may leave scopes (running their cleanups) but not enter one.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
int main() {
  // CHECK: unsupported-goto-into-scope.cpp:[[# @LINE + 1]]:3: error: unsupported: goto into a nested scope (label 'inside')
  goto inside;
  {
  inside:
    return 1;
  }
}
