// delete runs the destructor, then frees; members and bases are destroyed too.
#include <stdio.h>

struct Inner {
  Inner() { printf("Inner()\n"); }
  ~Inner() { printf("~Inner()\n"); }
};
struct Base {
  Base() { printf("Base()\n"); }
  ~Base() { printf("~Base()\n"); }
};
struct Outer : Base {
  Inner in;
  Outer() { printf("Outer()\n"); }
  ~Outer() { printf("~Outer()\n"); }
};

int main() {
  Outer* p = new Outer;
  printf("using object\n");
  delete p;
  printf("deleted\n");
  return 0;
}
