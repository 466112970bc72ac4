// A std::terminate handler that calls std::terminate again (here `throw;` with no caught
// exception: g++ calls std::terminate without making the exception current where it
// meets the noexcept boundary after a catch that did not match, in a frame below
// another) runs again, as libstdc++ has no guard against it:
// natively the recursion overflows the stack (SIGSEGV), and the interpreter stops the
// run when its runtime calls nest too deep, saying so (exit status 124), at every phase.
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected 2>&1; test $? -eq 139
// RUN: %ehir run --phase all %s > %t.run 2> %t.err; test $? -eq 124
// RUN: FileCheck %s < %t.err
// CHECK: error: runtime error in @{{.*}}: runtime-initiated calls nested more than 64 deep (handlers or destructors the runtime calls recurse; natively the stack would overflow)
// CHECK: verdict: the program has undefined behaviour, which the interpreter detected at phase(s) structured, flat, itanium
#include <cstdio>
#include <cstdlib>
#include <exception>

static void handler() {
  try {
    throw;
  } catch (...) {
    std::printf("the handler found a current exception\n");
    std::exit(0);
  }
}

static void no_throw() throw() {
  try {
    throw 1;
  } catch (double) {
  }
}

static void middle() {
  no_throw();
  throw 2.0;
}

int main() {
  std::set_terminate(handler);
  try {
    middle();
  } catch (int) {
    std::printf("not reached\n");
  }
  return 0;
}
