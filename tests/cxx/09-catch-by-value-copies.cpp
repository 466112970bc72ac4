// Catch by value copy-constructs the handler's parameter from the exception object.
#include <stdio.h>

struct Error {
  int code;
  Error(int c) : code(c) { printf("Error(%d)\n", code); }
  Error(const Error& o) : code(o.code + 1) { printf("Error copy(%d)\n", code); }
  ~Error() { printf("~Error(%d)\n", code); }
};

int main() {
  try {
    throw Error(10);
  } catch (Error e) {
    printf("in handler, copy has %d\n", e.code);
  }
  printf("after\n");
  return 0;
}
