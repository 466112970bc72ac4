// `catch (int *&p)` on the Microsoft target binds p to the exception object, so moving
// p moves the pointer a rethrow passes on (Clang for Windows prints "rethrown 20"); the
// handler's parameter is the address of the thrown pointer (one pointer level more than
// the caught type), which the MSVC lowering makes the reference adjective and which the
// interpreter yields at every phase. On Itanium the front end follows g++, which binds
// p to a copy ("rethrown 10").
// RUN: %ehir opt --abi msvc %s | FileCheck %s --check-prefix=CIR
// RUN: %ehir run --abi msvc --phase all %s > %t.msvc; test $? -eq 20 && FileCheck %s --check-prefix=MSVC < %t.msvc
// RUN: %ehir run --phase all %s > %t.itanium; test $? -eq 10 && FileCheck %s --check-prefix=ITANIUM < %t.itanium
// CIR: catch [type #cir.global_view<@_ZTIPi> : !cir.ptr<!u8i>] {
// CIR-NEXT: cir.catch_param : !cir.ptr<!cir.ptr<!s32i>>
// CIR: catch [type #cir.global_view<@_ZTIPi> : !cir.ptr<!u8i>] {
// CIR-NEXT: cir.catch_param : !cir.ptr<!s32i>
// MSVC: first 10
// MSVC-NEXT: rethrown 20
// ITANIUM: first 10
// ITANIUM-NEXT: rethrown 10
#include <stdio.h>

static int values[2] = {10, 20};

int main() {
  try {
    try {
      throw &values[0];
    } catch (int *&p) {
      printf("first %d\n", *p);
      ++p;
      throw;
    }
  } catch (int *p) {
    printf("rethrown %d\n", *p);
    return *p;
  }
  return 0;
}
