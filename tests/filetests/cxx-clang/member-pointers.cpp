// Pointers to data members on the Itanium ABI: a 64-bit offset (-1 for null), `.*` and
// `->*` reach the member that many bytes into the object; thrown, one is caught by its
// exact type through its `__pointer_to_member_type_info` (which names the class), not
// by a pointer to a member of another type or class. Checked against g++ (the oracle)
// at every interpreter phase and natively.
// RUN: %ehir --frontend clang opt %s | FileCheck %s
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 6
// RUN: %ehir --frontend clang run --phase all %s > %t.run; test $? -eq 6
// RUN: diff %t.expected %t.run
// RUN: %ehir --frontend clang build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 6
// RUN: diff %t.expected %t.native
// CHECK-DAG: cir.typeinfo @_ZTIM5Pointi : !s64i
// CHECK-DAG: cir.typeinfo @_ZTIM5PointKd : !s64i
#include <cstdio>

struct Point {
  int x, y;
  double weight;
};

struct Other {
  int x;
};

static int pick(bool second, int Point::*&out) {
  out = second ? &Point::y : &Point::x;
  return second;
}

static void fail(int which) {
  if (which == 0)
    throw &Point::y;
  if (which == 1)
    throw &Point::weight;
  throw &Other::x;
}

int main() {
  Point p = {3, 4, 0.5};
  int Point::*member = nullptr;
  std::printf("null %d\n", member == nullptr);
  pick(true, member);
  Point *q = &p;
  std::printf("p.*member %d, q->*member %d\n", p.*member, q->*member);
  q->*member = 40;
  std::printf("y %d, set %d\n", p.y, member ? 1 : 0);
  int caught = 0;
  for (int i = 0; i < 3; ++i) {
    try {
      fail(i);
    } catch (int Point::*m) {
      std::printf("int Point::* %d\n", p.*m);
      caught += 1;
    } catch (const double Point::*m) {
      std::printf("const double Point::* %.1f\n", p.*m);
      caught += 2;
    } catch (...) {
      std::printf("other\n");
      caught += 3;
    }
  }
  return caught;
}
