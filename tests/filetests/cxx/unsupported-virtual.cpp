// RUN: not %ehir opt %s 2>&1 | FileCheck %s
// CHECK: unsupported-virtual.cpp:[[# @LINE + 3]]:3: error: unsupported: virtual functions
struct Shape {
  int sides;
  virtual int area();
};
