// try/catch inside a loop, with continue and break inside handlers.
#include <stdio.h>

struct Step {
  int i;
  Step(int x) : i(x) { printf("Step(%d)\n", i); }
  ~Step() { printf("~Step(%d)\n", i); }
};

void check(int i) {
  if (i % 2 == 1)
    throw i;
}

int main() {
  for (int i = 0; i < 6; ++i) {
    Step s(i);
    try {
      check(i);
      printf("%d is even\n", i);
    } catch (int odd) {
      if (odd == 5) {
        printf("stop at %d\n", odd);
        break;
      }
      printf("%d is odd\n", odd);
      continue;
    }
    printf("end of iteration %d\n", i);
  }
  return 0;
}
