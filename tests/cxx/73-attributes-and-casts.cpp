// __attribute__((noinline|always_inline)) is accepted; static_cast and C-style casts
// convert between arithmetic types and up/down a class hierarchy.
#include <stdio.h>

struct Base {
  int b;
  Base(int x) : b(x) {}
};
struct Derived : Base {
  int d;
  Derived() : Base(1), d(2) {}
};

__attribute__((noinline)) int twice(int x) { return 2 * x; }
static inline __attribute__((always_inline)) int thrice(int x) { return 3 * x; }
int later(int x) __attribute__((noinline));
int later(int x) { return x + 1; }

int main() {
  printf("%d %d %d\n", twice(4), thrice(5), later(6));
  double d = 7.9;
  int i = static_cast<int>(d);
  unsigned u = (unsigned)-1;
  unsigned short us = static_cast<unsigned short>(70000);
  long l = static_cast<long>(i) * 1000000;
  printf("%d %u %u %ld\n", i, u, us, l);
  Derived obj;
  Base* pb = static_cast<Base*>(&obj);
  Derived* pd = static_cast<Derived*>(pb);
  Base& rb = obj;
  Derived& rd = static_cast<Derived&>(rb);
  printf("%d %d %d\n", pb->b, pd->d, rd.d);
  void* pv = &obj;
  Derived* back = static_cast<Derived*>(pv);
  printf("%d\n", back->d);
  char c = static_cast<char>(65 + 1);
  printf("%c %d\n", c, static_cast<int>(c));
  float f = static_cast<float>(1) / 4;
  printf("%.3f\n", f);
  return 0;
}
