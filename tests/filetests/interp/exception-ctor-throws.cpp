// `throw Boom()` where Boom's constructor throws: the constructor's exception propagates
// and the storage allocated for the Boom is released (`cir.free.exception` in an `eh`
// cleanup around the construction, as clang does). Thrown 2,000 times with 8 KiB objects
// (16 MiB in all) under an 8 MiB memory budget, a leak would exhaust the budget at every
// phase. (The budget also holds the event traces of all three phases, about 1 MiB each.)
// RUN: %ehir opt %s | FileCheck %s --check-prefix=CIR
// RUN: %ehir run --phase all --max-memory 8388608 %s | FileCheck %s
// RUN: %ehir emit-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s --check-prefix=MSVC
// CIR: %[[E:.+]] = cir.alloc.exception 8192 -> !cir.ptr<!rec_Boom>
// CIR-NEXT: cir.cleanup.scope {
// CIR-NEXT: cir.call @_ZN4BoomC1Ev(%[[E]])
// CIR-NEXT: cir.yield
// CIR-NEXT: } cleanup eh {
// CIR-NEXT: cir.free.exception %[[E]] : !cir.ptr<!rec_Boom>
// CIR-NEXT: cir.resume
// CIR-NEXT: }
// CIR-NEXT: cir.throw %[[E]] : !cir.ptr<!rec_Boom>, @_ZTI4Boom
// A scalar gets the same cleanup, as in Clang's CodeGen: its store cannot throw, so the
// cleanup never runs (and LLVM needs no landing pad for it).
// CIR: %[[I:.+]] = cir.alloc.exception 4 -> !cir.ptr<!s32i>
// CIR-NEXT: cir.cleanup.scope {
// CIR: } cleanup eh {
// CIR-NEXT: cir.free.exception %[[I]] : !cir.ptr<!s32i>
// CIR: cir.throw %[[I]] : !cir.ptr<!s32i>, @_ZTIi
// CHECK: caught 2000 ints
// LLVM: call void @__cxa_free_exception(ptr
// LLVM: declare void @__cxa_free_exception(ptr) nounwind
// MSVC-NOT: __cxa_free_exception
#include <stdio.h>

struct Boom {
  char payload[8192];
  Boom() { throw 1; }
};

int main() {
  int caught = 0;
  for (int i = 0; i < 2000; i++) {
    try {
      throw Boom();
    } catch (int) {
      caught++;
    }
  }
  printf("caught %d ints\n", caught);
  try {
    throw 7;
  } catch (int) {
  }
  return 0;
}
