// A class with an array member of class type: elements built in order, destroyed in
// reverse.
#include <stdio.h>

struct Slot {
  static int n;
  int id;
  Slot() : id(n++) { printf("Slot(%d)\n", id); }
  ~Slot() { printf("~Slot(%d)\n", id); }
};
int Slot::n = 0;

struct Rack {
  Slot slots[3];
  Rack() { printf("Rack()\n"); }
  ~Rack() { printf("~Rack()\n"); }
};

int main() {
  Rack r;
  printf("rack ready\n");
  return 0;
}
