// A function-try-block on an ordinary function handles exceptions from its body.
#include <stdio.h>

struct Res {
  Res() { printf("acquire\n"); }
  ~Res() { printf("release\n"); }
};

int compute(int x) try {
  Res r;
  if (x > 2)
    throw x;
  return x * 2;
} catch (int e) {
  printf("compute failed with %d\n", e);
  return -1;
}

int main() {
  printf("%d\n", compute(1));
  printf("%d\n", compute(5));
  return 0;
}
