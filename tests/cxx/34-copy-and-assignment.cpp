// User-defined copy constructor and copy assignment operator.
#include <stdio.h>

struct Value {
  int v;
  Value(int x) : v(x) { printf("Value(%d)\n", v); }
  Value(const Value& o) : v(o.v) { printf("copy(%d)\n", v); }
  Value& operator=(const Value& o) {
    printf("assign %d <- %d\n", v, o.v);
    v = o.v;
    return *this;
  }
  ~Value() { printf("~Value(%d)\n", v); }
};

int main() {
  Value a(1);
  Value b(a);
  Value c = a;
  Value d(4);
  d = b;
  d = Value(7);
  a = b = d;
  printf("a=%d b=%d c=%d d=%d\n", a.v, b.v, c.v, d.v);
  return 0;
}
