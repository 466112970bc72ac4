// An exception thrown by operator= leaves the target partially updated and unwinds.
#include <stdio.h>

struct Guarded {
  int v;
  Guarded(int x) : v(x) { printf("Guarded(%d)\n", v); }
  ~Guarded() { printf("~Guarded(%d)\n", v); }
  Guarded& operator=(const Guarded& o) {
    if (o.v < 0)
      throw o.v;
    v = o.v;
    printf("assigned %d\n", v);
    return *this;
  }
};

int main() {
  Guarded a(1);
  a = Guarded(2);
  try {
    a = Guarded(-3);
  } catch (int e) {
    printf("assignment failed with %d, a is %d\n", e, a.v);
  }
  return 0;
}
