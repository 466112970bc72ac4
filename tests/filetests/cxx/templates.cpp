// Templates: Clang instantiates them; ehir generates the instantiations that are used
// (function templates, class templates with type and non-type arguments, a scope guard
// that runs a function when an exception leaves its scope), against g++ (the oracle) at
// every interpreter phase and natively.
// RUN: g++ -std=c++14 -w -o %t.gxx %s && %t.gxx > %t.expected
// RUN: %ehir --std=c++14 run --phase all %s > %t.run
// RUN: diff %t.expected %t.run
// RUN: %ehir --std=c++14 build %s -o %t.exe && %t.exe > %t.native
// RUN: diff %t.expected %t.native
#include <cstdio>

template <typename T> T twice(T x) { return x + x; }

template <typename F> struct ScopeGuard {
  F fn;
  ScopeGuard(F f) : fn(f) {}
  ~ScopeGuard() { fn(); }
};

template <typename T, int N> struct Ring {
  T items[N];
  int size() const { return N; }
  T& at(int i) { return items[i % N]; }
};

void bye() { puts("guard ran"); }
void boom() { throw 5; }

template <typename F> void guarded(F f) {
  ScopeGuard<void (*)()> guard(bye);
  f();
}

int main() {
  printf("%d %g\n", twice(21), twice(1.5));
  Ring<int, 3> ring{{1, 2, 3}};
  ring.at(4) = 20;
  printf("%d %d %d\n", ring.size(), ring.at(1), ring.items[2]);
  try {
    guarded(boom);
  } catch (int e) {
    printf("caught %d\n", e);
  }
  return 0;
}
