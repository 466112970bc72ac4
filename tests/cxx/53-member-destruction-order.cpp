// Members are destroyed in reverse declaration order, then bases in reverse order.
#include <stdio.h>

struct Named {
  const char* n;
  Named(const char* s) : n(s) { printf("ctor %s\n", n); }
  ~Named() { printf("dtor %s\n", n); }
};

struct B1 {
  Named n;
  B1() : n("B1::n") { printf("B1()\n"); }
  ~B1() { printf("~B1()\n"); }
};
struct B2 {
  Named n;
  B2() : n("B2::n") { printf("B2()\n"); }
  ~B2() { printf("~B2()\n"); }
};

struct D : B1, B2 {
  Named x;
  Named y;
  Named z;
  D() : z("z"), y("y"), x("x") { printf("D()\n"); }
  ~D() { printf("~D()\n"); }
};

int main() {
  D d;
  printf("---\n");
  return 0;
}
