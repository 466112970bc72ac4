// return from inside a catch handler destroys the handler's locals, ends the catch
// (destroying the exception) and the function's locals.
#include <stdio.h>

struct L {
  const char* n;
  L(const char* s) : n(s) { printf("L(%s)\n", n); }
  ~L() { printf("~L(%s)\n", n); }
};
struct X {
  X() { printf("X()\n"); }
  ~X() { printf("~X()\n"); }
};

int handle() {
  L fn("function");
  try {
    L body("try body");
    throw X();
  } catch (X&) {
    L h("handler");
    return 7;
  }
  return 0;
}

int main() {
  printf("returned %d\n", handle());
  return 0;
}
