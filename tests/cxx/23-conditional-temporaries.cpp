// A temporary created in one arm of ?: is destroyed only if that arm ran.
#include <stdio.h>

struct T {
  int v;
  T(int x) : v(x) { printf("T(%d)\n", v); }
  ~T() { printf("~T(%d)\n", v); }
  int get() const { return v; }
};

int pick(bool c) {
  int r = c ? T(1).get() : T(2).get() + 10;
  printf("picked %d\n", r);
  return r;
}

T make(bool c) { return c ? T(3) : T(4); }

int main() {
  pick(true);
  pick(false);
  T a = make(true);
  T b = make(false);
  printf("a=%d b=%d\n", a.get(), b.get());
  return 0;
}
