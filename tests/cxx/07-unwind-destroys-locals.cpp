// Unwinding destroys the locals of every frame between the throw and the handler.
#include <stdio.h>

struct Obj {
  int id;
  Obj(int i) : id(i) { printf("Obj(%d)\n", id); }
  ~Obj() { printf("~Obj(%d)\n", id); }
};

void level3() {
  Obj c(3);
  throw 3;
}
void level2() {
  Obj b(2);
  level3();
  printf("not reached 2\n");
}
void level1() {
  Obj a(1);
  level2();
  printf("not reached 1\n");
}

int main() {
  try {
    level1();
  } catch (int n) {
    printf("caught %d\n", n);
  }
  return 0;
}
