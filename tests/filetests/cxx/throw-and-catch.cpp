// throw T(...) constructs the exception object in place (releasing its storage if the
// constructor throws) and names its typeinfo and destructor; class typeinfo objects list their public bases; catch by value copies,
// catch by pointer receives the pointer itself.
// RUN: %ehir opt %s | FileCheck %s

struct Base {
  int code;
  Base(int c);
};
struct Err : Base {
  Err(int c);
  Err(const Err&);
  ~Err();
};

int f(int x) {
  try {
    if (x)
      throw Err(x);
  } catch (Err e) {
    return e.code;
  } catch (Base* p) {
    return p->code;
  }
  return 0;
}

// The constructor may throw: its exception propagates and the storage is released.

// CHECK-LABEL: cir.func @_Z1fi(%arg0: !s32i) -> !s32i {
// CHECK:           %[[E:.+]] = cir.alloca "e"{{( align\([0-9]+\))?}} init : !cir.ptr<!rec_Err>
// CHECK:           %[[X:.+]] = cir.alloc.exception 4 -> !cir.ptr<!rec_Err>
// The constructor may throw: its exception propagates and the storage is released.
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK:             cir.call @_ZN3ErrC1Ei(%[[X]], %{{.+}})
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } cleanup eh {
// CHECK-NEXT:        cir.free.exception %[[X]] : !cir.ptr<!rec_Err>
// CHECK-NEXT:        cir.resume
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.throw %[[X]] : !cir.ptr<!rec_Err>, @_ZTI3Err, @_ZN3ErrD1Ev
// The copy into the catch parameter terminates if it throws.
// CHECK:         } catch [type #cir.global_view<@_ZTI3Err> : !cir.ptr<!u8i>] {
// CHECK-NEXT:      %[[P:.+]] = cir.catch_param : !cir.ptr<!rec_Err>
// CHECK-NEXT:      cir.try {
// CHECK-NEXT:        cir.call @_ZN3ErrC1ERKS_(%[[E]], %[[P]])
// CHECK-NEXT:        cir.yield
// CHECK-NEXT:      } terminate {
// CHECK-NEXT:        cir.unreachable
// CHECK-NEXT:      }
// CHECK-NEXT:      cir.cleanup.scope {
// CHECK:           } cleanup all {
// CHECK-NEXT:        cir.call @_ZN3ErrD1Ev(%[[E]]) nothrow
// CHECK:         } catch [type #cir.global_view<@_ZTIP4Base> : !cir.ptr<!u8i>] {
// CHECK-NEXT:      %[[Q:.+]] = cir.catch_param : !cir.ptr<!rec_Base>
// CHECK-NEXT:      cir.store align(8) %[[Q]], %{{.+}} : !cir.ptr<!rec_Base>, !cir.ptr<!cir.ptr<!rec_Base>>
// CHECK:         } unwind {
// CHECK-NEXT:      cir.resume
// CHECK-DAG: cir.typeinfo @_ZTI4Base : !rec_Base
// CHECK-DAG: cir.typeinfo @_ZTI3Err : !rec_Err bases [@_ZTI4Base at 0]
// CHECK-DAG: cir.typeinfo @_ZTIP4Base : !cir.ptr<!rec_Base>
