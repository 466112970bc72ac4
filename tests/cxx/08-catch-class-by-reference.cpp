// A class exception caught by reference: no copy, destroyed when the handler ends.
#include <stdio.h>

struct Error {
  int code;
  Error(int c) : code(c) { printf("Error(%d)\n", code); }
  Error(const Error& o) : code(o.code) { printf("Error copy(%d)\n", code); }
  ~Error() { printf("~Error(%d)\n", code); }
};

int main() {
  try {
    throw Error(42);
  } catch (Error& e) {
    printf("handler sees %d\n", e.code);
    e.code = 43;
    printf("handler done\n");
  }
  printf("after try\n");
  return 0;
}
