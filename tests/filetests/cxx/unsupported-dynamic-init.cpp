// Globals must be zero- or constant-initialized.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
struct Logger {
  Logger();
};
// CHECK: unsupported-dynamic-init.cpp:[[# @LINE + 1]]:8: error: unsupported: global objects that need a constructor or destructor call
Logger logger;
