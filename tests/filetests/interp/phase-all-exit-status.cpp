// `ehir run` keeps its own verdicts apart from the program's exit status: a program that
// exits 2 (the status `--phase all` used for a divergence before) or 125 (the status it
// uses now) exits so through `--phase all` when the phases agree, and the verdict line
// says which it is. Bad flags exit 1 (clap's 2 before); a divergence exits 125 (unit
// test `verdict_statuses` in crates/ehir/src/run.rs); a program the interpreter stops
// exits 124 (interp/runtime-error.cir, interp/budget-phase-all.cir, and here a call of
// `code()`, which the program declares but nothing defines: interp/unmodelled-external.cpp
// has more), unless `--returns` scripts it or `--probes` makes it a probe.
// RUN: %ehir run --phase all %s --returns @_Z4codev=0 > %t.out 2> %t.err; test $? -eq 2
// RUN: FileCheck %s --check-prefix=TWO < %t.err
// RUN: %ehir run --phase all %s --returns @_Z4codev=125 > %t.out 2> %t.err; test $? -eq 125
// RUN: FileCheck %s --check-prefix=AGREE125 < %t.err
// RUN: %ehir run --phase all %s --no-such-flag > /dev/null 2>&1; test $? -eq 1
// RUN: %ehir run --help | tr "\n" " " | FileCheck %s --check-prefix=HELP
// RUN: %ehir run --phase all %s > %t.out 2> %t.err; test $? -eq 124
// RUN: FileCheck %s --check-prefix=UNMODELLED < %t.err
// RUN: %ehir run --phase all --probes %s > %t.out 2> %t.err; test $? -eq 2
// RUN: FileCheck %s --check-prefix=TWO < %t.err
// TWO: ehir run: verdict: phases structured, flat, itanium agree; the program exited with status 2
// AGREE125-NOT: diverge
// AGREE125: ehir run: verdict: phases structured, flat, itanium agree; the program exited with status 125
// HELP: Exit status: the program's own
// HELP-SAME: a call of an external function it does not model
// HELP-SAME: 125 when `--phase all` finds two phases that diverge
// UNMODELLED: phase-all-exit-status.cpp:[[# @LINE + 8]]:9: error: runtime error in @main: call of external function '_Z4codev', which the interpreter does not model
// UNMODELLED: ehir run: verdict: the program calls '_Z4codev', an external function the interpreter does not model, so it cannot run further (phase(s) structured, flat, itanium; exit status 124)

int code();

int main() {
  int c = 0;
  try {
    c = code();
  } catch (...) {
  }
  return c == 0 ? 2 : c;
}
