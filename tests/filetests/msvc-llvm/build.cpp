// RUN: %ehir build --abi msvc %s -o %t.exe && llvm-objdump -p %t.exe | FileCheck %s --check-prefix=PE && \
// RUN:   env WINEPREFIX=${EHIR_WINEPREFIX:-${TMPDIR:-/tmp}/ehir-wine-prefix} WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winedbg.exe=d" DISPLAY= \
// RUN:   wine %t.exe | tr -d '\r' | FileCheck %s --check-prefix=OUT
// RUN: %ehir build --abi msvc -c %s -o %t.obj && llvm-nm %t.obj | FileCheck %s --check-prefix=NM
// RUN: %ehir build --abi msvc -c %s -o %t.obj && \
// RUN:   not %ehir build --abi msvc %s %t.obj -o %t.foreign 2>&1 | FileCheck %s --check-prefix=FOREIGN && \
// RUN:   not test -e %t.foreign
// RUN: not %ehir build --abi msvc %s -o %t.badlink --lld-link %S/no-such-lld-link 2>&1 | FileCheck %s --check-prefix=BADLINK && \
// RUN:   not test -e %t.badlink
// RUN: not env -u EHIR_LLD_LINK EHIR_CLANG=$(command -v clang++-22) PATH=%S/no-such-dir %ehir build --abi msvc %s -o %t.missing --llc $(command -v llc) --dlltool $(command -v llvm-dlltool) 2>&1 | FileCheck %s --check-prefix=MISSING && \
// RUN:   not test -e %t.missing
// `ehir build --abi msvc`: a PE console executable that imports msvcrt.dll (and kernel32's
// SetUnhandledExceptionFilter, for the uncaught-exception filter of the startup code),
// run under wine; `-c` for a COFF object whose symbols have the Microsoft names Clang
// gives for the target; inputs
// that ehir did not compile are refused; missing tools are named with their Debian
// package, and nothing is written.
#include <stdio.h>

struct Noisy {
  int id;
  Noisy(int i) : id(i) {}
  ~Noisy() { printf("~Noisy %d\n", id); }
};

// NM-DAG: T ?throwi@@YAXH@Z
void throwi(int v) {
  Noisy n(v);
  throw v;
}

// OUT: ~Noisy 42
// OUT-NEXT: caught 42
// OUT-NEXT: done 1.5
// NM-DAG: T main
// NM-DAG: U _CxxThrowException
// NM-DAG: U __CxxFrameHandler3
// NM-DAG: D ??_R0H@8
// NM-DAG: R _TI1H
int main() {
  try {
    throwi(42);
  } catch (int e) {
    printf("caught %d\n", e);
  }
  printf("done %.1f\n", 1.5);
  return 0;
}

// PE: file format coff-x86-64
// PE: DLL Name: msvcrt.dll
// PE-DAG: _CxxThrowException
// PE-DAG: __CxxFrameHandler3
// PE-DAG: printf
// PE: DLL Name: kernel32.dll
// PE: SetUnhandledExceptionFilter

// FOREIGN: error: '{{.*}}.obj' cannot be linked with --abi msvc: every input must be compiled by ehir
// BADLINK: error: {{.*}}no-such-lld-link (from --lld-link) does not exist or is not executable
// MISSING: error: lld-link not found (looked for lld-link-19, lld-link on PATH); install the Debian package `lld-19`
