// An integer constant initializing a variable is converted to the variable's type as an
// implicit conversion does (modulo 2^N), so the printed module reads back: before,
// `int g = 18446744073709551615;` printed `#cir.int<18446744073709551615> : !s32i`.
// (C++03: the narrowing conversions in braces are not errors there.)
// RUN: %ehir --std=c++03 opt %s -o %t.cir
// RUN: %ehir opt %t.cir | FileCheck %s
// RUN: %ehir --std=c++03 run %s; test $? -eq 42
// RUN: g++ -std=c++03 -w -o %t.gxx %s && %t.gxx; test $? -eq 42
// CHECK-DAG: cir.global external @g = #cir.int<-1> : !s32i
// CHECK-DAG: cir.global external @u = #cir.int<44> : !u8i
// CHECK-DAG: cir.global external @big = #cir.int<4294967295> : !u32i
// CHECK-DAG: cir.global external @arr = #cir.const_array<[#cir.int<-1> : !s16i, #cir.int<1> : !s16i]> : !cir.array<!s16i x 2>

int g = 18446744073709551615;
unsigned char u = 300;
unsigned big = 0xffffffffffffffffull;
short arr[2] = {65535, 65537};

int main() { return g + u - arr[0] - arr[1] + (big == 4294967295u) - 2; }
