// new T(args): operator delete runs if the constructor throws. The EH-only cleanup is
// deactivated (guarded by a flag) once construction completes, because the argument
// temporary's cleanup was pushed after it.
// RUN: %ehir opt %s | FileCheck %s

struct T {
  T(int);
  ~T();
};
struct W {
  W(const T&);
  ~W();
};

W* make() { return new W(T(2)); }
void destroy(W* w) { delete w; }

// CHECK-LABEL: cir.func @_Z4makev() -> !cir.ptr<!rec_W> {
// CHECK:         %[[ACTIVE:.+]] = cir.alloca !cir.bool, !cir.ptr<!cir.bool>, ["cleanup.isactive"]
// CHECK:         %[[RAW:.+]] = cir.call @_Znwm(%{{.+}}) : (!u64i) -> !cir.ptr<!void>
// CHECK-NEXT:    %[[P:.+]] = cir.cast bitcast %[[RAW]] : !cir.ptr<!void> -> !cir.ptr<!rec_W>
// CHECK-NEXT:    %[[T:.+]] = cir.const #true
// CHECK-NEXT:    cir.store align(1) %[[T]], %[[ACTIVE]]
// CHECK-NEXT:    cir.cleanup.scope {
// CHECK:           cir.call @_ZN1TC1Ei(
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK-NEXT:        cir.call @_ZN1WC1ERK1T(%[[P]], %{{.+}})
// CHECK-NEXT:        %[[F:.+]] = cir.const #false
// CHECK-NEXT:        cir.store align(1) %[[F]], %[[ACTIVE]]
// CHECK:           } cleanup all {
// CHECK-NEXT:        cir.call @_ZN1TD1Ev(
// CHECK:         } cleanup eh {
// CHECK-NEXT:      %[[ON:.+]] = cir.load align(1) %[[ACTIVE]]
// CHECK-NEXT:      cir.if %[[ON]] {
// CHECK-NEXT:        cir.call @_ZdlPv(%[[RAW]]) nothrow
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.resume
// CHECK-NEXT:    }

// delete: null check, destructor, then operator delete.
// CHECK-LABEL: cir.func @_Z7destroyP1W(
// CHECK:         %[[NN:.+]] = cir.cmp(ne, %[[W:.+]], %{{.+}}) : !cir.ptr<!rec_W>, !cir.bool
// CHECK-NEXT:    cir.if %[[NN]] {
// CHECK-NEXT:      cir.call @_ZN1WD1Ev(%[[W]]) nothrow
// CHECK-NEXT:      %[[V:.+]] = cir.cast bitcast %[[W]] : !cir.ptr<!rec_W> -> !cir.ptr<!void>
// CHECK-NEXT:      cir.call @_ZdlPv(%[[V]]) nothrow
