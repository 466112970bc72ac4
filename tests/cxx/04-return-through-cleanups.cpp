// A return from deep inside nested scopes destroys every live object, innermost first.
#include <stdio.h>

struct Guard {
  const char* name;
  Guard(const char* n) : name(n) { printf("enter %s\n", name); }
  ~Guard() { printf("leave %s\n", name); }
};

int find(int limit) {
  Guard g("find");
  for (int i = 0; i < 10; ++i) {
    Guard loop("loop");
    if (i == limit) {
      Guard hit("hit");
      return i * 10;
    }
  }
  return -1;
}

int main() {
  printf("found %d\n", find(1));
  printf("found %d\n", find(20));
  return 0;
}
