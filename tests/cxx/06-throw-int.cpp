// The simplest exception: throw an int, catch it by value.
#include <stdio.h>

void fail(int code) {
  printf("failing with %d\n", code);
  throw code;
}

int main() {
  try {
    fail(7);
    printf("not reached\n");
  } catch (int e) {
    printf("caught %d\n", e);
  }
  printf("after\n");
  return 0;
}
