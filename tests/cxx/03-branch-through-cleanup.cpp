// The seed's branch-through-cleanup example: continue and break run the destructor.
#include <stdio.h>

class SomeClass {
public:
  SomeClass() { printf("SomeClass()\n"); }
  ~SomeClass() { printf("~SomeClass()\n"); }
  int get() { return ++counter; }
  static int counter;
};
int SomeClass::counter = 0;

int someFunc() {
  int i = 0;
  while (true) {
    SomeClass c;
    printf("i = %d\n", i);
    if (i == 3)
      continue;
    if (i == 7)
      break;
    i = c.get();
  }
  return i;
}

int main() {
  // i == 3 would loop forever in the seed; start the counter so 3 is skipped.
  SomeClass::counter = 3;
  printf("result %d\n", someFunc());
  return 0;
}
