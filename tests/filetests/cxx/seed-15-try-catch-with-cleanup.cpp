// The seed's "try-catch with cleanup" example (listings 15/16 and 24/25): the object's
// cleanup scope is nested in the try body.
// RUN: %ehir opt %s | FileCheck %s

class SomeClass {
public:
  SomeClass();
  ~SomeClass();
  void doSomething();
};

extern "C" void someFunc() {
  try {
    SomeClass c;
    c.doSomething();
  } catch (...) {
    // Do nothing
  }
}

// CHECK-LABEL: cir.func @someFunc() {
// CHECK-NEXT:    cir.scope {
// CHECK-NEXT:      cir.try {
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          %[[C:.+]] = cir.alloca "c"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:          cir.call @_ZN9SomeClassC1Ev(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:          cir.cleanup.scope {
// CHECK-NEXT:            cir.call @_ZN9SomeClass11doSomethingEv(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          } cleanup all {
// CHECK-NEXT:            cir.call @_ZN9SomeClassD1Ev(%[[C]]) nothrow : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } catch all {
// CHECK-NEXT:        %{{.+}} = cir.catch_param : !cir.ptr<!void>
// CHECK-NEXT:        cir.scope {
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
