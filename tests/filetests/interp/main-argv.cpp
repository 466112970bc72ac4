// `main(int argc, char **argv)` starts as from a C runtime: argc is 1, argv[0] is the
// program's name and argv[1] is null.
// RUN: %ehir run --phase all %s | FileCheck %s
// CHECK: argc 1
// CHECK-NEXT: argv[0] ehir-program
// CHECK-NEXT: argv[1] is null
#include <stdio.h>

int main(int argc, char **argv) {
  printf("argc %d\n", argc);
  printf("argv[0] %s\n", argv[0]);
  if (argv[1] == 0)
    printf("argv[1] is null\n");
  return 0;
}
