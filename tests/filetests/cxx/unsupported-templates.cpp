// Constructs outside the C++ subset are reported, with the source line and a caret.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
// CHECK: unsupported-templates.cpp:[[# @LINE + 3]]:1: error: unsupported: templates
// CHECK-NEXT: {{^}}template <class T>
// CHECK-NEXT: {{^}}^
template <class T>
T identity(T x) { return x; }
