// noexcept bodies sit in `cir.try ... terminate`, dynamic exception specifications in
// `cir.try ... filter [types]` (empty for throw()), their definitions are nothrow when the
// specification allows nothing, and calls to such functions are
// nothrow only when the specification allows nothing.
// RUN: %ehir --std=c++14 opt %s | FileCheck %s

void quiet() noexcept;
void only_int() throw(int);
void only_int() throw(int) { quiet(); }
void none() throw() { throw 1; }
void strict() noexcept { only_int(); }

// CHECK-LABEL: cir.func @_Z8only_intv() {
// CHECK-NEXT:    cir.try {
// CHECK-NEXT:      cir.scope {
// CHECK-NEXT:        cir.call @_Z5quietv() nothrow : () -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    } filter [#cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
// CHECK-NEXT:      cir.unreachable
// CHECK-NEXT:    }
// CHECK-LABEL: cir.func nothrow @_Z4nonev() {
// CHECK-NEXT:    cir.try {
// CHECK:             cir.throw %{{.+}} : !cir.ptr<!s32i>, @_ZTIi
// CHECK-NEXT:        cir.unreachable
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    } filter [] {
// CHECK-NEXT:      cir.unreachable
// CHECK-NEXT:    }
// CHECK-LABEL: cir.func nothrow @_Z6strictv() {
// CHECK-NEXT:    cir.try {
// CHECK-NEXT:      cir.scope {
// CHECK-NEXT:        cir.call @_Z8only_intv() : () -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    } terminate {
// CHECK-NEXT:      cir.unreachable
// CHECK-NEXT:    }
