// Dynamic initialization: the globals of the translation unit are built before `main`
// by a `global_ctor` function, in declaration order, and destroyed at exit in reverse
// through `__cxa_atexit`; a static local is built on the first pass through its
// declaration, under its guard, and built again on the next pass if that throws.
// Checked against g++ (the oracle) at every interpreter phase and natively.
// RUN: %ehir opt %s | FileCheck %s
// RUN: %ehir emit-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 2
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 2
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 2
// RUN: diff %t.expected %t.native
// CHECK-DAG: cir.func internal @_GLOBAL__sub_I() global_ctor {
// CHECK-DAG: cir.call @__cxa_atexit(
// CHECK-DAG: cir.call @__cxa_guard_acquire(
// CHECK-DAG: cir.call @__cxa_guard_abort(
// CHECK-DAG: cir.global internal @_ZGVZL6configvE8settings = #cir.zero : !s64i
// LLVM: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @_GLOBAL__sub_I, ptr null }]
#include <cstdio>

struct Named {
  const char *name;
  explicit Named(const char *n) : name(n) { std::printf("build %s\n", name); }
  ~Named() { std::printf("destroy %s\n", name); }
};

Named first("first");
Named second("second");

static int attempts = 0;

struct Settings {
  int value;
  Settings() : value(++attempts) {
    std::printf("settings attempt %d\n", attempts);
    if (attempts == 1)
      throw attempts;
  }
  ~Settings() { std::printf("destroy settings %d\n", value); }
};

static int config() {
  static Settings settings;
  return settings.value;
}

int main() {
  std::printf("main\n");
  for (int i = 0; i < 3; ++i) {
    try {
      std::printf("config %d\n", config());
    } catch (int failed) {
      std::printf("attempt %d failed\n", failed);
    }
  }
  return attempts;
}
