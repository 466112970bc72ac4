// catch (...) handles anything; throw; rethrows the same exception object.
#include <stdio.h>

struct E {
  int id;
  E(int i) : id(i) { printf("E(%d)\n", id); }
  E(const E& o) : id(o.id) { printf("E copy(%d)\n", id); }
  ~E() { printf("~E(%d)\n", id); }
};

void inner() {
  try {
    throw E(1);
  } catch (...) {
    printf("inner catch-all, rethrowing\n");
    throw;
  }
}

int main() {
  try {
    inner();
  } catch (const E& e) {
    printf("outer caught E(%d)\n", e.id);
  }
  printf("done\n");
  return 0;
}
