// A tour of C++ exception handling compiled by ehir: objects destroyed in reverse
// order, a constructor that throws after building part of its object, a handler
// matching a base class, a rethrow, and an exception specification.
//
//   ehir run examples/eh-tour.cpp
//   ehir build examples/eh-tour.cpp -o tour && ./tour
#include <stdio.h>

struct Resource {
  const char* name;
  Resource(const char* n) : name(n) { printf("acquire %s\n", name); }
  ~Resource() { printf("release %s\n", name); }
};

struct Error {
  int code;
  Error(int c) : code(c) {}
};
struct NetworkError : Error {
  NetworkError(int c) : Error(c) {}
};

struct Connection {
  Resource socket;
  Resource buffer;
  Connection(bool fail) : socket("socket"), buffer("buffer") {
    if (fail)
      throw NetworkError(503);
    printf("connected\n");
  }
};

void transfer(bool fail) {
  Resource lock("lock");
  Connection c(fail);
  printf("transferring\n");
}

void retrying() {
  try {
    transfer(true);
  } catch (Error& e) {
    printf("attempt failed with %d, giving up\n", e.code);
    throw;
  }
}

int main() {
  transfer(false);
  try {
    retrying();
  } catch (const NetworkError& e) {
    printf("main: network error %d\n", e.code);
  }
  return 0;
}
