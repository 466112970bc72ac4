// Headers come from the C++ library of the target: on Linux (itanium) libstdc++'s, so
// <vector> is found; the Microsoft target has only ehir's own small Windows headers, and
// a header they lack is an error at the #include that lists the headers there are.
// RUN: %ehir run %s
// RUN: not %ehir emit-llvm --abi msvc %s -o %t.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.ll
// RUN: not %ehir run --abi msvc %s 2>&1 | FileCheck %s
// CHECK: msvc-missing-header.cpp:[[# @LINE + 2]]:10: error: 'vector' file not found: the Microsoft target (--abi msvc) has only ehir's own small Windows headers (no MSVC SDK): {{.*}}exception, new,
// CHECK-NEXT: {{^}}#include <vector>
#include <vector>
int main() { return 0; }
