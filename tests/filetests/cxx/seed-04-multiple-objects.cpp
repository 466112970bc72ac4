// The seed's "multiple automatic objects" example (listings 04/05): one nested cleanup
// scope per object, entered when its construction completes, popped in reverse order.
// RUN: %ehir opt %s | FileCheck %s

class SomeClass {
public:
  SomeClass();
  ~SomeClass();
  void doSomething();
};

extern "C" void someFunc() {
  SomeClass c;
  SomeClass c2;
  c.doSomething();
  SomeClass c3;
  c3.doSomething();
}

// CHECK-LABEL: cir.func @someFunc() {
// CHECK-NEXT:    cir.scope {
// CHECK-NEXT:      %[[C:.+]] = cir.alloca "c"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:      %[[C2:.+]] = cir.alloca "c2"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:      %[[C3:.+]] = cir.alloca "c3"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_SomeClass>
// CHECK-NEXT:      cir.call @_ZN9SomeClassC1Ev(%[[C]])
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK-NEXT:        cir.call @_ZN9SomeClassC1Ev(%[[C2]])
// CHECK-NEXT:        cir.cleanup.scope {
// CHECK-NEXT:          cir.call @_ZN9SomeClass11doSomethingEv(%[[C]])
// CHECK-NEXT:          cir.call @_ZN9SomeClassC1Ev(%[[C3]])
// CHECK-NEXT:          cir.cleanup.scope {
// CHECK-NEXT:            cir.call @_ZN9SomeClass11doSomethingEv(%[[C3]])
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          } cleanup all {
// CHECK-NEXT:            cir.call @_ZN9SomeClassD1Ev(%[[C3]])
// CHECK-NEXT:            cir.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        } cleanup all {
// CHECK-NEXT:          cir.call @_ZN9SomeClassD1Ev(%[[C2]])
// CHECK-NEXT:          cir.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } cleanup all {
// CHECK-NEXT:        cir.call @_ZN9SomeClassD1Ev(%[[C]])
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
