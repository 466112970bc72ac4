// Unwinding through many recursive frames destroys one object per frame.
#include <stdio.h>

struct Frame {
  int depth;
  Frame(int d) : depth(d) { printf("enter %d\n", depth); }
  ~Frame() { printf("leave %d\n", depth); }
};

int descend(int depth) {
  Frame f(depth);
  if (depth == 5)
    throw depth;
  return descend(depth + 1) + 1;
}

int main() {
  try {
    descend(0);
  } catch (int d) {
    printf("bottomed out at %d\n", d);
  }
  return 0;
}
