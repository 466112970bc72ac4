// ?: choosing between class prvalues constructs only the chosen one, in place.
#include <stdio.h>

struct Choice {
  int v;
  Choice(int x) : v(x) { printf("Choice(%d)\n", v); }
  Choice(const Choice& o) : v(o.v) { printf("copy Choice(%d)\n", v); }
  ~Choice() { printf("~Choice(%d)\n", v); }
};

int use(const Choice& c) { return c.v; }

int main() {
  for (int i = 0; i < 2; ++i) {
    Choice c = i ? Choice(1) : Choice(2);
    printf("chose %d\n", c.v);
  }
  printf("use %d\n", use(true ? Choice(3) : Choice(4)));
  Choice keep(5);
  Choice other = false ? Choice(6) : keep;
  printf("other %d\n", other.v);
  return 0;
}
