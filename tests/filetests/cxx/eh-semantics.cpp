// EH semantics the Clang front end gets right, checked against g++ (the oracle) at every
// interpreter phase and natively:
// - a temporary with a destructor inside a throw operand is destroyed, and the thrown
//   object is not released as if its construction had failed;
// - `catch (int*& p)` binds the reference to the adjusted pointer;
// - an unnamed by-value class handler parameter is still copied;
// - a by-value handler parameter whose copy constructor throws calls std::terminate.
// RUN: g++ -std=c++14 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 134
// RUN: %ehir --std=c++14 run --phase all %s > %t.run; test $? -eq 134
// RUN: diff %t.expected %t.run
// RUN: %ehir --std=c++14 build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 134
// RUN: diff %t.expected %t.native
#include <cstdio>

struct Tmp {
  int v;
  Tmp(int x) : v(x) { printf("Tmp(%d)\n", v); }
  ~Tmp() { printf("~Tmp(%d)\n", v); }
  int get() const { return v; }
};

struct Ex {
  int code;
  Ex(int c) : code(c) { printf("Ex(%d)\n", code); }
  Ex(const Ex& o) : code(o.code) { printf("copy Ex(%d)\n", code); }
  ~Ex() { printf("~Ex(%d)\n", code); }
};

struct Bomb {
  Bomb() {}
  Bomb(const Bomb&) { printf("copying Bomb throws\n"); throw 1; }
};

int value = 42;

int main() {
  try {
    throw Ex(Tmp(3).get());
  } catch (const Ex& e) {
    printf("caught Ex %d\n", e.code);
  }
  try {
    throw &value;
  } catch (int*& p) {
    printf("caught int* %d\n", *p);
    p = nullptr;
  }
  try {
    throw Ex(7);
  } catch (Ex) {
    printf("caught Ex by value, unnamed\n");
  }
  fflush(stdout);
  try {
    throw Bomb();
  } catch (Bomb b) {
    printf("not reached\n");
  }
  return 0;
}
