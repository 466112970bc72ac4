// An exception nothing catches calls std::terminate before any unwinding: the
// destructor of main's local does not run.
#include <stdio.h>
#include <stdlib.h>
#include <exception>

struct Local {
  ~Local() { printf("~Local (not printed)\n"); }
};

void last_words() {
  printf("terminate: uncaught exception\n");
  exit(1);
}

int main() {
  std::set_terminate(last_words);
  Local l;
  printf("throwing\n");
  throw 3.5;
}
