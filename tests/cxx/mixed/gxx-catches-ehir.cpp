// Built by ehir: throws exceptions that code built by g++ (gxx-catches-ehir.gxx.cpp)
// catches: a class (with an ehir-built destructor), an int and a pointer, through ehir
// frames with cleanups and a rethrow.
#include <stdio.h>

struct Oops {
  int code;
  Oops(int c) : code(c) { printf("ehir Oops(%d)\n", code); }
  Oops(const Oops& o) : code(o.code) { printf("ehir Oops copy(%d)\n", code); }
  ~Oops() { printf("ehir ~Oops(%d)\n", code); }
};

struct Frame {
  ~Frame() { printf("ehir ~Frame\n"); }
};

void ehir_throw(int kind) {
  Frame f;
  if (kind == 0)
    throw Oops(42);
  if (kind == 1)
    throw 17;
  static int target = 5;
  throw &target;
}

void ehir_rethrow(void (*g)()) {
  try {
    g();
  } catch (...) {
    printf("ehir saw it, rethrowing\n");
    throw;
  }
}
