// A temporary constructed in one arm of ?: gets a conditional cleanup: a flag cleared
// before the cleanup scope, set where the object is constructed, tested by the cleanup.
// RUN: %ehir opt %s | FileCheck %s

struct T {
  T(int);
  ~T();
  int get() const;
};

int pick(bool c) { return c ? T(1).get() : 0; }

// CHECK-LABEL: cir.func @_Z4pickb(%arg0: !cir.bool) -> !s32i {
// CHECK:         %[[TMP:.+]] = cir.alloca "ref.tmp"{{( align\([0-9]+\))?}} : !cir.ptr<!rec_T>
// CHECK-NEXT:    %[[FLAG:.+]] = cir.alloca "cleanup.cond"{{( align\([0-9]+\))?}} : !cir.ptr<!cir.bool>
// CHECK:         %[[F:.+]] = cir.const #false
// CHECK-NEXT:    cir.store align(1) %[[F]], %[[FLAG]]
// CHECK-NEXT:    cir.cleanup.scope {
// CHECK-NEXT:      %[[R:.+]] = cir.ternary(%{{.+}}, true {
// CHECK:             cir.call @_ZN1TC1Ei(%[[TMP]], %{{.+}})
// CHECK-NEXT:        %[[T:.+]] = cir.const #true
// CHECK-NEXT:        cir.store align(1) %[[T]], %[[FLAG]]
// CHECK-NEXT:        %[[V:.+]] = cir.call @_ZNK1T3getEv(%[[TMP]])
// CHECK-NEXT:        cir.yield %[[V]] : !s32i
// CHECK-NEXT:      }, false {
// CHECK:           }) : (!cir.bool) -> !s32i
// CHECK:         } cleanup all {
// CHECK-NEXT:      %[[ON:.+]] = cir.load align(1) %[[FLAG]]
// CHECK-NEXT:      cir.if %[[ON]] {
// CHECK-NEXT:        cir.call @_ZN1TD1Ev(%[[TMP]]) nothrow
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
