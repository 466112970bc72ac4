// Variable-length arrays (GNU): a dynamic `cir.alloca` of the element type whose count is
// computed from the bound where the declaration is; `sizeof` of the variable is that
// count times the element size; the storage outlives a throw caught in the same frame
// and is gone with a frame the exception leaves. Checked against g++ (the oracle) at every
// interpreter phase and natively. A bound Clang's spelling cannot be read back from (a
// call) is diagnosed.
// RUN: %ehir opt %s | FileCheck %s
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 5
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 5
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 5
// RUN: diff %t.expected %t.native
// RUN: not %ehir opt -D CALL_BOUND %s 2>&1 | FileCheck %s --check-prefix=CALL
// CHECK-LABEL: cir.func {{.*}}@_ZL4fillii(
// CHECK: cir.alloca !s8i, !cir.ptr<!s8i>, %{{[0-9]+}} : !u64i, ["text"]
// CHECK-LABEL: cir.func {{.*}}@_ZL6matrixl(
// CHECK: cir.alloca !cir.array<!s32i x 3>, !cir.ptr<!cir.array<!s32i x 3>>, %{{[0-9]+}} : !u64i, ["cells"]
// CALL: error: unsupported: variable-length array bound 'width()'
#include <cstdio>
#include <cstring>

static int check(int n) {
  if (n > 4)
    throw n;
  return n;
}

static int fill(int n, int extra) {
  char text[n * 2 + extra];
  std::memset(text, 'a', sizeof text - 1);
  text[sizeof text - 1] = 0;
  try {
    check(n);
  } catch (int e) {
    std::printf("caught %d beside %zu bytes: %s\n", e, sizeof(text), text);
  }
  check(n);
  return (int)std::strlen(text);
}

static int matrix(long rows) {
  int cells[rows][3];
  for (long r = 0; r < rows; ++r)
    for (int c = 0; c < 3; ++c)
      cells[r][c] = (int)r * 10 + c;
  std::printf("matrix of %zu bytes, last %d\n", sizeof(cells), cells[rows - 1][2]);
  return cells[rows - 1][2];
}

#ifdef CALL_BOUND
static int width() { return 4; }
static void by_call() {
  char row[width()];
  row[0] = 0;
}
#endif

int main() {
  int total = 0;
  for (int n = 1; n <= 5; n += 2) {
    try {
      total += fill(n, 1);
    } catch (int e) {
      std::printf("fill(%d) threw %d\n", n, e);
    }
  }
  total += matrix(4);
#ifdef CALL_BOUND
  by_call();
#endif
  std::printf("total %d\n", total);
  return total % 7;
}
