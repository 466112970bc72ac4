// C++14 dynamic exception specification throw(): an escaping exception calls
// std::unexpected, i.e. the handler installed with std::set_unexpected.
#include <stdio.h>
#include <stdlib.h>
#include <exception>

void my_unexpected() {
  printf("unexpected handler\n");
  exit(4);
}

void promise_nothing() throw() {
  printf("about to break the promise\n");
  throw 5;
}

int main() {
  std::set_unexpected(my_unexpected);
  promise_nothing();
  printf("not reached\n");
  return 0;
}
