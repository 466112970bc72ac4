// A header's `static` variable with a dynamic initializer is defined and initialized
// even when the program does not name it: libstdc++'s `<iostream>` (before GCC 13)
// constructs the standard streams through `static ios_base::Init __ioinit;`, without
// which `std::cout` is used unconstructed (a crash). Checked natively against g++; the
// interpreter runs the initialization (it models `ios_base::Init`) and stops with an
// error at the first use of a stream, which it does not model.
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 0
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 0
// RUN: diff %t.expected %t.native
// RUN: %ehir run --phase all %s > %t.run 2> %t.err; test $? -eq 124
// RUN: FileCheck %s < %t.err
// CHECK: verdict: the program calls '{{.*}}', an external function the interpreter does not model
#include <iostream>

static int parse(int value) {
  if (value < 0)
    throw value;
  return value * 2;
}

int main() {
  try {
    std::cout << parse(21) << "\n";
    std::cout << parse(-1) << "\n";
  } catch (int e) {
    std::cout << "caught " << e << "\n";
  }
  return 0;
}
