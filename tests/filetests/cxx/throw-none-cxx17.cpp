// Since C++17 `throw()` means `noexcept`: Clang's CodeGen puts the body of such a
// function in a terminate scope on both ABIs (on the Microsoft target too, where it
// ignores every dynamic exception specification before C++17, `throw()` included), and
// so does ehir; the exception that leaves `none` calls std::terminate.
// RUN: clang++-22 --target=x86_64-pc-windows-msvc -std=c++17 -nostdinc -isystem %S/../../../crates/ehir-clang/include/msvc \
// RUN:   -fms-extensions -w -S -emit-llvm -o - %s | FileCheck %s --check-prefix=CLANG-WINDOWS
// RUN: clang++-22 --target=x86_64-pc-windows-msvc -std=c++14 -nostdinc -isystem %S/../../../crates/ehir-clang/include/msvc \
// RUN:   -fms-extensions -w -S -emit-llvm -o - %s | FileCheck %s --check-prefix=CLANG-WINDOWS-14
// RUN: %ehir --std=c++17 opt --abi msvc %s | FileCheck %s --check-prefix=SPEC
// RUN: %ehir --std=c++17 opt %s | FileCheck %s --check-prefix=SPEC
// RUN: %ehir --std=c++14 opt --abi msvc %s | FileCheck %s --check-prefix=IGNORED
// RUN: %ehir --std=c++14 opt %s | FileCheck %s --check-prefix=FILTER
// RUN: %ehir --std=c++17 run --abi msvc --phase all %s > %t.msvc 2>&1; test $? -eq 134 && FileCheck %s --check-prefix=OUT --implicit-check-not=caught < %t.msvc
// RUN: %ehir --std=c++17 run --phase all %s > %t.itanium 2>&1; test $? -eq 134 && FileCheck %s --check-prefix=OUT --implicit-check-not=caught < %t.itanium
#include <stdio.h>

// CLANG-WINDOWS-LABEL: define {{.*}} @"?none@@YAXXZ"()
// CLANG-WINDOWS: cleanuppad
// CLANG-WINDOWS-NEXT: call void @__std_terminate()
// CLANG-WINDOWS-14-LABEL: define {{.*}} @"?none@@YAXXZ"() #{{[0-9]+}} {
// CLANG-WINDOWS-14-NOT: __std_terminate
// CLANG-WINDOWS-14: call void @_CxxThrowException
// CLANG-WINDOWS-14-NEXT: unreachable
// CLANG-WINDOWS-14-NEXT: }
// SPEC-LABEL: cir.func {{.*}}@{{.*}}none
// SPEC-NEXT:    cir.try {
// SPEC:         } terminate {
// IGNORED-LABEL: cir.func {{.*}}@"?none@@YAXXZ"
// IGNORED-NOT:   cir.try
// IGNORED:       cir.throw
// IGNORED-NOT:   terminate
// IGNORED:       cir.return
// FILTER-LABEL: cir.func {{.*}}@_Z4nonev
// FILTER:       } filter [] {
void none() throw() {
  printf("throwing\n");
  throw 1;
}

// OUT: terminate called after throwing an instance of 'int'
int main() {
  try {
    none();
  } catch (int) {
    printf("caught\n");
  }
  return 0;
}
