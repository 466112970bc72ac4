// static functions (internal linkage) and constant-initialized static locals.
#include <stdio.h>

static int bump() {
  static int calls = 0;
  return ++calls;
}

static const char* label(int n) {
  static const char* names[3] = {"zero", "one", "two"};
  return n < 3 ? names[n] : "many";
}

int main() {
  for (int i = 0; i < 4; ++i)
    printf("%d %s\n", bump(), label(i));
  return 0;
}
