// Throwing a new exception from a handler destroys the one being handled.
#include <stdio.h>

struct First {
  First() { printf("First()\n"); }
  ~First() { printf("~First()\n"); }
};
struct Second {
  Second() { printf("Second()\n"); }
  ~Second() { printf("~Second()\n"); }
};

int main() {
  try {
    try {
      throw First();
    } catch (First&) {
      printf("translating\n");
      throw Second();
    }
  } catch (Second&) {
    printf("caught Second\n");
  }
  return 0;
}
