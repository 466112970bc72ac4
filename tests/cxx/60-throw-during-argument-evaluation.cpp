// An exception while evaluating arguments destroys the temporaries already made.
#include <stdio.h>

struct Arg {
  int v;
  Arg(int x) : v(x) {
    if (x == 0)
      throw "zero";
    printf("Arg(%d)\n", v);
  }
  ~Arg() { printf("~Arg(%d)\n", v); }
};

int combine(const Arg& a, const Arg& b, const Arg& c) { return a.v + b.v + c.v; }

int main() {
  try {
    combine(Arg(1), Arg(0), Arg(3));
  } catch (const char* what) {
    printf("caught %s\n", what);
  }
  printf("%d\n", combine(Arg(1), Arg(2), Arg(3)));
  return 0;
}
