// RUN: %ehir dot --phase msvc %s | FileCheck %s
// RUN: %ehir dot --phase structured --function main %s | FileCheck %s --check-prefix=STRUCTURED
// RUN: %ehir dot --phase structured --abi msvc %s | FileCheck %s --check-prefix=STRUCTURED-MSVC
// RUN: not %ehir dot --phase itanium --abi msvc %s 2>&1 | FileCheck %s --check-prefix=CONTRADICTS
// A C++ input goes through the front end like in the other commands, compiled for the
// target of the phase's ABI (msvc: Windows, so Microsoft names), else of --abi (default:
// itanium, Linux); `--function` picks one function; at the MSVC phase the catchswitch
// and the catchpad are funclet clusters.
#include <stdio.h>

void fail(int code) {
  throw code;
}

int main() {
  try {
    fail(7);
  } catch (int code) {
    printf("caught %d\n", code);
  }
  return 0;
}

// CHECK: // @?fail@@YAXH@Z: 1 blocks, 0 edges
// CHECK: // @main: {{[0-9]+}} blocks
// CHECK: label="@main (msvc)"
// CHECK: class="funclet"; label="funclet ^bb{{[0-9]+}}: cir.catchswitch"
// CHECK: class="funclet"; label="funclet ^bb{{[0-9]+}}: cir.catchpad"
// CHECK: [class="dispatch", label="handler"];

// STRUCTURED-NOT: @_Z4faili
// STRUCTURED: label="@main (structured)"
// STRUCTURED: class="region try"; label="cir.try: body"
// STRUCTURED: class="region handler"; label="cir.try: catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>]"
// STRUCTURED: class="region handler"; label="cir.try: unwind"

// STRUCTURED-MSVC: // @?fail@@YAXH@Z: {{[0-9]+}} blocks
// STRUCTURED-MSVC: label="@main (structured)"

// CONTRADICTS: ehir: error: --abi msvc contradicts --phase itanium, the phase of the itanium ABI
