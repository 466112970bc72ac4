// Declarations that the seed's C++ listings assume but do not write: `SomeClass`, `f()`,
// and the entry `someFunc` with C linkage (the CIR listings call it `@someFunc`).
// Force-included (`-include harness.h`) when g++ compiles a seed listing; the definitions
// are in harness.cpp.
#pragma once
#include <exception>

class SomeClass {
public:
  SomeClass();
  // May throw when a test scripts it (so that a throwing cleanup is observable).
  ~SomeClass() noexcept(false);
  void doSomething();
  int get();
  int id;
};

void f();

#if defined(EHIR_ENTRY_INT)
extern "C" int someFunc();
#elif !defined(EHIR_ENTRY_DERIVED)
extern "C" void someFunc();
#endif
