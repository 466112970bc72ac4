// new T(args) where the constructor throws: the storage is released (operator delete)
// and the exception propagates; no destructor runs.
#include <stdio.h>

struct Widget {
  int n;
  Widget(int x) : n(x) {
    printf("Widget(%d)\n", n);
    if (x < 0)
      throw x;
  }
  ~Widget() { printf("~Widget(%d)\n", n); }
};

int main() {
  Widget* w = new Widget(1);
  delete w;
  try {
    Widget* bad = new Widget(-1);
    printf("not reached %d\n", bad->n);
  } catch (int e) {
    printf("caught %d\n", e);
  }
  Widget* nothing = nullptr;
  delete nothing;
  printf("done\n");
  return 0;
}
