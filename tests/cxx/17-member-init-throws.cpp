// A member initializer throws: only the earlier members (and bases) are destroyed.
#include <stdio.h>

struct M {
  int id;
  M(int i) : id(i) {
    printf("M(%d)\n", id);
    if (i == 2)
      throw i;
  }
  ~M() { printf("~M(%d)\n", id); }
};

struct Holder {
  M a;
  M b;
  M c;
  Holder() : a(1), b(2), c(3) { printf("Holder body (not reached)\n"); }
  ~Holder() { printf("~Holder (not reached)\n"); }
};

int main() {
  try {
    Holder h;
  } catch (int e) {
    printf("caught %d\n", e);
  }
  return 0;
}
