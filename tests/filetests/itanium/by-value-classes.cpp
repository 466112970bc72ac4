// RUN: %ehir opt %s | FileCheck %s --check-prefix=CIR
// RUN: %ehir emit-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: %ehir emit-llvm %s | opt -passes=verify -disable-output
// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s --check-prefix=MSVC
// Classes trivial for the purposes of calls (trivial copy constructor and destructor)
// are passed and returned by value as the x86-64 System V ABI says: CIR still passes
// their address, marked `by_value` / `by_value_result`, and the Itanium LLVM lowering
// uses registers, `byval` or `sret` like g++. Other classes go by address unmarked. An
// empty class is a record without fields; bytes the Itanium layout leaves without data
// are `.padding` records, so that the C ABI's classification sees them as no data.
// The Microsoft lowering keeps every class by address.

struct Two { int a; int b; };
struct ID { int i; double d; };
struct DD { double x; double y; };
struct Big { long a; long b; long c; };
struct Empty {};
struct Gap : Empty { Empty e; float f; };
struct Def {
  int x;
  Def(int v) : x(v) {}
  Def(const Def& o) = default;
};
struct NT {
  int v;
  NT(const NT& o) : v(o.v) {}
  ~NT() {}
};

// CIR: !rec_Empty = !cir.record<struct "Empty" {}>
// CIR: !rec_2Epadding = !cir.record<struct ".padding" {}>
// CIR: !rec_Gap = !cir.record<struct "Gap" {!cir.array<!rec_2Epadding x 1>, !rec_Empty, !cir.float}>

// CIR-LABEL: cir.func @_Z3two3Twoi(%arg0: !cir.ptr<!rec_Two> by_value_result, %arg1: !cir.ptr<!rec_Two> by_value, %arg2: !s32i)
// LLVM-LABEL: define i64 @_Z3two3Twoi(i64 %arg1.coerce0, i32 %arg2)
// MSVC-LABEL: define void @"?two@@YA?AUTwo@@U1@H@Z"(ptr %arg0, ptr %arg1, i32 %arg2)
Two two(Two t, int k) {
  t.a += k;
  return t;
}

// LLVM-LABEL: define { i32, double } @_Z2id2ID2DD(i32 %arg1.coerce0, double %arg1.coerce1, double %arg2.coerce0, double %arg2.coerce1)
ID id(ID v, DD w) {
  v.d += w.x;
  return v;
}

// LLVM-LABEL: define { double, double } @_Z2dd2DD(double %arg1.coerce0, double %arg1.coerce1)
DD dd(DD d) { return d; }

// LLVM-LABEL: define void @_Z3big3Big(ptr sret(%rec_Big) align 8 %arg0, ptr byval(%rec_Big) align 8 %arg1)
// MSVC-LABEL: define void @"?big@@YA?AUBig@@U1@@Z"(ptr %arg0, ptr %arg1)
Big big(Big b) { return b; }

// CIR-LABEL: cir.func @_Z5empty5Empty3Gap(%arg0: !cir.ptr<!rec_Empty> by_value_result, %arg1: !cir.ptr<!rec_Empty> by_value, %arg2: !cir.ptr<!rec_Gap> by_value)
// LLVM-LABEL: define void @_Z5empty5Empty3Gap(double %arg2.coerce0)
Empty empty(Empty e, Gap g) { return e; }

// A defaulted copy constructor is trivial; a user-provided one is not.
// CIR-LABEL: cir.func @_Z5mixed3Def2NT(%arg0: !cir.ptr<!rec_Def> by_value, %arg1: !cir.ptr<!rec_NT>) -> !s32i
// LLVM-LABEL: define i32 @_Z5mixed3Def2NT(i32 %arg0.coerce0, ptr %arg1)
int mixed(Def d, NT n) { return d.x + n.v; }

// A method: the result slot (when in memory) comes before `this`. (Defined in its class,
// it is inline, and generated after its first user; its checks are at the end.)
struct Maker {
  int base;
  Two make(int k) {
    Two t;
    t.a = base;
    t.b = k;
    return t;
  }
  Big makeBig() {
    Big b;
    b.a = b.b = b.c = base;
    return b;
  }
};

// Calls, also through a function pointer whose type carries the marks.
// CIR-LABEL: cir.func @_Z6callerv() -> !s32i
// CIR: cir.call @_Z3two3Twoi(%{{.+}}, %{{.+}}, %{{.+}}) : (!cir.ptr<!rec_Two> by_value_result, !cir.ptr<!rec_Two> by_value, !s32i) -> ()
// CIR: cir.get_global @_Z2dd2DD : !cir.ptr<!cir.func<(!cir.ptr<!rec_DD> by_value_result, !cir.ptr<!rec_DD> by_value)>>
// LLVM-LABEL: define i32 @_Z6callerv()
// LLVM: call i64 @_Z3two3Twoi(i64 %{{.+}}, i32 1)
// LLVM: call { double, double } %{{.+}}(double %{{.+}}, double %{{.+}})
// LLVM: call i64 @_ZN5Maker4makeEi(ptr %{{.+}}, i32 2)
int caller() {
  Two t;
  t.a = 1;
  t.b = 2;
  Two u = two(t, 1);
  DD (*f)(DD) = dd;
  DD d;
  d.x = 1.5;
  d.y = 2.5;
  DD e = f(d);
  Maker m;
  m.base = 7;
  Two v = m.make(2);
  Big w = m.makeBig();
  return u.a + v.a + (int)e.y + (int)w.c;
}

// LLVM-LABEL: define linkonce_odr i64 @_ZN5Maker4makeEi(ptr %arg1, i32 %arg2)
// LLVM-LABEL: define linkonce_odr void @_ZN5Maker7makeBigEv(ptr sret(%rec_Big) align 8 %arg0, ptr %arg1)
// MSVC-LABEL: define linkonce_odr void @"?make@Maker@@QEAA?AUTwo@@H@Z"(ptr %arg0, ptr %arg1, i32 %arg2)
