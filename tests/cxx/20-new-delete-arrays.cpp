// new T[n] constructs n elements in order; delete[] destroys them in reverse.
#include <stdio.h>

struct Cell {
  static int next;
  int id;
  Cell() : id(next++) { printf("Cell(%d)\n", id); }
  ~Cell() { printf("~Cell(%d)\n", id); }
};
int Cell::next = 0;

int main() {
  int n = 3;
  Cell* cells = new Cell[n];
  printf("allocated %d cells\n", n);
  delete[] cells;
  int* ints = new int[4];
  for (int i = 0; i < 4; ++i)
    ints[i] = i * i;
  printf("ints: %d %d %d %d\n", ints[0], ints[1], ints[2], ints[3]);
  delete[] ints;
  return 0;
}
