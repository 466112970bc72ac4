// The Microsoft C++ ABI does not enforce dynamic exception specifications. A `.cir` input
// without a target runs at the phases of both ABIs under `ehir run --phase all`: a run in
// which an exception meets a specification (here `throw(char)` on leak(), which throws an int) is run at the msvc
// phase but not compared, and a note says so; a run where no exception meets one (entry
// keep()) compares all four phases. C++ is compiled for one target and `--phase all`
// runs that ABI's phases: for Itanium the specification is enforced (std::unexpected,
// then terminate), for Windows the front end emits none, as Clang does, and the
// exception reaches main's handler.
// (The module compiled from C++ records its target; without it, it is a scenario.)
// RUN: %ehir --std=c++14 opt %s | sed 's/^module attributes {cir.triple = "[^"]*"} {$/module {/' > %t.cir
// RUN: %ehir run --phase all %t.cir > %t.out 2> %t.err; test $? -eq 134; FileCheck %s --check-prefix=NOTE < %t.err
// NOTE: terminate called after throwing an instance of 'int'
// NOTE: ehir run: note: phase msvc was run but not compared: an exception meets a dynamic exception specification (@_Z4leaki has one), which the Microsoft C++ ABI does not enforce
// NOTE: ehir run: verdict: phases structured, flat, itanium agree; the program exited with status 134
// RUN: %ehir run --phase all --entry _Z4keepv %t.cir > %t.keep 2> %t.keep.err; test $? -eq 0; FileCheck %s --check-prefix=KEEP < %t.keep; FileCheck %s --check-prefix=QUIET < %t.keep.err
// KEEP: kept 3
// QUIET-NOT: note
// QUIET-NOT: diverge
// QUIET: ehir run: verdict: phases structured, flat, itanium, msvc agree; the program exited with status 0
// RUN: %ehir --std=c++14 run --phase all %s > %t.itanium 2> %t.itanium.err; test $? -eq 134; FileCheck %s --check-prefix=ITANIUM < %t.itanium.err
// ITANIUM-NOT: note
// ITANIUM: ehir run: verdict: phases structured, flat, itanium agree; the program exited with status 134
// RUN: %ehir --std=c++14 run --abi msvc --phase all %s > %t.msvc 2> %t.msvc.err; test $? -eq 0; FileCheck %s --check-prefix=MSVC < %t.msvc; FileCheck %s --check-prefix=MSVC-VERDICT < %t.msvc.err
// MSVC: caught past the specification
// MSVC-VERDICT: ehir run: verdict: phases structured, flat, msvc agree; the program exited with status 0
#include <stdio.h>

void leak(int n) throw(char) {
  if (n)
    throw n;
  printf("kept %d\n", 3);
}

void keep() { leak(0); }

int main() {
  try {
    leak(1);
  } catch (int) {
    printf("caught past the specification\n");
  }
  return 0;
}
