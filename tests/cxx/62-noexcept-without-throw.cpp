// noexcept functions that do not throw behave normally; a noexcept function can still
// handle exceptions inside itself.
#include <stdio.h>

int quiet(int x) noexcept { return x + 1; }

int contained(int x) noexcept {
  try {
    if (x > 0)
      throw x;
  } catch (int v) {
    printf("contained %d\n", v);
    return -v;
  }
  return 0;
}

int main() {
  printf("%d\n", quiet(1));
  printf("%d\n", contained(5));
  printf("%d\n", contained(0));
  return 0;
}
