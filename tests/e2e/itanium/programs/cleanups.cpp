// Objects with destructors in loops: continue, return and an exception leave the body
// through the cleanup; the exception is caught by value in main. A do-while loop runs
// its body's cleanup on every iteration.
#include <cstdio>

struct Obj {
  int id;
  Obj(int i);
  ~Obj();
};
Obj::Obj(int i) : id(i) { printf("ctor %d\n", i); }
Obj::~Obj() { printf("dtor %d\n", id); }

int throwAt = -1;

void mayThrow(int i) {
  printf("mayThrow %d\n", i);
  if (i == throwAt)
    throw i * 10;
}

int loop(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    Obj o(i);
    if (i == 1)
      continue;
    if (i == 4)
      return sum;
    mayThrow(i);
    sum += i;
  }
  return sum;
}

int main() {
  printf("loop(3) = %d\n", loop(3));
  printf("loop(6) = %d\n", loop(6));
  throwAt = 3;
  try {
    printf("loop(6) = %d\n", loop(6));
  } catch (int e) {
    printf("caught %d\n", e);
  }
  int k = 0;
  do {
    Obj o(100 + k);
    ++k;
  } while (k < 2);
  return 0;
}
