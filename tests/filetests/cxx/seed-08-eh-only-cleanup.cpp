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

// CHECK-LABEL: cir.func linkonce_odr @_ZN7DerivedC2Ev(%arg0: !cir.ptr<!rec_Derived>) {
// CHECK-NEXT:    %[[SLOT:.+]] = cir.alloca !cir.ptr<!rec_Derived>, !cir.ptr<!cir.ptr<!rec_Derived>>, ["this", init]
// CHECK-NEXT:    cir.store %arg0, %[[SLOT]] : !cir.ptr<!rec_Derived>, !cir.ptr<!cir.ptr<!rec_Derived>>
// CHECK-NEXT:    %[[THIS:.+]] = cir.load %[[SLOT]] : !cir.ptr<!cir.ptr<!rec_Derived>>, !cir.ptr<!rec_Derived>
// CHECK-NEXT:    %[[B:.+]] = cir.base_class_addr %[[THIS]] : !cir.ptr<!rec_Derived> nonnull [0] -> !cir.ptr<!rec_Base>
// CHECK-NEXT:    cir.call @_ZN4BaseC2Ev(%[[B]]) : (!cir.ptr<!rec_Base>) -> ()
// CHECK-NEXT:    cir.cleanup.scope {
// CHECK-NEXT:      cir.call @_Z1fv() : () -> ()
// CHECK-NEXT:      cir.yield
// CHECK-NEXT:    } cleanup eh {
// CHECK-NEXT:      %[[B2:.+]] = cir.base_class_addr %[[THIS]] : !cir.ptr<!rec_Derived> nonnull [0] -> !cir.ptr<!rec_Base>
// CHECK-NEXT:      cir.call @_ZN4BaseD2Ev(%[[B2]]) nothrow : (!cir.ptr<!rec_Base>) -> ()
// CHECK-NEXT:      cir.resume
// CHECK-NEXT:    }
// CHECK-NEXT:    cir.return
// CHECK-NEXT:  }
// The complete-object constructor forwards to the base-object one.
// CHECK-LABEL: cir.func linkonce_odr @_ZN7DerivedC1Ev(%arg0: !cir.ptr<!rec_Derived>) {
// CHECK-NEXT:    cir.call @_ZN7DerivedC2Ev(%arg0)
