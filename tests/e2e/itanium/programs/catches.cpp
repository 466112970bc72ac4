// Typed catches in a nested try: fundamental types, a C string, a derived class caught by
// its base, an exception object with a destructor, a rethrow and a catch-all.
#include <cstdio>

struct B {
  int b;
};
struct D : B {
  int d;
};
struct E {
  int code;
  ~E();
};
E::~E() { printf("~E %d\n", code); }

void thrower(int kind) {
  printf("throw %d\n", kind);
  if (kind == 0)
    throw 7;
  if (kind == 1)
    throw 2.5f;
  if (kind == 2)
    throw "text";
  if (kind == 3) {
    D d;
    d.b = 30;
    d.d = 31;
    throw d;
  }
  if (kind == 4)
    throw E{40}; // constructed in the exception object, like the CIR
  if (kind == 5)
    throw 5L;
}

void test(int kind) {
  try {
    try {
      thrower(kind);
    } catch (float f) {
      printf("float %d, rethrow\n", static_cast<int>(f * 10));
      throw;
    } catch (B &b) {
      printf("B %d\n", b.b);
    }
  } catch (int i) {
    printf("int %d\n", i);
  } catch (const char *s) {
    printf("string %s\n", s);
  } catch (E &e) {
    printf("E %d\n", e.code);
  } catch (...) {
    printf("other\n");
  }
  printf("test %d done\n", kind);
}

int main() {
  for (int k = 0; k < 7; ++k)
    test(k);
  return 0;
}
