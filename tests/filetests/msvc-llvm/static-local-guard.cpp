// RUN: %ehir opt --abi msvc %s | FileCheck %s
// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s --check-prefix=LLVM
// RUN: %ehir run --abi msvc --phase all %s > %t.run 2> %t.verdict; test $? -eq 7 && FileCheck %s --check-prefix=OUT --match-full-lines < %t.run && FileCheck %s --check-prefix=VERDICT < %t.verdict
// RUN: %ehir build --abi msvc %s -o %t.exe && \
// RUN:   env WINEPREFIX=${EHIR_WINEPREFIX:-${TMPDIR:-/tmp}/ehir-wine-prefix} WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winedbg.exe=d" DISPLAY= \
// RUN:   wine %t.exe > %t.wine; test $? -eq 7 && tr -d '\r' < %t.wine | FileCheck %s --check-prefix=OUT --match-full-lines
// Static locals with dynamic initializers on the Microsoft target, in the form of Clang
// for Windows with `-fno-threadsafe-statics` (msvcrt.dll has no `_Init_thread_header`):
// bit 1 of a 32-bit guard (ehir's own, internal: one per static) is set before the
// initializer runs and cleared again by an EH cleanup if it throws, so the next pass
// retries; after a successful initialization the destructor is registered with `atexit`
// through a `??__F…` function named as Clang names it (scoped by the enclosing function,
// `?main@@9` for one of C linkage). Objects are destroyed in the reverse order of the
// completion of their initializations, not of their declarations. The OUT lines and exit
// status 7 are what Clang for Windows' build of this file does under wine (and g++'s).

// CHECK-DAG: cir.global internal @"ehir.guard.?first@?1??use@Widget@@QEAAHH@Z@4UTracked@@A" = #cir.zero : !u32i
// CHECK-DAG: cir.global internal @"ehir.guard.?second@?1??use@Widget@@QEAAHH@Z@4UTracked@@A" = #cir.zero : !u32i
// CHECK-DAG: cir.global internal @"ehir.guard.?in_main@?1??main@@9@4UTracked@@A" = #cir.zero : !u32i
// CHECK-DAG: cir.func @atexit(!cir.ptr<!cir.func<()>>) -> !s32i
// CHECK-NOT: __cxa_guard
// CHECK-NOT: _Init_thread

// CHECK-LABEL: cir.func @"?use@Widget@@QEAAHH@Z"(
// CHECK:      %[[GUARD:[0-9]+]] = cir.get_global @"ehir.guard.?first@?1??use@Widget@@QEAAHH@Z@4UTracked@@A" : !cir.ptr<!u32i>
// CHECK-NEXT: %[[BITS:[0-9]+]] = cir.load align(4) %[[GUARD]] : !cir.ptr<!u32i>, !u32i
// CHECK-NEXT: %[[ONE:[0-9]+]] = cir.const #cir.int<1> : !u32i
// CHECK-NEXT: %[[BIT:[0-9]+]] = cir.and %[[BITS]], %[[ONE]] : !u32i
// CHECK-NEXT: %[[ZERO:[0-9]+]] = cir.const #cir.int<0> : !u32i
// CHECK-NEXT: %[[FIRST_PASS:[0-9]+]] = cir.cmp eq %[[BIT]], %[[ZERO]] : !u32i
// CHECK-NEXT: cir.if %[[FIRST_PASS]] {
// CHECK-NEXT:   %[[SET:[0-9]+]] = cir.or %[[BITS]], %[[ONE]] : !u32i
// CHECK-NEXT:   cir.store align(4) %[[SET]], %[[GUARD]] : !u32i, !cir.ptr<!u32i>
// CHECK-NEXT:   cir.cleanup.scope {
// CHECK:          cir.call @"??0Tracked@@QEAA@PEBD_N@Z"(
// CHECK-NEXT:     %[[STUB:[0-9]+]] = cir.get_global @"??__Ffirst@?1??use@Widget@@QEAAHH@Z@YAXXZ" : !cir.ptr<!cir.func<()>>
// CHECK:          cir.call @atexit(%{{[0-9]+}}) nothrow
// CHECK-NEXT:     cir.yield
// CHECK-NEXT:   } cleanup eh {
// CHECK-NEXT:     %[[NOW:[0-9]+]] = cir.load align(4) %[[GUARD]] : !cir.ptr<!u32i>, !u32i
// CHECK-NEXT:     %[[MASK:[0-9]+]] = cir.const #cir.int<4294967294> : !u32i
// CHECK-NEXT:     %[[CLEARED:[0-9]+]] = cir.and %[[NOW]], %[[MASK]] : !u32i
// CHECK-NEXT:     cir.store align(4) %[[CLEARED]], %[[GUARD]] : !u32i, !cir.ptr<!u32i>
// CHECK-NEXT:     cir.resume
// CHECK-NEXT:   }
// CHECK-NEXT:   cir.yield
// CHECK-NEXT: }
// CHECK:      cir.get_global @"ehir.guard.?second@?1??use@Widget@@QEAAHH@Z@4UTracked@@A"
// CHECK:      cir.get_global @"??__Fsecond@?1??use@Widget@@QEAAHH@Z@YAXXZ"

