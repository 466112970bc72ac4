// The seed's "branch through cleanup" / "shared cleanups" example (listings 06/07 and
// 30/31): continue and break inside the cleanup scope of the loop body's object.
// RUN: %ehir opt %s | FileCheck %s

class SomeClass {
public:
  SomeClass();
  ~SomeClass();
  int get();
};

extern "C" int someFunc() {
  int i = 0;
  while (true) {
    SomeClass c;
    if (i == 3)
      continue;
    if (i == 7)
      break;
    i = c.get();
  }
  return i;
}

// CHECK-LABEL: cir.func @someFunc() -> !s32i {
// CHECK-NEXT:    cir.scope {
// CHECK-NEXT:      %[[I:.+]] = cir.alloca "i"{{( align\([0-9]+\))?}} init : !cir.ptr<!s32i>
// CHECK-NEXT:      %[[ZERO:.+]] = cir.const #cir.int<0> : !s32i
// CHECK-NEXT:      cir.store align(4) %[[ZERO]], %[[I]] : !s32i, !cir.ptr<!s32i>
// CHECK-NEXT:      cir.while {
// CHECK-NEXT:        %[[T:.+]] = cir.const #true
// CHECK-NEXT:        cir.condition(%[[T]])
// CHECK-NEXT:      } do {
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          %[[C:.+]] = cir.alloca "c"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:          cir.call @_ZN9SomeClassC1Ev(%[[C]])
// CHECK-NEXT:          cir.cleanup.scope {
// CHECK-NEXT:            cir.scope {
// CHECK-NEXT:              %[[A:.+]] = cir.load align(4) %[[I]] : !cir.ptr<!s32i>, !s32i
// CHECK-NEXT:              %[[K3:.+]] = cir.const #cir.int<3> : !s32i
// CHECK-NEXT:              %[[EQ3:.+]] = cir.cmp eq %[[A]], %[[K3]] : !s32i
// CHECK-NEXT:              cir.if %[[EQ3]] {
// CHECK-NEXT:                cir.scope {
// CHECK-NEXT:                  cir.continue
// CHECK-NEXT:                }
// CHECK:                 cir.scope {
// CHECK-NEXT:              %[[B:.+]] = cir.load align(4) %[[I]] : !cir.ptr<!s32i>, !s32i
// CHECK-NEXT:              %[[K7:.+]] = cir.const #cir.int<7> : !s32i
// CHECK-NEXT:              %[[EQ7:.+]] = cir.cmp eq %[[B]], %[[K7]] : !s32i
// CHECK-NEXT:              cir.if %[[EQ7]] {
// CHECK-NEXT:                cir.scope {
// CHECK-NEXT:                  cir.break
// CHECK-NEXT:                }
// CHECK:                 %[[G:.+]] = cir.call @_ZN9SomeClass3getEv(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> !s32i
// CHECK-NEXT:            cir.store align(4) %[[G]], %[[I]] : !s32i, !cir.ptr<!s32i>
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          } cleanup all {
// CHECK-NEXT:            cir.call @_ZN9SomeClassD1Ev(%[[C]])
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          }
// CHECK:           %[[V:.+]] = cir.load align(4) %[[I]] : !cir.ptr<!s32i>, !s32i
// CHECK-NEXT:      cir.return %[[V]] : !s32i
