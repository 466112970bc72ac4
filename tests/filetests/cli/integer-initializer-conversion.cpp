// An integer constant initializing a variable is converted to the variable's type as an
// implicit conversion does (modulo 2^N), so the printed module reads back: before,
// `int g = 18446744073709551615;` printed `#cir.int<18446744073709551615> : !s32i`.
// RUN: %ehir opt %s -o %t.cir
// RUN: %ehir opt %t.cir | FileCheck %s
// RUN: %ehir run %s; test $? -eq 42
// (g++ -w: the program exits 42 too.)
// CHECK: cir.global external @g = #cir.int<-1> : !s32i
// CHECK: cir.global external @u = #cir.int<44> : !u8i
// CHECK: cir.global external @big = #cir.int<4294967295> : !u32i
// CHECK: cir.global external @arr = #cir.const_array<[#cir.int<-1> : !s16i, #cir.int<1> : !s16i]> : !cir.array<!s16i x 2>

int g = 18446744073709551615;
unsigned char u = 300;
unsigned big = -1;
short arr[2] = {65535, 65537};

int main() { return g + u - arr[0] - arr[1] + (big == 4294967295u) - 2; }
