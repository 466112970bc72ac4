// Arrays of objects with list initializers and default-constructed tails.
#include <stdio.h>

struct P {
  int v;
  P() : v(-1) { printf("P()\n"); }
  P(int x) : v(x) { printf("P(%d)\n", v); }
  ~P() { printf("~P(%d)\n", v); }
};

int main() {
  P arr[4] = {P(1), P(2)};
  for (int i = 0; i < 4; ++i)
    printf("arr[%d] = %d\n", i, arr[i].v);
  return 0;
}
