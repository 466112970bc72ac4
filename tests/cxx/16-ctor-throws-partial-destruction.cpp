// When a constructor throws, the bases and members constructed so far are destroyed
// in reverse order; the object's own destructor does not run.
#include <stdio.h>

struct Part {
  int id;
  Part(int i) : id(i) { printf("Part(%d)\n", id); }
  ~Part() { printf("~Part(%d)\n", id); }
};

struct Base {
  Base() { printf("Base()\n"); }
  ~Base() { printf("~Base()\n"); }
};

struct Whole : Base {
  Part first;
  Part second;
  Part third;
  Whole(bool fail) : first(1), second(2), third(3) {
    printf("Whole body\n");
    if (fail)
      throw 99;
  }
  ~Whole() { printf("~Whole()\n"); }
};

int main() {
  try {
    Whole w(false);
    printf("constructed\n");
  } catch (int) {
    printf("not reached\n");
  }
  try {
    Whole w(true);
    printf("not reached\n");
  } catch (int e) {
    printf("caught %d\n", e);
  }
  return 0;
}
