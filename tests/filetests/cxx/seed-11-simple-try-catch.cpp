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
// CHECK-NEXT:      %[[E:.+]] = cir.alloca !cir.ptr<!rec_std3A3Aexception>, !cir.ptr<!cir.ptr<!rec_std3A3Aexception>>, ["e", init]
// CHECK-NEXT:      cir.try {
// CHECK-NEXT:        cir.call @_Z1fv() : () -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } catch [type #cir.global_view<@_ZTISt9exception> : !cir.ptr<!u8i>] {
// CHECK-NEXT:        %[[P:.+]] = cir.catch_param : !cir.ptr<!rec_std3A3Aexception>
// CHECK-NEXT:        cir.store align(8) %[[P]], %[[E]] : !cir.ptr<!rec_std3A3Aexception>, !cir.ptr<!cir.ptr<!rec_std3A3Aexception>>
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } unwind {
// CHECK-NEXT:        cir.resume
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
