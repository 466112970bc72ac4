// The seed's "try-catch within a cleanup region" example (listings 17/18): the try is
// nested in the cleanup scope of the object constructed before it.
// RUN: %ehir opt %s | FileCheck %s
#include <exception>

class SomeClass {
public:
  SomeClass();
  ~SomeClass();
  void doSomething();
};

extern "C" void someFunc() {
  SomeClass c;
  try {
    c.doSomething();
  } catch (std::exception& e) {
    // Do nothing
  }
}

// CHECK-LABEL: cir.func @someFunc() {
// CHECK-NEXT:    cir.scope {
// CHECK-NEXT:      %[[C:.+]] = cir.alloca "c"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:      cir.call @_ZN9SomeClassC1Ev(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK-NEXT:        cir.try {
// CHECK-NEXT:          cir.scope {
// CHECK-NEXT:            cir.call @_ZN9SomeClass11doSomethingEv(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        } catch [type #cir.global_view<@_ZTISt9exception> : !cir.ptr<!u8i>] {
// CHECK-NEXT:          %{{.+}} = cir.catch_param : !cir.ptr<!rec_std3A3Aexception>
// CHECK-NEXT:          cir.scope {
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        } unwind {
// CHECK-NEXT:          cir.resume
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } cleanup all {
// CHECK-NEXT:        cir.call @_ZN9SomeClassD1Ev(%[[C]]) nothrow : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
