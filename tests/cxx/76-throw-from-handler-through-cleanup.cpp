// A handler that throws a new exception with a local object alive: the local is
// destroyed first, then the caught exception (its handler is left), then the outer
// handler catches the new one in the same function.
#include <stdio.h>

struct First {
  ~First() { printf("~First\n"); }
};
struct Second {
  int code;
  Second(int c) : code(c) {}
  ~Second() { printf("~Second %d\n", code); }
};
struct Guard {
  ~Guard() { printf("~Guard\n"); }
};

int main() {
  try {
    try {
      throw First();
    } catch (...) {
      Guard g;
      printf("translating\n");
      throw Second(1034);
    }
  } catch (Second &s) {
    printf("caught Second %d\n", s.code);
  }
  printf("done\n");
  return 0;
}
