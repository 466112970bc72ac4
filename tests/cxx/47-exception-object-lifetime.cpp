// The exception object lives until the last handler for it exits (also across throw;).
#include <stdio.h>

struct Ex {
  int id;
  Ex(int i) : id(i) { printf("Ex(%d)\n", id); }
  ~Ex() { printf("~Ex(%d)\n", id); }
};

void rethrower() {
  try {
    throw Ex(1);
  } catch (Ex& e) {
    printf("first handler %d\n", e.id);
    e.id = 2;
    throw;
  }
}

int main() {
  try {
    rethrower();
  } catch (Ex& e) {
    printf("second handler %d\n", e.id);
  }
  printf("after handlers\n");
  return 0;
}
