// `ehir run --phase all` compares every phase, msvc included. The Microsoft C++ ABI does
// not enforce dynamic exception specifications, so a run in which an exception meets one
// (here `throw()` on leak()) is run at the msvc phase but not compared, and a note says
// so; a run where no exception meets it (entry keep()) compares all four phases.
// RUN: %ehir run --phase all %s > %t.out 2> %t.err; test $? -eq 134; FileCheck %s --check-prefix=NOTE < %t.err
// NOTE: terminate called after throwing an instance of 'int'
// NOTE: ehir run: note: phase msvc was run but not compared: an exception meets a dynamic exception specification (@_Z4leaki has one), which the Microsoft C++ ABI does not enforce
// RUN: %ehir run --phase all --entry _Z4keepv %s > %t.keep 2> %t.keep.err; test $? -eq 0; FileCheck %s --check-prefix=KEEP < %t.keep; FileCheck %s --check-prefix=QUIET --allow-empty < %t.keep.err
// KEEP: kept 3
// QUIET-NOT: note
// QUIET-NOT: diverge
#include <stdio.h>

void leak(int n) throw() {
  if (n)
    throw n;
  printf("kept %d\n", 3);
}

void keep() { leak(0); }

int main() {
  try {
    leak(1);
  } catch (int) {
    printf("not reached\n");
  }
  return 0;
}
