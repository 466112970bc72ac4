// extern "C" functions have unmangled names and still take part in EH.
#include <stdio.h>

extern "C" int c_square(int x) { return x * x; }

extern "C" {
void c_hello(const char* who);
}

void c_hello(const char* who) { printf("hello %s\n", who); }

struct Obj {
  ~Obj() { printf("~Obj\n"); }
};

extern "C" void c_thrower() {
  Obj o;
  throw 5;
}

int main() {
  c_hello("world");
  printf("%d\n", c_square(9));
  try {
    c_thrower();
  } catch (int v) {
    printf("caught %d from C linkage function\n", v);
  }
  return 0;
}
