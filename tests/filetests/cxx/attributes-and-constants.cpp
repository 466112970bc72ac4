// Function attributes and linkage as Clang gives them, and global initializers Clang's
// constant evaluator folds:
// - a `const` object at namespace scope has internal linkage (not when `extern`); a
//   static data member is external, and is defined by its definition outside the class
//   (with its initializer), not by its declaration in the class;
// - a definition that cannot throw (`noexcept`, an implicitly noexcept destructor) is
//   `nothrow` (Clang's `nounwind`); one that may throw is not;
// - a `constexpr` function is inline, so `linkonce_odr`, and not emitted unless used;
// - a scalar initializer made of literals, operators, casts, `sizeof`, enumerators and
//   `const` variables is a constant (`unsigned big = -1;` is 4294967295), at each
//   node's type; one that loads a variable is a dynamic initializer (run before `main`
//   by `_GLOBAL__sub_I`, the global zero until then).
// RUN: %ehir opt %s | FileCheck %s --implicit-check-not=_Z6unusedi
// RUN: %ehir opt --abi msvc %s | FileCheck %s --check-prefix=MSVC
// RUN: %ehir emit-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 42
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 42
// RUN: diff %t.expected %t.run
// RUN: %ehir opt -D DYNAMIC %s | FileCheck %s --check-prefix=DYNAMIC
// RUN: %ehir run --phase all -D DYNAMIC %s; test $? -eq 251
#include <stdio.h>

enum Level { Low = 2, High };
const int base = 3 * 4;

// CHECK-DAG: cir.global external @big = #cir.int<4294967295> : !u32i
unsigned big = -1;
// CHECK-DAG: cir.global external @neg = #cir.int<-5> : !s32i
int neg = -5;
// CHECK-DAG: cir.global external @mixed = #cir.const_array<[#cir.int<-1> : !s32i, #cir.int<12> : !s32i, #cir.int<3> : !s32i, #cir.int<19> : !s32i]> : !cir.array<!s32i x 4>
int mixed[4] = {-1, base, High, (1 << 4) | 3};
// CHECK-DAG: cir.global external @ratio = #cir.fp<0.3333333432674408> : !cir.float
float ratio = 1.0 / 3;
// CHECK-DAG: cir.global external @truncated = #cir.int<-3> : !s32i
int truncated = (int)-3.9;
// CHECK-DAG: cir.global external @sizes = #cir.int<12> : !s64i
// MSVC-DAG: cir.global external @"?sizes@@3JA" = #cir.int<8> : !s32i
long sizes = sizeof(long) + sizeof(int);
// CHECK-DAG: cir.global external @chosen = #cir.int<100> : !s32i
int chosen = base > 10 && High > Low ? 100 : 200;
// CHECK-DAG: cir.global external @wide = #cir.int<1152921504606846975> : !u64i
unsigned long long wide = ~0ull >> 4;
// CHECK-DAG: cir.global external @flag = #true
bool flag = !0;
// CHECK-DAG: cir.global internal @_ZL5table = #cir.const_array<[#cir.int<5> : !s32i, #cir.int<7> : !s32i]> : !cir.array<!s32i x 2>
const int table[2] = {5, 7};
// CHECK-DAG: cir.global external @shared = #cir.int<9> : !s32i
extern const int shared = 9;
struct Counter {
  static const int start;
};
// CHECK-DAG: cir.global external @_ZN7Counter5startE = #cir.int<4> : !s32i
// MSVC-DAG: cir.global external @"?start@Counter@@2HB" = #cir.int<4> : !s32i
const int Counter::start = 4;
const int *pick(int i) { return i ? &Counter::start : &table[i]; }
#ifdef DYNAMIC
// DYNAMIC-DAG: cir.global external @copied = #cir.zero : !s32i
// DYNAMIC-DAG: cir.func internal @__cxx_global_var_init.0()
// DYNAMIC-DAG: cir.func internal @_GLOBAL__sub_I() global_ctor
int copied = neg;
#endif

// CHECK-DAG: cir.func linkonce_odr @_Z6squarei(
// LLVM-DAG: define linkonce_odr i32 @_Z6squarei(
constexpr int square(int x) { return x * x; }
constexpr int unused(int x) { return x + 1; }

// CHECK-DAG: cir.func nothrow @_Z5quietv()
// LLVM-DAG: define void @_Z5quietv() {{.*}}nounwind
void quiet() noexcept {}
// CHECK-DAG: cir.func @_Z4loudv()
void loud() { if (neg > 0) throw 1; }

struct Guard {
  ~Guard() { printf("~Guard\n"); }
};
// CHECK-DAG: cir.func linkonce_odr nothrow @_ZN5GuardD1Ev(
// MSVC-DAG: cir.func linkonce_odr nothrow @"??1Guard@@QEAA@XZ"(

int main() {
  Guard g;
  quiet();
  loud();
  printf("%u %d %d %d %d %d %.9g %d %ld %d %llx %d\n", big, neg, mixed[0], mixed[1], mixed[2],
         mixed[3], ratio, truncated, sizes, chosen, wide, flag);
#ifdef DYNAMIC
  return copied;
#endif
  return square(6) + High + 3 + (*pick(1) + *pick(0) + shared - 18);
}
