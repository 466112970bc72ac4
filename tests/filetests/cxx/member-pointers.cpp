// Pointers to members on the Itanium ABI. To data: a 64-bit offset (-1 for null);
// `.*` and `->*` reach the member that many bytes into the object. To member functions:
// `{ptr, adj}`, `ptr` the function's address or, for a virtual one, 1 + its vtable slot's
// offset, so a call through it dispatches on the object; a global one is a constant.
// Thrown, a pointer to member is caught by its exact type (a handler may add const to the
// member's type) through its `__pointer_to_member_type_info`, which names the class.
// Checked against g++ (the oracle) at every interpreter phase and natively.
// RUN: %ehir opt %s | FileCheck %s
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 6
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 6
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 6
// RUN: diff %t.expected %t.native
// CHECK-DAG: cir.typeinfo @_ZTIM5Pointi : !s64i
// CHECK-DAG: cir.typeinfo @_ZTIM5PointKd : !s64i
// CHECK-DAG: cir.typeinfo @_ZTIM5ShapeKFivE : !cir.array<!cir.ptr<!void> x 2>
// CHECK-DAG: cir.global external @describe = #cir.const_array<[#cir.ptr<17 : i64> : !cir.ptr<!void>, #cir.ptr<null> : !cir.ptr<!void>]>
// CHECK-DAG: cir.global external @scale = #cir.const_array<[#cir.global_view<@_ZN5Shape5scaleEi> : !cir.ptr<!void>, #cir.ptr<null> : !cir.ptr<!void>]>
#include <cstdio>

struct Point {
  int x, y;
  double weight;
};

struct Other {
  int x;
};

struct Shape {
  int size = 2;
  virtual ~Shape() {}
  virtual int area() const { return size * size; }
  void scale(int by) { size *= by; }
};

struct Square : Shape {
  int area() const override { return size * size + 100; }
};

int (Shape::*describe)() const = &Shape::area;
void (Shape::*scale)(int) = &Shape::scale;

static int pick(bool second, int Point::*&out) {
  out = second ? &Point::y : &Point::x;
  return second;
}

static void fail(int which) {
  if (which == 0)
    throw &Point::y;
  if (which == 1)
    throw &Point::weight;
  if (which == 2)
    throw &Shape::area;
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

  Square square;
  Shape *shape = &square;
  (square.*scale)(3);
  std::printf("virtual through a pointer: %d, %d\n", (shape->*describe)(), (Shape().*describe)());
  void (Shape::*none)(int) = nullptr;
  std::printf("none set %d, scale set %d\n", none ? 1 : 0, scale ? 1 : 0);

  int caught = 0;
  for (int i = 0; i < 4; ++i) {
    try {
      fail(i);
    } catch (int Point::*m) {
      std::printf("int Point::* %d\n", p.*m);
      caught += 1;
    } catch (const double Point::*m) {
      std::printf("const double Point::* %.1f\n", p.*m);
      caught += 2;
    } catch (int (Shape::*m)() const) {
      std::printf("int (Shape::*)() const %d\n", (square.*m)());
      caught += 0;
    } catch (...) {
      std::printf("other\n");
      caught += 3;
    }
  }
  return caught;
}
