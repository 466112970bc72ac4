// A derived exception is caught by a handler for its public base class.
#include <stdio.h>

class Base {
public:
  int code;
  Base(int c) : code(c) { printf("Base(%d)\n", code); }
  ~Base() { printf("~Base(%d)\n", code); }
};

class Derived : public Base {
public:
  int extra;
  Derived(int c, int x) : Base(c), extra(x) { printf("Derived(%d, %d)\n", c, x); }
  ~Derived() { printf("~Derived(%d)\n", extra); }
};

void thrower() { throw Derived(1, 2); }

int main() {
  try {
    thrower();
  } catch (const Base& b) {
    printf("caught as Base, code %d\n", b.code);
  }
  try {
    thrower();
  } catch (Derived& d) {
    printf("caught as Derived, extra %d\n", d.extra);
  } catch (Base& b) {
    printf("wrong handler\n");
  }
  return 0;
}
