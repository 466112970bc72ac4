// Without a Clang to run, the error names the package to install and the variable that
// names the executable (exit status 1).
// RUN: env EHIR_CLANG=%t.no-such-clang %ehir opt %s 2> %t.err; test $? -eq 1
// RUN: FileCheck %s < %t.err
// CHECK: error: cannot find Clang: install the `clang-22` package (clang++-22), or name the executable with EHIR_CLANG=PATH (EHIR_CLANG=`{{.*}}no-such-clang` does not exist or is not executable)
int main() { return 0; }
