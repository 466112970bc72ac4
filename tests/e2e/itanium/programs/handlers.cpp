// Code inside catch handlers: a cleanup in the handler, `throw;` through it, a new
// exception raised inside the handler (the caught one still ends), and a switch with
// break / goto / continue leaving a scope with a destructor.
#include <cstdio>

struct S {
  int id;
  S(int i);
  ~S();
};
S::S(int i) : id(i) { printf("ctor %d\n", i); }
S::~S() { printf("dtor %d\n", id); }

void f(int k) {
  if (k != 0)
    throw k;
}

void test(int k) {
  try {
    f(k);
  } catch (int i) {
    S s(i);
    if (i == 2)
      throw;
    if (i == 3)
      f(30);
    printf("handled %d\n", i);
  }
}

int main() {
  for (int k = 0; k < 4; ++k) {
    try {
      test(k);
    } catch (int i) {
      printf("outer %d\n", i);
    }
  }
  for (int i = 0; i < 4; ++i) {
    {
      S s(100 + i);
      switch (i) {
      case 0:
        printf("zero\n");
        break;
      case 1:
        goto next;
      case 2:
        continue;
      default:
        printf("default\n");
      }
      printf("after switch %d\n", i);
    }
    printf("end of body %d\n", i);
  next:;
  }
  return 0;
}
