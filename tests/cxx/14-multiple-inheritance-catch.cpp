// With multiple inheritance, a handler for the second base gets the adjusted address.
#include <stdio.h>

struct A {
  int a;
  A() : a(1) { printf("A()\n"); }
  ~A() { printf("~A()\n"); }
};
struct B {
  int b;
  B() : b(2) { printf("B()\n"); }
  ~B() { printf("~B()\n"); }
};
struct C : A, B {
  int c;
  C() : c(3) { printf("C()\n"); }
  ~C() { printf("~C()\n"); }
};

int main() {
  try {
    throw C();
  } catch (B& b) {
    printf("caught B with b=%d\n", b.b);
  }
  try {
    throw C();
  } catch (A& a) {
    printf("caught A with a=%d\n", a.a);
  }
  C* pc = new C();
  B* pb = pc;
  printf("B part holds %d\n", pb->b);
  delete pc;
  return 0;
}
