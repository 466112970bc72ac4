// Arrays of objects: construction in order, destruction in reverse, and partial
// destruction of the constructed prefix when a constructor throws.
#include <cstdio>

struct A {
  int id;
  A();
  ~A();
};

int counter = 0;
int failAt = -1;

A::A() {
  id = counter++;
  if (id == failAt) {
    printf("ctor %d throws\n", id);
    throw id;
  }
  printf("ctor %d\n", id);
}
A::~A() { printf("dtor %d\n", id); }

void make() {
  A arr[4];
  printf("made\n");
}

void tryMake() {
  try {
    make();
  } catch (int i) {
    printf("caught %d\n", i);
  }
}

int main() {
  make();
  counter = 0;
  failAt = 2;
  tryMake();
  counter = 0;
  failAt = 0;
  tryMake();
  return 0;
}
