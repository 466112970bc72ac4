// noexcept boundaries, as g++ implements them: the boundary's own cleanups do not run;
// frames nearer the throw unwind first when a handler exists further out. Cases:
// 0: only cleanups between the call and the boundary; 1: a try with a non-matching catch
// inside the boundary; 2: the try catches, no terminate; 3: a destructor throws while
// unwinding.
#include <cstdio>

extern "C" int scenario();

struct S {
  int id;
  S(int i);
  ~S();
};
S::S(int i) : id(i) { printf("ctor %d\n", i); }
S::~S() { printf("dtor %d\n", id); }

struct T {
  ~T() noexcept(false);
};
T::~T() noexcept(false) {
  printf("~T throws\n");
  throw 2;
}

void thrower() {
  S s(1);
  throw 1;
}
void mid() {
  S s(2);
  thrower();
}
void neA() noexcept {
  S s(3);
  {
    S u(4);
    mid();
  }
}
void neB() noexcept {
  S s(5);
  try {
    S t(6);
    mid();
  } catch (float) {
    printf("float\n");
  }
}
void neC() noexcept {
  S s(7);
  try {
    mid();
  } catch (int i) {
    printf("int %d\n", i);
  }
  printf("neC done\n");
}
void throwingDtor() {
  T t;
  mid();
}

void run(int s) {
  if (s == 0)
    neA();
  if (s == 1)
    neB();
  if (s == 2)
    neC();
  if (s == 3)
    throwingDtor();
}

int main() {
  try {
    run(scenario());
  } catch (...) {
    printf("main caught\n");
  }
  printf("main done\n");
  return 0;
}
