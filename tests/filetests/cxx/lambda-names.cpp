// RUN: %ehir --std=c++14 opt %s | FileCheck %s --implicit-check-not=filetests --implicit-check-not=2Ffiletests
// RUN: rm -rf %t.d && mkdir -p %t.d/one %t.d/two && cp %s %t.d/lambda-names.cpp && \
// RUN:   echo 'inline int one() { return [] { return 1; }(); }' > %t.d/one/pick.h && \
// RUN:   echo 'inline int two() { return [] { return 2; }(); }' > %t.d/two/pick.h
// RUN: %ehir --std=c++14 opt %s > %t.absolute && \
// RUN:   (cd %t.d && %ehir --std=c++14 opt lambda-names.cpp) > %t.relative && diff %t.absolute %t.relative
// RUN: %ehir --std=c++14 opt --abi msvc %s > %t.msvc-absolute && \
// RUN:   (cd %t.d && %ehir --std=c++14 opt --abi msvc lambda-names.cpp) > %t.msvc-relative && \
// RUN:   diff %t.msvc-absolute %t.msvc-relative && FileCheck %s --check-prefix=MSVC < %t.msvc-absolute
// RUN: %ehir --std=c++14 emit-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: %ehir --std=c++14 -D TWO_HEADERS -I %t.d opt %s | FileCheck %s --check-prefix=HEADERS
// The names Clang gives closure types carry the source location, with the path of the
// file as Clang was given it (absolute when the input is named so): output keeps only
// the file's name, so that it is the same wherever the input is, and two files of one
// name in different directories are told apart by a number in order of first use.
// On the Microsoft target Clang names the anonymous namespace by a hash of that path
// (`?A0x…@`): ehir hashes the file's name alone; its entities are internal.
#ifdef TWO_HEADERS
#include "one/pick.h"
#include "two/pick.h"
#endif
template <typename F> struct Holder { F f; };
template <typename F> Holder<F> hold(F f) { return Holder<F>{f}; }

// CHECK-DAG: cir.func internal @_ZN12_GLOBAL__N_16offsetEv()
// MSVC: cir.func internal @"?offset@?A0x{{[0-9A-F]+}}@@YAHXZ"()
namespace {
int offset() { return 0; }
}

int main() {
  int base = 2 + offset();
  auto add = [base](int x) { return x + base; };
  auto held = hold([&base] { return base; });
#ifdef TWO_HEADERS
  return one() + two();
#else
  return add(1) + held.f();
#endif
}

// CHECK-DAG: !rec_28lambda20at20lambda2Dnames2Ecpp3A333A1429 = !cir.record<class "(lambda at lambda-names.cpp:33:14)" {!s32i}>
// CHECK-DAG: !rec_28lambda20at20lambda2Dnames2Ecpp3A343A2029 = !cir.record<class "(lambda at lambda-names.cpp:34:20)" {!cir.ptr<!s32i>}>
// CHECK-DAG: !rec_Holder3C28lambda20at20lambda2Dnames2Ecpp3A343A20293E = !cir.record<struct "Holder<(lambda at lambda-names.cpp:34:20)>" {!rec_28lambda20at20lambda2Dnames2Ecpp3A343A2029}>
// LLVM-DAG: %rec_28lambda20at20lambda2Dnames2Ecpp3A333A1429 = type { i32 }
// LLVM-DAG: %rec_Holder3C28lambda20at20lambda2Dnames2Ecpp3A343A20293E = type { %rec_28lambda20at20lambda2Dnames2Ecpp3A343A2029 }
// HEADERS-DAG: = !cir.record<class "(lambda at pick.h:1:27)" {}>
// HEADERS-DAG: = !cir.record<class "(lambda at pick.h#2:1:27)" {}>
