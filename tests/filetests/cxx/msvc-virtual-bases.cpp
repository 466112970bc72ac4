// Virtual bases on the Microsoft ABI, as Clang for Windows builds them:
// - each vbtable pointer of a complete object points to a vbtable `??_8…` of 32-bit
//   entries: minus the pointer's offset in its subobject, then the offset from the
//   pointer to each virtual base (`??_8Shared@@7BVIo@@@` = [0, 16], as Clang's);
// - a constructor of a class with virtual bases takes a last `i32`, "most derived": set
//   for a complete object, 0 for a base subobject; only then does it store the vbtable
//   pointers and construct the virtual bases;
// - the typeinfo names a virtual base's vbtable entry and the vbtable pointer
//   (`at 4 virtual vbptr 0`); a CatchableType of a virtual base has its PMD (vbtable
//   pointer 0, entry 4), the class's has property 4 (the copy constructor takes the
//   flag; a pointer to such a class is marked so too, as by Clang); a handler for the shared base catches the object once, through either path,
//   also when one path is private;
// - the interpreter finds virtual bases through the vbtables.
// RUN: %ehir opt --abi msvc %s | FileCheck %s
// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s --check-prefix=LLVM
// RUN: %ehir run --abi msvc --phase all %s > %t.run; test $? -eq 31
// RUN: FileCheck %s --check-prefix=OUT < %t.run
// CHECK-DAG: cir.global constant internal @"??_8Shared@@7BVIo@@@" = #cir.const_array<[#cir.int<0> : !s32i, #cir.int<16> : !s32i]>
// CHECK-DAG: cir.global constant internal @"??_8Shared@@7BVParse@@@" = #cir.const_array<[#cir.int<0> : !s32i, #cir.int<8> : !s32i]>
// CHECK-DAG: cir.typeinfo @_ZTI6Shared : !rec_Shared bases [@_ZTI3VIo at 0, @_ZTI6VParse at 8]
// CHECK-DAG: cir.typeinfo @_ZTI3VIo : !rec_VIo bases [@_ZTI5Error at 4 virtual vbptr 0]
// CHECK-DAG: cir.func {{.*}}@"??0Shared@@QEAA@XZ"(%{{.*}}: !cir.ptr<!rec_Shared>{{.*}}, %{{.*}}: !s32i
// LLVM-DAG: @"??_8Shared@@7BVIo@@@" = internal constant [2 x i32] [i32 0, i32 16]
// LLVM-DAG: @"_CT??_R0?AUError@@@84@0@4" = linkonce_odr {{.*}} { i32 0, {{.*}}, i32 0, i32 0, i32 4, i32 4, i32 0 }
// LLVM-DAG: @"_CT??_R0?AUShared@@@824@??0Shared@@QEAA@AEBU0@@Z" = linkonce_odr {{.*}} { i32 4, {{.*}}, i32 0, i32 -1, i32 0, i32 24,
// LLVM-DAG: @"_CT??_R0PEAUVParse@@@88@8" = linkonce_odr {{.*}} { i32 5, {{.*}}, i32 8, i32 -1, i32 0, i32 8, i32 0 }
// LLVM-DAG: @"_CT??_R0PEAUError@@@88@0@4" = linkonce_odr {{.*}} { i32 1, {{.*}}, i32 0, i32 0, i32 4, i32 8, i32 0 }
// OUT: shared 7 7 7
// OUT: mixed 8 8
#include <cstdio>

struct Error {
  int code;
};
struct VIo : virtual Error {};
struct VParse : virtual Error {};
struct Shared : VIo, VParse {};
struct Mixed : VIo, private VParse {};

static int caught(const Shared &s) {
  try {
    throw s;
  } catch (Error &e) {
    return e.code;
  }
}

int main() {
  Shared s;
  s.code = 7;
  VParse *through = &s;
  int by_pointer = 0;
  try {
    throw &s;
  } catch (VParse *p) {
    by_pointer = p->code;
  }
  std::printf("shared %d %d %d\n", caught(s), through->code, by_pointer);
  Mixed m;
  m.code = 8;
  try {
    throw m;
  } catch (Error &e) {
    std::printf("mixed %d", e.code);
  }
  try {
    throw &m;
  } catch (Error *e) {
    std::printf(" %d\n", e->code);
  }
  return s.code + m.code * 3;
}
