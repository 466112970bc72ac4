// throw(A): A passes through the specification; anything else is unexpected.
#include <stdio.h>
#include <stdlib.h>
#include <exception>

struct A {
  int v;
  A(int x) : v(x) {}
};

void only_a(int which) throw(A) {
  if (which == 0)
    throw A(10);
  throw 20;
}

void my_unexpected() {
  printf("unexpected: not an A\n");
  exit(0);
}

int main() {
  std::set_unexpected(my_unexpected);
  try {
    only_a(0);
  } catch (A& a) {
    printf("caught A %d\n", a.v);
  }
  try {
    only_a(1);
  } catch (int i) {
    printf("not reached %d\n", i);
  }
  return 0;
}
