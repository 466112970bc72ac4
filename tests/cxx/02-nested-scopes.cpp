// Objects in nested blocks die at the end of their block.
#include <stdio.h>

struct T {
  int id;
  T(int i) : id(i) { printf("T(%d)\n", id); }
  ~T() { printf("~T(%d)\n", id); }
};

int main() {
  T outer(1);
  {
    T inner(2);
    {
      T innermost(3);
      printf("innermost block\n");
    }
    T after(4);
    printf("inner block\n");
  }
  printf("outer block\n");
  return 0;
}
