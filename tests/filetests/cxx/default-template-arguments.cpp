// Clang spells a class template specialization without the trailing template arguments
// that equal their defaults (`Pair<char>` for `Pair<char, int>`) and a class without
// its inline namespaces (`lib::Guard` for `lib::v2::Guard`): such names find the class
// (one class, one layout, its members' own mangled names), here through locals,
// references, member calls and destructors run while an exception unwinds. Checked
// against g++ (the oracle) at every interpreter phase and natively.
// RUN: %ehir opt %s | FileCheck %s
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 6
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 6
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 6
// RUN: diff %t.expected %t.native
// RUN: %ehir opt %s | FileCheck %s --check-prefix=ONE
// CHECK-DAG: !rec_Pair3Cchar2C20int2C20Tag3E = !cir.record<struct "Pair<char, int, Tag>" {!s8i, !s32i}>
// CHECK-DAG: !rec_Pair3Cchar2C20long2C20Tag3E = !cir.record<struct "Pair<char, long, Tag>" {!s8i, !s64i}>
// CHECK-DAG: !rec_lib3A3Av23A3AGuard = !cir.record<struct "lib::v2::Guard" {!cir.ptr<!s8i>}>
// ONE-NOT: struct "Pair<char>"
// ONE-NOT: struct "lib::Guard"
// ONE: cir.func
#include <cstdio>

struct Tag {};

template <class First, class Second = int, class Third = Tag> struct Pair {
  First first;
  Second second;
  int sum() const { return (int)first + (int)second; }
  ~Pair() { std::printf("~Pair(%d)\n", sum()); }
};

namespace lib {
inline namespace v2 {
struct Guard {
  const char *name;
  ~Guard() { std::printf("~Guard(%s)\n", name); }
};
} // namespace v2
} // namespace lib

static int check(const Pair<char> &pair, lib::Guard &guard) {
  std::printf("check %s: %d\n", guard.name, pair.sum());
  if (pair.sum() > 100)
    throw pair.sum();
  return pair.sum();
}

static int run(char c, int n) {
  lib::Guard guard{"run"};
  Pair<char> pair{c, n};
  Pair<char, long> wide{c, 2L};
  return check(pair, guard) + wide.sum();
}

int main() {
  int total = 0;
  try {
    total += run(1, 2);
    total += run('a', 50);
  } catch (int e) {
    std::printf("caught %d\n", e);
  }
  return total;
}
