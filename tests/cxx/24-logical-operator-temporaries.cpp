// && and || evaluate their right operand conditionally; its temporaries are destroyed
// only when it was evaluated.
#include <stdio.h>

struct Probe {
  int v;
  Probe(int x) : v(x) { printf("Probe(%d)\n", v); }
  ~Probe() { printf("~Probe(%d)\n", v); }
  bool ok() const { return v > 0; }
};

int main() {
  bool a = Probe(1).ok() && Probe(2).ok();
  printf("a = %d\n", a);
  bool b = Probe(0).ok() && Probe(3).ok();
  printf("b = %d\n", b);
  bool c = Probe(4).ok() || Probe(5).ok();
  printf("c = %d\n", c);
  bool d = Probe(-1).ok() || Probe(6).ok();
  printf("d = %d\n", d);
  return 0;
}
