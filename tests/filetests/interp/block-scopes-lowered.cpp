// The lowered phases end block-scope variables where their scope ends and start them
// again when the scope is entered again (a loop body), without reporting valid uses:
// pointers used inside their scope, a variable re-entered every iteration, a scope
// left by `break` and by an exception. The use after the last scope is reported at
// every phase (interp/use-after-scope-phase-all.cir has the .cir form).
// RUN: %ehir run --phase all %s > %t.out 2> %t.err; test $? -eq 45
// RUN: FileCheck %s --check-prefix=OK < %t.err
// RUN: not %ehir run --phase all --entry _Z8danglingv %s 2>&1 | FileCheck %s --check-prefix=UB
// OK: ehir run: verdict: phases structured, flat, itanium agree; the program exited with status 45
// UB: use of &x after its scope ended [phase structured]
// UB: use of &x after its scope ended [phase flat]
// UB: use of &x after its scope ended [phase itanium]
// UB: verdict: the program has undefined behaviour

void may_throw(int i) {
  if (i == 3)
    throw i;
}

int dangling() {
  int *p;
  {
    int x = 1;
    p = &x;
  }
  return *p;
}

int main() {
  int sum = 0;
  for (int i = 0; i < 10; i++) {
    int x = i;
    int *p = &x;
    {
      int y = *p;
      sum += y;
    }
    if (i == 8)
      break;
    try {
      int z = i;
      may_throw(z);
    } catch (int e) {
      int w = e;
      sum += w - 3;
    }
  }
  return sum + 9;
}
