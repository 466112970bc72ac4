// std::uncaught_exception() is true in a destructor that runs during unwinding.
#include <stdio.h>
#include <exception>

struct Watch {
  const char* n;
  Watch(const char* s) : n(s) {}
  ~Watch() { printf("%s: unwinding=%d\n", n, (int)std::uncaught_exception()); }
};

int main() {
  {
    Watch w("normal exit");
  }
  try {
    Watch w("exceptional exit");
    throw 1;
  } catch (int) {
    printf("in handler: unwinding=%d\n", (int)std::uncaught_exception());
  }
  return 0;
}
