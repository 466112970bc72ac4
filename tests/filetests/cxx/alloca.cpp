// `__builtin_alloca`: a dynamic `cir.alloca` (its byte count an operand) that stays where
// it is written; the bytes live until the function returns, across a throw caught in
// the same frame, and a zero-byte allocation is the frame's stack pointer, the same
// before and after a try. Checked against g++ (the oracle) at every interpreter phase
// and natively.
// RUN: %ehir opt %s | FileCheck %s
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 5
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 5
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 5
// RUN: diff %t.expected %t.native
// CHECK: cir.alloca !u8i, !cir.ptr<!u8i>, %{{[0-9]+}} : !u64i, ["bi_alloca"] {alignment = 16 : i64}
#include <cstdio>
#include <cstring>

static int fail(int i) {
  if (i > 2)
    throw i;
  return i;
}

static int fill(int n) {
  char *text = static_cast<char *>(__builtin_alloca(n + 1));
  std::memset(text, 'x', n);
  text[n] = 0;
  int caught = 0;
  try {
    fail(n);
  } catch (int e) {
    caught = e;
  }
  std::printf("%s (%d)\n", text, caught);
  return (int)std::strlen(text);
}

int main() {
  void *before = __builtin_alloca(0);
  int total = 0;
  try {
    total += fill(2);
    total += fill(3);
  } catch (...) {
    total = 100;
  }
  void *after = __builtin_alloca(0);
  std::printf("same stack pointer: %d\n", before == after);
  return total;
}