// CHECK-LABEL: cir.func internal @"??__Ffirst@?1??use@Widget@@QEAAHH@Z@YAXXZ"() {
// CHECK-NEXT:   %[[OBJECT:[0-9]+]] = cir.get_global @"?first@?1??use@Widget@@QEAAHH@Z@4UTracked@@A"
// CHECK-NEXT:   cir.call @"??1Tracked@@QEAA@XZ"(%[[OBJECT]]) nothrow
// CHECK-NEXT:   cir.return

// CHECK-LABEL: cir.func @c_function()
// CHECK:        cir.get_global @"??__Fin_c@?1??c_function@@9@YAXXZ"
// CHECK-LABEL: cir.func @main()
// CHECK:        cir.get_global @"??__Fin_main@?1??main@@9@YAXXZ"

// The guard reset runs in a cleanup funclet on the way out of the throwing constructor.
// LLVM-LABEL: define {{.*}} @"?use@Widget@@QEAAHH@Z"(
// LLVM:       cleanuppad within none []
// LLVM:       and i32 %{{[0-9a-z_.]+}}, -2
// LLVM:       store i32 %{{[0-9a-z_.]+}}, ptr @"ehir.guard.?first@?1??use@Widget@@QEAAHH@Z@4UTracked@@A"
// LLVM:       cleanupret from

// OUT:      construct first
// OUT-NEXT: construct second throws
// OUT-NEXT: round 0 failed
// OUT-NEXT: construct in c
// OUT-NEXT: construct second
// OUT-NEXT: round 1 done
// OUT-NEXT: round 2 done
// OUT-NEXT: construct in main
// OUT-NEXT: destroy in main
// OUT-NEXT: destroy second
// OUT-NEXT: destroy in c
// OUT-NEXT: destroy first
// OUT-EMPTY:
// VERDICT: phases structured, flat, msvc agree; the program exited with status 7
#include <stdio.h>

static int failures_left = 1;

struct Tracked {
  const char *name;
  Tracked(const char *n, bool may_fail) : name(n) {
    if (may_fail && failures_left-- > 0) {
      printf("construct %s throws\n", name);
      throw 1;
    }
    printf("construct %s\n", name);
  }
  ~Tracked() { printf("destroy %s\n", name); }
};

struct Widget {
  int use(int round);
};

int Widget::use(int round) {
  static Tracked first("first", false);
  static Tracked second("second", true);
  return round;
}

extern "C" int c_function() {
  static Tracked in_c("in c", false);
  return 0;
}

int main() {
  Widget widget;
  for (int round = 0; round < 3; ++round) {
    try {
      widget.use(round);
      printf("round %d done\n", round);
    } catch (int) {
      printf("round %d failed\n", round);
    }
    if (round == 0)
      c_function();
  }
  static Tracked in_main("in main", false);
  return 7;
}
