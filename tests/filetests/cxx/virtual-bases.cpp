// Virtual bases on the Itanium ABI: the typeinfo names the virtual base by the slot of
// its offset in the vtable, the vtable holds that offset before offset-to-top, the
// most derived class's VTT hands the base-object constructor (C2, with a VTT parameter)
// a construction vtable, and the secondary vtable reaches the overriders through thunks.
// Checked against g++ (the oracle) at every interpreter phase and natively.
// RUN: %ehir opt %s | FileCheck %s
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 7
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 7
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 7
// RUN: diff %t.expected %t.native
// CHECK-DAG: cir.global constant internal @_ZTV3Tee = #cir.const_array<[#cir.ptr<8 : i64> : !cir.ptr<!void>, #cir.ptr<null> : !cir.ptr<!void>, #cir.global_view<@_ZTI3Tee> : !cir.ptr<!void>, #cir.global_view<@_ZNK3Tee3whoEv>
// CHECK-DAG: cir.global constant internal @_ZTC3Tee0_4Sink = #cir.const_array<[#cir.ptr<8 : i64> : !cir.ptr<!void>, #cir.ptr<null> : !cir.ptr<!void>, #cir.global_view<@_ZTI4Sink> : !cir.ptr<!void>, #cir.global_view<@_ZNK4Sink3whoEv>
// CHECK-DAG: cir.global constant internal @_ZTT3Tee = #cir.const_array<[#cir.global_view<@_ZTV3Tee, [3 : i32]> : !cir.ptr<!void>, #cir.global_view<@_ZTC3Tee0_4Sink, [3 : i32]> : !cir.ptr<!void>
// CHECK-DAG: cir.call @_ZN4SinkC2Ev(%{{[0-9]+}}, %{{[0-9]+}}) : (!cir.ptr<!rec_Sink>, !cir.ptr<!cir.ptr<!void>>) -> ()
// CHECK-DAG: cir.func internal @_ZThn8_NK3Tee3whoEv(%arg0: !cir.ptr<!rec_Tee>) -> !cir.ptr<!s8i> {
// CHECK-DAG: cir.typeinfo @_ZTI4Sink : !rec_Sink bases [@_ZTI3Log at -24 virtual]
#include <cstdio>

struct Log {
  int id;
  explicit Log(int i) : id(i) {}
  virtual ~Log() {}
  virtual const char *who() const { return "Log"; }
};

struct Sink : virtual Log {
  Sink() : Log(1) { std::printf("building Sink: %s\n", who()); }
  const char *who() const override { return "Sink"; }
};

struct Tee : Sink {
  Tee() : Log(7) { std::printf("building Tee: %s\n", who()); }
  const char *who() const override { return "Tee"; }
};

int main() {
  try {
    throw Tee();
  } catch (Log &log) {
    std::printf("caught %s %d\n", log.who(), log.id);
    return log.id;
  }
}
