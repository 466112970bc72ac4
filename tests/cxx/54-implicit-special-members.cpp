// Implicitly defined constructors, copy constructor, assignment and destructor call
// those of the members and bases.
#include <stdio.h>

struct Part {
  int v;
  Part() : v(0) { printf("Part()\n"); }
  Part(const Part& o) : v(o.v) { printf("Part(copy %d)\n", v); }
  Part& operator=(const Part& o) {
    printf("Part = %d\n", o.v);
    v = o.v;
    return *this;
  }
  ~Part() { printf("~Part(%d)\n", v); }
};

struct Base {
  Base() { printf("Base()\n"); }
  Base(const Base&) { printf("Base(copy)\n"); }
  ~Base() { printf("~Base()\n"); }
};

struct Aggregate : Base {
  Part p;
  int plain;
};

int main() {
  Aggregate a;
  a.p.v = 5;
  a.plain = 1;
  Aggregate b(a);
  Aggregate c;
  c = b;
  printf("c.p.v = %d\n", c.p.v);
  return 0;
}
