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


// delete: null check, destructor, then operator delete.

// CHECK-LABEL: cir.func @_Z4makev() -> !cir.ptr<!rec_W> {
// CHECK:         %[[ACTIVE:.+]] = cir.alloca "cleanup.isactive"{{( align\([0-9]+\))?}} : !cir.ptr<!cir.bool>
// CHECK:         %[[SIZE:.+]] = cir.const #cir.int<1> : !u64i
// CHECK-NEXT:    %[[RAW:.+]] = cir.call @_Znwm(%[[SIZE]]) : (!u64i) -> !cir.ptr<!void>
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
// CHECK-NEXT:        cir.call @_ZdlPvm(%[[RAW]], %[[SIZE]]) nothrow
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.resume
// CHECK-NEXT:    }

// delete: null check, destructor, then (sized) operator delete, which also runs if the
// destructor throws.
// CHECK-LABEL: cir.func @_Z7destroyP1W(
// CHECK:         %[[W:.+]] = cir.load align(8) %{{.+}} : !cir.ptr<!cir.ptr<!rec_W>>, !cir.ptr<!rec_W>
// CHECK:         %[[NN:.+]] = cir.cmp ne %[[W]], %{{.+}} : !cir.ptr<!rec_W>
// CHECK-NEXT:    cir.if %[[NN]] {
// CHECK-NEXT:      %[[V:.+]] = cir.cast bitcast %[[W]] : !cir.ptr<!rec_W> -> !cir.ptr<!void>
// CHECK-NEXT:      %[[WSIZE:.+]] = cir.const #cir.int<1> : !u64i
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK-NEXT:        cir.call @_ZN1WD1Ev(%[[W]]) nothrow
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } cleanup all {
// CHECK-NEXT:        cir.call @_ZdlPvm(%[[V]], %[[WSIZE]]) nothrow
