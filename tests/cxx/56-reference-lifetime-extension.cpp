// A temporary bound to a const reference lives as long as the reference.
#include <stdio.h>

struct Temp {
  int v;
  Temp(int x) : v(x) { printf("Temp(%d)\n", v); }
  ~Temp() { printf("~Temp(%d)\n", v); }
};

Temp make(int x) { return Temp(x); }

int main() {
  {
    const Temp& r = Temp(1);
    printf("bound %d\n", r.v);
    const Temp& s = make(2);
    printf("bound %d\n", s.v);
    printf("leaving block\n");
  }
  printf("after block\n");
  return 0;
}
