// A Clang node kind the CIR generator does not support is reported at its location as
// `unsupported: <node kind>`, and ehir exits with status 1.
// RUN: %ehir opt %s 2> %t.err; test $? -eq 1
// RUN: FileCheck %s < %t.err
int main() {
  // CHECK: unsupported-node.cpp:[[# @LINE + 1]]:11: error: unsupported: StmtExpr
  int x = ({ 1; });
  return x;
}
