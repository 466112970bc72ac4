// A goto may enter a nested scope when it skips no initialization (C++ [stmt.dcl]): the
// label's name is the source's (deterministic output), and the jump runs at every phase
// (the structured interpreter enters the scopes on the way and allocates their
// variables) and natively, as g++ runs it. A jump that would skip an initialization is
// Clang's error.
// RUN: %ehir opt %s | FileCheck %s
// RUN: g++ -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 42
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 42
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe && %t.exe > %t.native; test $? -eq 42
// RUN: diff %t.expected %t.native
// RUN: not %ehir opt -D SKIP_INIT %s 2>&1 | FileCheck %s --check-prefix=SKIP
// CHECK-LABEL: cir.func @_Z11into_scopesi(
// CHECK:         cir.goto "inside"
// CHECK:         cir.label "inside"
// SKIP: goto-into-scope.cpp:[[# @LINE + 9]]:3: error: cannot jump from this goto statement to its label
#include <cstdio>

struct Counted {
  Counted() {}
  ~Counted() {}
};

int into_scopes(int n) {
  goto inside;
  {
#ifdef SKIP_INIT
    Counted c;
#endif
    n = 100;
    {
      int skipped; // no initializer: the jump may pass it
    inside:
      skipped = n * 2;
      return skipped;
    }
  }
}

int into_loop(int start) {
  int sum = 0;
  int i = start;
  goto body;
  while (i < 5) {
    int square;
  body:
    square = i * i;
    sum += square;
    printf("i=%d square=%d\n", i, square);
    ++i;
  }
  return sum;
}

int main() {
  int a = into_scopes(1);   // 2
  int b = into_loop(7);     // the body runs once though the condition is false: 49
  int c = into_loop(3);     // 9 + 16 = 25
  printf("%d %d %d\n", a, b, c);
  return a + b - c + 16;    // 42
}
