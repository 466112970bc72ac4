// Built by ehir: catches exceptions thrown by code built by g++
// (ehir-catches-gxx.gxx.cpp), by reference, by value (g++'s copy constructor) and
// through ehir frames with cleanups.
#include <stdio.h>

struct Err {
  int code;
  Err(int c);
  Err(const Err& other);
  ~Err();
};

void gxx_throw(int code);
int gxx_call_back(int (*f)(int), int x);

struct Local {
  int id;
  Local(int i) : id(i) { printf("ehir Local(%d)\n", id); }
  ~Local() { printf("ehir ~Local(%d)\n", id); }
};

int ehir_callback(int x) {
  Local l(x);
  if (x > 1)
    gxx_throw(x * 10);
  return x;
}

int main() {
  try {
    Local l(1);
    gxx_throw(7);
  } catch (Err& e) {
    printf("ehir caught Err(%d) by reference\n", e.code);
  }
  try {
    gxx_throw(8);
  } catch (Err e) {
    printf("ehir caught a copy Err(%d)\n", e.code);
  }
  try {
    printf("callback returned %d\n", gxx_call_back(ehir_callback, 1));
    gxx_call_back(ehir_callback, 2);
  } catch (const Err& e) {
    printf("ehir caught Err(%d) through g++ and ehir frames\n", e.code);
  }
  return 0;
}
