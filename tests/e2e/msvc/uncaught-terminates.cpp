// An exception that nothing catches (crates/ehir/tests/msvc_e2e.rs): std::terminate is
// called during the search, before any frame unwinds, so no destructor runs. g++'s build
// aborts with status 134 and loses its buffered stdout; the Microsoft build (ehir's
// startup installs the unhandled-exception filter that the Microsoft CRT installs) calls
// msvcrt's terminate, whose abort exits with status 3 after writing "start".
#include <stdio.h>

struct Local {
  ~Local() { printf("~Local\n"); }
};

void thrower() {
  Local inner;
  throw 5;
}

int main() {
  printf("start\n");
  Local outer;
  thrower();
  return 0;
}
