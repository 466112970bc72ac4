// new T[n] where the k-th constructor throws: constructed elements are destroyed in
// reverse, storage is released, the exception propagates.
#include <stdio.h>

struct Unit {
  static int made;
  int id;
  Unit() : id(made) {
    if (made == 2)
      throw made;
    ++made;
    printf("Unit(%d)\n", id);
  }
  ~Unit() { printf("~Unit(%d)\n", id); }
};
int Unit::made = 0;

int main() {
  try {
    Unit* u = new Unit[4];
    delete[] u;
  } catch (int k) {
    printf("failed at %d\n", k);
  }
  return 0;
}
