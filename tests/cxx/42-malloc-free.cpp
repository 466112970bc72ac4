// malloc and free of plain data, with EXIT_SUCCESS from <stdlib.h>.
#include <stdio.h>
#include <stdlib.h>

int main() {
  int* data = (int*)malloc(5 * sizeof(int));
  for (int i = 0; i < 5; ++i)
    data[i] = i + 1;
  int sum = 0;
  for (int i = 0; i < 5; ++i)
    sum += data[i];
  printf("sum %d\n", sum);
  free(data);
  return EXIT_SUCCESS;
}
