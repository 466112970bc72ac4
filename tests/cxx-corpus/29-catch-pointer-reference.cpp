// `catch (int*& p)` binds a reference to the thrown pointer: changing it changes the
// exception object, which a rethrow passes on.
#include <cstdio>

static int values[3] = {10, 20, 30};

int main() {
  int status = 0;
  try {
    try {
      throw &values[0];
    } catch (int *&p) {
      std::printf("first %d\n", *p);
      ++p;
      std::printf("moved to %d\n", *p);
      throw;
    }
  } catch (int *p) {
    std::printf("rethrown points at %d\n", *p);
    status = *p;
  }
  try {
    throw &values[2];
  } catch (const int *p) {
    std::printf("const pointer %d\n", *p);
    status += *p;
  }
  return status;
}
