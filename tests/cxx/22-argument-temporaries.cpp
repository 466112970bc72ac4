// Temporaries created for arguments live until the end of the full expression and are
// destroyed in reverse order of construction (g++ evaluates arguments right to left).
#include <stdio.h>

struct Tmp {
  int v;
  Tmp(int x) : v(x) { printf("Tmp(%d)\n", v); }
  Tmp(const Tmp& o) : v(o.v) { printf("Tmp copy(%d)\n", v); }
  ~Tmp() { printf("~Tmp(%d)\n", v); }
};

int sum(const Tmp& a, const Tmp& b) {
  printf("sum\n");
  return a.v + b.v;
}

int byValue(Tmp a) {
  printf("byValue %d\n", a.v);
  return a.v;
}

int main() {
  int s = sum(Tmp(1), Tmp(2));
  printf("s = %d\n", s);
  int t = byValue(Tmp(3)) + byValue(Tmp(4));
  printf("t = %d\n", t);
  Tmp keep(5);
  byValue(keep);
  printf("end\n");
  return 0;
}
