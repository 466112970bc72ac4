// An array element's constructor throws: the elements built so far are destroyed in
// reverse order.
#include <stdio.h>

int built = 0;

struct Elem {
  int id;
  Elem() : id(built) {
    if (built == 3) {
      printf("Elem(%d) throws\n", id);
      throw built;
    }
    printf("Elem(%d)\n", id);
    ++built;
  }
  ~Elem() { printf("~Elem(%d)\n", id); }
};

int main() {
  try {
    Elem arr[5];
    printf("not reached\n");
  } catch (int n) {
    printf("caught after %d elements\n", n);
  }
  built = 0;
  {
    Elem ok[2];
    printf("two elements\n");
  }
  return 0;
}
