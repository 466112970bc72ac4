// Pointer arithmetic, arrays, and pointer comparisons.
#include <stdio.h>

int main() {
  int arr[5] = {10, 20, 30, 40, 50};
  int* p = arr;
  int* end = arr + 5;
  int total = 0;
  while (p != end)
    total += *p++;
  printf("total %d\n", total);
  int* q = &arr[3];
  printf("distance %d, value %d, prev %d\n", (int)(q - arr), *q, *(q - 1));
  q -= 2;
  printf("after -= 2: %d\n", *q);
  int grid[2][3];
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      grid[r][c] = r * 3 + c;
  printf("grid[1][2] = %d\n", grid[1][2]);
  char name[] = "cir";
  printf("%s has %d bytes\n", name, (int)sizeof(name));
  const char* s = name;
  int len = 0;
  while (*s++)
    ++len;
  printf("len %d\n", len);
  return 0;
}
