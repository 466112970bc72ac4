// An exception escaping a noexcept function calls std::terminate (here a handler
// installed with std::set_terminate that exits cleanly).
#include <stdio.h>
#include <stdlib.h>
#include <exception>

struct Local {
  ~Local() { printf("~Local\n"); }
};

void on_terminate() {
  printf("terminate handler called\n");
  exit(3);
}

void safe() noexcept { printf("safe is fine\n"); }

void risky() noexcept {
  Local l;
  throw 1;
}

int main() {
  std::set_terminate(on_terminate);
  safe();
  try {
    risky();
  } catch (...) {
    printf("not reached\n");
  }
  return 0;
}
