// Dynamic exception specifications (C++14): an allowed exception passes; a violation
// runs the frame's cleanups and calls std::unexpected (default: terminate); an unexpected
// handler may throw an allowed exception instead; `throw()` allows nothing.
// Cases: 0 allowed, 1 violated, 2 throw(), 3 violated with an unexpected handler.
#include <cstdio>
#include <exception>

extern "C" int scenario();

struct S {
  int id;
  S(int i);
  ~S();
};
S::S(int i) : id(i) { printf("ctor %d\n", i); }
S::~S() { printf("dtor %d\n", id); }

void allowed(int k) throw(int) {
  S s(10);
  if (k == 0)
    throw 1;
  throw 2.5f;
}

void none() throw() {
  S s(20);
  throw 3;
}

void handler() {
  printf("unexpected handler\n");
  throw 99;
}

int main() {
  int s = scenario();
  if (s == 3)
    std::set_unexpected(handler);
  try {
    if (s == 0)
      allowed(0);
    if (s == 1 || s == 3)
      allowed(1);
    if (s == 2)
      none();
  } catch (int i) {
    printf("main caught int %d\n", i);
  } catch (...) {
    printf("main caught other\n");
  }
  printf("main done\n");
  return 0;
}
