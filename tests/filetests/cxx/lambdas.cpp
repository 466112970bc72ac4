// Lambdas: closure objects with captures by value and by reference, called directly,
// through templates, as a deferred action run when an exception leaves its scope; against
// g++ (the oracle) at every interpreter phase and natively.
// RUN: g++ -std=c++14 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 11
// RUN: %ehir --std=c++14 run --phase all %s > %t.run; test $? -eq 11
// RUN: diff %t.expected %t.run
// RUN: %ehir --std=c++14 build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 11
// RUN: diff %t.expected %t.native
#include <cstdio>
struct Guard { const char* n; Guard(const char* s) : n(s) {} ~Guard() { printf("~%s\n", n); } };
template <typename F> struct Defer { F f; ~Defer() { f(); } };
template <typename F> Defer<F> defer(F f) { return Defer<F>{f}; }
template <typename F> int apply(F f, int x) { Guard g("apply"); return f(x); }
int main() {
  int total = 0;
  int base = 10;
  auto add = [&total, base](int x) { total += x + base; return total; };
  printf("%d\n", apply(add, 1));
  printf("%d\n", apply([](int x) { return x * 3; }, 7));
  try {
    auto d = defer([&] { printf("deferred, total=%d\n", total); });
    apply([](int x) -> int { throw x; }, 4);
  } catch (int e) {
    printf("caught %d\n", e);
  }
  return total;
}
