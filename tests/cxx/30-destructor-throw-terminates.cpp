// Destructors are noexcept: an exception leaving one calls std::terminate.
#include <stdio.h>
#include <stdlib.h>
#include <exception>

struct Bad {
  ~Bad() {
    printf("~Bad throws\n");
    throw 1;
  }
};

void handler() {
  printf("terminate\n");
  exit(0);
}

int main() {
  std::set_terminate(handler);
  try {
    Bad b;
    printf("leaving scope\n");
  } catch (...) {
    printf("not reached\n");
  }
  return 0;
}
