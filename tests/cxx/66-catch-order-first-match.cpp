// Handlers are tried in order: the first match wins even if a later one is better.
#include <stdio.h>

struct Base {
  int b;
  Base() : b(1) {}
};
struct Derived : Base {
  int d;
  Derived() : d(2) {}
};

int main() {
  try {
    throw Derived();
  } catch (Base& b) {
    printf("Base handler first (b=%d)\n", b.b);
  } catch (Derived& d) {
    printf("Derived handler (unreachable, d=%d)\n", d.d);
  }
  try {
    throw 1;
  } catch (long) {
    printf("long (no conversions in handlers)\n");
  } catch (unsigned) {
    printf("unsigned (no)\n");
  } catch (int) {
    printf("int\n");
  }
  return 0;
}
