// Returning prvalues constructs in place (no copy); returning the same named local
// from every return is elided by g++ as well (NRVO).
#include <stdio.h>

struct Big {
  int v;
  Big(int x) : v(x) { printf("Big(%d)\n", v); }
  Big(const Big& o) : v(o.v) { printf("copy Big(%d)\n", v); }
  ~Big() { printf("~Big(%d)\n", v); }
};

Big direct(int x) { return Big(x); }

Big named(int x) {
  Big result(x);
  result.v += 1;
  return result;
}

Big two_names(bool c) {
  Big a(10);
  Big b(20);
  if (c)
    return a;
  return b;
}

int main() {
  Big x = direct(1);
  Big y = named(2);
  Big z = two_names(false);
  printf("x=%d y=%d z=%d\n", x.v, y.v, z.v);
  Big w = Big(Big(9));
  printf("w=%d\n", w.v);
  return 0;
}
