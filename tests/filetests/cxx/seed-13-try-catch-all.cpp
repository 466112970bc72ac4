// The seed's "try-catch with catch all" example (listings 13/14): no unwind region
// once a catch-all handler exists.
// RUN: %ehir opt %s | FileCheck %s
#include <exception>

void f();

extern "C" void someFunc() {
  try {
    f();
  } catch (std::exception &e) {
    // Do nothing
  } catch (...) {
    // Do nothing
  }
}

// CHECK-LABEL: cir.func @someFunc() {
// CHECK:           cir.try {
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          cir.call @_Z1fv() : () -> ()
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } catch [type #cir.global_view<@_ZTISt9exception> : !cir.ptr<!u8i>] {
// CHECK-NEXT:        %{{.+}} = cir.catch_param : !cir.ptr<!rec_std3A3Aexception>
// CHECK:           } catch all {
// CHECK-NEXT:        %{{.+}} = cir.catch_param : !cir.ptr<!void>
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NOT:       unwind
// CHECK:           cir.return
