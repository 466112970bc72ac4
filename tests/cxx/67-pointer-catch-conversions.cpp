// Pointer handlers: derived-to-base pointer conversion and void* catch.
#include <stdio.h>

struct Animal {
  int legs;
  Animal(int l) : legs(l) {}
};
struct Dog : Animal {
  Dog() : Animal(4) {}
};

int main() {
  Dog rex;
  try {
    throw &rex;
  } catch (Animal* a) {
    printf("animal with %d legs\n", a->legs);
  }
  int value = 3;
  try {
    throw &value;
  } catch (void* p) {
    printf("void* handler, value %d\n", *(int*)p);
  }
  try {
    throw (Dog*)nullptr;
  } catch (Dog* d) {
    printf("null dog: %d\n", d == nullptr);
  }
  return 0;
}
