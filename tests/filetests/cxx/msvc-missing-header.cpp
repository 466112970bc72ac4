// Only <stdio.h>, <cstdio>, <stdlib.h>, <cstdlib>, <string.h>, <cstring> and
// <exception> are known.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
// CHECK: unsupported-include.cpp:[[# @LINE + 1]]:1: error: unsupported: #include <vector>
#include <vector>
int main() { return 0; }
