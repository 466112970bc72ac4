// The seed's "EH-only cleanup" example (listings 08/09): the base subobject is destroyed
// only if the rest of the constructor throws.
// RUN: %ehir opt %s | FileCheck %s

void f();

class Base {
public:
  Base();
  ~Base();
};

class Derived : public Base {
public:
  Derived() : Base() { f(); }
  ~Derived();
};

// Referencing the constructor makes the front end emit it.
void make() { Derived d; }

// The constructor, inline (defined in its class): Clang's front end emits the
// complete-object variant, C1, also for base subobjects (no virtual bases here).
// CHECK-LABEL: cir.func linkonce_odr @_ZN7DerivedC1Ev(%arg0: !cir.ptr<!rec_Derived>) {
// CHECK-NEXT:    %[[B:.+]] = cir.base_class_addr %arg0 : !cir.ptr<!rec_Derived> nonnull [0] -> !cir.ptr<!rec_Base>
// CHECK-NEXT:    cir.call @_ZN4BaseC1Ev(%[[B]]) : (!cir.ptr<!rec_Base>) -> ()
// CHECK-NEXT:    cir.cleanup.scope {
// CHECK-NEXT:      cir.scope {
// CHECK-NEXT:        cir.call @_Z1fv() : () -> ()
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    } cleanup eh {
// CHECK-NEXT:      cir.call @_ZN4BaseD1Ev(%[[B]]) nothrow : (!cir.ptr<!rec_Base>) -> ()
// CHECK-NEXT:      cir.resume
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
