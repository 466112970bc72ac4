// The seed's "simple try-catch" example (listings 11/12): a typed handler for
// std::exception& and an unwind region for everything else.
// RUN: %ehir opt %s | FileCheck %s
#include <exception>

void f();

extern "C" void someFunc() {
  try {
    f();
  } catch (std::exception &e) {
    // Do nothing
  }
}

// CHECK-LABEL: cir.func @someFunc() {
// CHECK-NEXT:    cir.scope {
// CHECK-NEXT:      cir.try {
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          cir.call @_Z1fv() : () -> ()
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } catch [type #cir.global_view<@_ZTISt9exception> : !cir.ptr<!u8i>] {
// CHECK-NEXT:        %{{.+}} = cir.catch_param : !cir.ptr<!rec_std3A3Aexception>
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } unwind {
// CHECK-NEXT:        cir.resume
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
// CHECK: cir.typeinfo @_ZTISt9exception : !rec_std3A3Aexception
