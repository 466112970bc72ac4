// throw; inside a function called from a handler rethrows the handled exception.
#include <stdio.h>

struct Oops {
  int code;
  Oops(int c) : code(c) { printf("Oops(%d)\n", code); }
  ~Oops() { printf("~Oops(%d)\n", code); }
};

void log_and_rethrow() {
  printf("logging\n");
  throw;
}

int main() {
  try {
    try {
      throw Oops(11);
    } catch (Oops&) {
      log_and_rethrow();
    }
  } catch (Oops& o) {
    printf("outer got %d\n", o.code);
  }
  return 0;
}
