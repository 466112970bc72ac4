// switch with objects in case blocks; break and fall-through run their destructors.
#include <stdio.h>

struct S {
  int v;
  S(int x) : v(x) { printf("S(%d)\n", v); }
  ~S() { printf("~S(%d)\n", v); }
};

void classify(int n) {
  switch (n) {
  case 0: {
    S zero(0);
    printf("zero\n");
    break;
  }
  case 1:
    printf("one falls through\n");
  case 2: {
    S small(2);
    printf("small\n");
    break;
  }
  default: {
    S other(n);
    printf("other\n");
  }
  }
  printf("classified %d\n", n);
}

int main() {
  for (int i = 0; i < 4; ++i)
    classify(i);
  return 0;
}
