// Zero- and constant-initialized globals, pointers and arrays.
#include <stdio.h>

int counter;
int limit = 3;
const char* greeting = "hello";
int table[4] = {1, 2, 3};
double ratio = 0.5;
static int hidden = 7;
int* where = &limit;

int main() {
  counter += limit;
  *where = 9;
  printf("%s %d %d %g %d\n", greeting, counter, limit, ratio, hidden);
  for (int i = 0; i < 4; ++i)
    printf("table[%d] = %d\n", i, table[i]);
  return 0;
}
