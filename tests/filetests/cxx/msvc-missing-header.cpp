// Headers come from the C++ library of the target: on Linux (itanium) libstdc++'s, so
// <vector> is found; the Microsoft target has only ehir's own small Windows headers, and
// a header they lack is an error at the #include that lists the headers there are. Every
// command compiles for the target of the ABI it works for: `--abi msvc`, `--phase msvc`
// (run, dot), the msvc and clr tables.
// RUN: %ehir run %s
// RUN: %ehir run --phase itanium %s
// RUN: %ehir tables --abi itanium %s
// RUN: %ehir dot --phase flat %s > /dev/null
// RUN: not %ehir emit-llvm --abi msvc %s -o %t.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.ll
// RUN: not %ehir run --abi msvc %s 2>&1 | FileCheck %s
// RUN: not %ehir run --phase msvc %s 2>&1 | FileCheck %s
// RUN: not %ehir run --abi msvc --phase flat %s 2>&1 | FileCheck %s
// RUN: not %ehir opt --abi msvc %s 2>&1 | FileCheck %s
// RUN: not %ehir tables --abi msvc %s 2>&1 | FileCheck %s
// RUN: not %ehir tables --abi clr %s 2>&1 | FileCheck %s
// RUN: not %ehir dot --phase msvc %s 2>&1 | FileCheck %s
// RUN: not %ehir run --abi itanium --phase msvc %s 2>&1 | FileCheck %s --check-prefix=CONTRADICTS
// CONTRADICTS: ehir: error: --abi itanium contradicts --phase msvc, the phase of the msvc ABI
// CHECK: msvc-missing-header.cpp:[[# @LINE + 2]]:10: error: 'vector' file not found: the Microsoft target (--abi msvc) has only ehir's own small Windows headers (no MSVC SDK): {{.*}}exception, new,
// CHECK-NEXT: {{^}}#include <vector>
#include <vector>
int main() { return 0; }
