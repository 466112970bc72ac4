// Function pointers: stored, passed, called; set_terminate returns the old handler.
#include <stdio.h>
#include <stdlib.h>
#include <exception>

typedef int (*binop)(int, int);

int add(int a, int b) { return a + b; }
int mul(int a, int b) { return a * b; }

int apply(binop f, int a, int b) { return f(a, b); }

void first_handler() {
  printf("first handler\n");
  exit(0);
}
void second_handler() {
  printf("second handler (not used)\n");
  exit(1);
}

int main() {
  binop ops[2] = {add, mul};
  for (int i = 0; i < 2; ++i)
    printf("%d\n", apply(ops[i], 6, 7));
  int (*fp)(int, int) = &mul;
  printf("%d\n", (*fp)(3, 3));
  std::set_terminate(second_handler);
  std::terminate_handler old = std::set_terminate(first_handler);
  printf("old handler is second: %d\n", old == second_handler);
  std::terminate();
}
