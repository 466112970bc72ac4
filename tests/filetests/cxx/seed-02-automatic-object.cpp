// The seed's "automatic storage object cleanup" example (listing 02): the cleanup scope
// starts after the constructor and covers the rest of the function (listing 03/28).
// RUN: %ehir opt %s | FileCheck %s

class SomeClass {
public:
  SomeClass();
  ~SomeClass();
  void doSomething();
};

extern "C" void someFunc() {
  SomeClass c;
  c.doSomething();
}

// CHECK-LABEL: cir.func @someFunc() {
// CHECK-NEXT:    cir.scope {
// CHECK-NEXT:      %[[C:.+]] = cir.alloca "c"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:      cir.call @_ZN9SomeClassC1Ev(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK-NEXT:        cir.call @_ZN9SomeClass11doSomethingEv(%[[C]]) : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } cleanup all {
// CHECK-NEXT:        cir.call @_ZN9SomeClassD1Ev(%[[C]]) nothrow : (!cir.ptr<!rec_SomeClass>) -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
