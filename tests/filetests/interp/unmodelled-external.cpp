// A call of an external function the interpreter does not model is an error naming it,
// at the call (file:line:col, with the source line and a caret), at every phase, never
// a made-up result: here `rand`, whose value would have been 0, and `srand`, which
// returns nothing (`-D VOID_CALL`). The module keeps its target (`cir.triple`) through a
// `.cir` file, so the same holds there. `--throw-at` or `--returns` naming the function
// makes it a probe: the run goes on with the scripted value; `--probes` makes every
// unmodelled function one. Modelled functions (printf, operator new and delete) run, also
// under their Microsoft names when the program is compiled for Windows (`--abi msvc`).
// RUN: %ehir run --phase all %s > %t.out 2> %t.err; test $? -eq 124
// RUN: FileCheck %s --check-prefix=RAND < %t.err
// RUN: %ehir run --phase all -D VOID_CALL %s > %t.out 2> %t.err; test $? -eq 124
// RUN: FileCheck %s --check-prefix=SRAND < %t.err
// RUN: %ehir opt %s -o %t.cir && %ehir run %t.cir > %t.out 2> %t.err; test $? -eq 124
// RUN: FileCheck %s --check-prefix=CIR < %t.err
// RUN: %ehir run --phase all --returns @rand=7 %s > %t.out; test $? -eq 7
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: %ehir run --phase all --probes %s > %t.out; test $? -eq 0
// RUN: %ehir run --abi msvc --phase all --returns @rand=7 %s > %t.out; test $? -eq 7
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RAND: unmodelled-external.cpp:[[# @LINE + 22]]:15: error: runtime error in @main: call of external function 'rand', which the interpreter does not model (its result would be made up); name it with --returns or --throw-at to run it as a probe [phase structured]
// RAND-NEXT: {{^}}  int value = rand();
// RAND-NEXT: {{^}}              ^
// RAND: [phase flat]
// RAND: [phase itanium]
// RAND: ehir run: verdict: the program calls 'rand', an external function the interpreter does not model, so it cannot run further (phase(s) structured, flat, itanium; exit status 124)
// SRAND: unmodelled-external.cpp:[[# @LINE + 14]]:3: error: runtime error in @main: call of external function 'srand'
// CIR: error: runtime error in @main: call of external function 'rand'
// OUT: made 3 objects
#include <stdio.h>
#include <stdlib.h>

struct Object {
  int id;
};

int main() {
  Object *objects = new Object[3];
  printf("made %d objects\n", 3);
#ifdef VOID_CALL
  srand(1);
#endif
  int value = rand();
  delete[] objects;
  return value;
}
