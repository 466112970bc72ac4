// Objects with cleanups in both the try body and the handler, caught and rethrown
// through two levels, with a conditional return.
#include <stdio.h>

struct K {
  int v;
  K(int x) : v(x) { printf("K(%d)\n", v); }
  ~K() { printf("~K(%d)\n", v); }
};

int level(int n) {
  K k(n);
  try {
    if (n > 0)
      return level(n - 1) + 1;
    throw K(100);
  } catch (K& e) {
    K local(e.v + n);
    if (n == 1)
      return 50;
    throw;
  }
}

int main() {
  printf("result %d\n", level(2));
  return 0;
}
