// Built by g++: throws for ehir-catches-gxx.cpp.
#include <stdio.h>

struct Err {
  int code;
  Err(int c);
  Err(const Err& other);
  ~Err();
};

Err::Err(int c) : code(c) { printf("g++ Err(%d)\n", code); }
Err::Err(const Err& other) : code(other.code + 1) { printf("g++ Err copy(%d)\n", code); }
Err::~Err() { printf("g++ ~Err(%d)\n", code); }

struct Guard {
  ~Guard() { printf("g++ ~Guard\n"); }
};

void gxx_throw(int code) {
  Guard g;
  throw Err(code);
}

int gxx_call_back(int (*f)(int), int x) {
  Guard g;
  return f(x);
}
