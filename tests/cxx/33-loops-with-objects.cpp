// for and do-while loops: an object per iteration, continue and break through it.
#include <stdio.h>

struct Iter {
  int i;
  Iter(int x) : i(x) { printf("Iter(%d)\n", i); }
  ~Iter() { printf("~Iter(%d)\n", i); }
};

int main() {
  for (int i = 0; i < 5; ++i) {
    Iter it(i);
    if (i % 2 == 1)
      continue;
    if (i == 4)
      break;
    printf("even %d\n", i);
  }
  int k = 0;
  do {
    Iter it(k * 10);
    ++k;
  } while (k < 3);
  int n = 3;
  while (n-- > 0) {
    Iter it(n + 100);
  }
  return 0;
}
