// Built by g++: catches what gxx-catches-ehir.cpp (built by ehir) throws.
#include <stdio.h>

struct Oops {
  int code;
  Oops(int c);
  Oops(const Oops& o);
  ~Oops();
};

void ehir_throw(int kind);
void ehir_rethrow(void (*g)());

static void gxx_inner() { throw 3.5; }

int main() {
  for (int kind = 0; kind < 3; ++kind) {
    try {
      ehir_throw(kind);
    } catch (Oops& o) {
      printf("g++ caught Oops(%d)\n", o.code);
    } catch (int i) {
      printf("g++ caught int %d\n", i);
    } catch (int* p) {
      printf("g++ caught int* -> %d\n", *p);
    }
  }
  try {
    ehir_rethrow(gxx_inner);
  } catch (double d) {
    printf("g++ caught rethrown double %g\n", d);
  }
  return 0;
}
