// RUN: %ehir --std=c++14 emit-llvm --abi itanium %s -o %t.ll && llc -relocation-model=pic %t.ll -o %t.s && %ehir --std=c++14 tables --abi itanium --compare-llc %t.s %s | FileCheck %s --check-prefix=MATCH
// A first action that differs (main's first call site: byte 5, `On action: 3` -> byte 3):
// RUN: %ehir --std=c++14 emit-llvm --abi itanium %s -o %t.ll && llc -relocation-model=pic %t.ll -o %t.s && sed 's/\.byte\t5\( *\)#   On action: 3/.byte\t3\1#   On action: 2/' %t.s > %t.bad.s && ! cmp -s %t.s %t.bad.s && not %ehir --std=c++14 tables --abi itanium --compare-llc %t.bad.s %s | FileCheck %s --check-prefix=ACTION
// A type table entry that names another typeinfo (`_ZTIi` -> `_ZTIc`):
// RUN: %ehir --std=c++14 emit-llvm --abi itanium %s -o %t.ll && llc -relocation-model=pic %t.ll -o %t.s && sed 's/\.L_ZTIi\.DW\.stub/.L_ZTIc.DW.stub/' %t.s > %t.bad.s && ! cmp -s %t.s %t.bad.s && not %ehir --std=c++14 tables --abi itanium --compare-llc %t.bad.s %s | FileCheck %s --check-prefix=TYPE
// An action record whose next link differs (`Continue to action 1` -> end of chain):
// RUN: %ehir --std=c++14 emit-llvm --abi itanium %s -o %t.ll && llc -relocation-model=pic %t.ll -o %t.s && sed 's/\.byte\t125\( *\)#   Continue to action 1/.byte\t0\1#   No further actions/' %t.s > %t.bad.s && ! cmp -s %t.s %t.bad.s && not %ehir --std=c++14 tables --abi itanium --compare-llc %t.bad.s %s | FileCheck %s --check-prefix=NEXT
// `--bytes`: ehir's own encoding of the action table and the type table.
// RUN: %ehir --std=c++14 tables --abi itanium --bytes %s | FileCheck %s --check-prefix=BYTES
// The Itanium LSDA ehir models equals the one llc writes for ehir's LLVM IR (compared
// by what the call-site entries say, the action records with type ids resolved, the
// typeinfos); a table edited in the assembly is reported as a difference, exit status 1.
#include <stdio.h>

struct Guard {
  ~Guard() { printf("guard\n"); }
};

void may_throw(int value) {
  if (value)
    throw value;
}

void spec(int value) throw(int) { may_throw(value); }

int main() {
  try {
    Guard guard;
    may_throw(1);
  } catch (char c) {
    printf("char\n");
  } catch (int i) {
    printf("int %d\n", i);
  }
  return 0;
}

// MATCH: function @_Z4speci: tables match (1 landing pads, 1 actions, 1 types); llc deleted dead calls: _Unwind_Resume
// MATCH-NEXT: function @main: tables match (3 landing pads, 3 actions, 2 types)
// MATCH-NEXT: function @_ZN5GuardD1Ev: tables match (1 landing pads, 1 actions, 1 types)

// ACTION: function @main: tables differ
// ACTION-NEXT: ehir: pads [
// ACTION-NEXT: llc:  pads [

// TYPE: function @main: tables differ
// TYPE: llc: {{.*}} types [_ZTIc _ZTIc]

// NEXT: function @main: tables differ

// BYTES-LABEL: function @main:
// BYTES: action table bytes (6): 00 00 01 7d 02 7d
// BYTES-NEXT: 1: 00 00 type filter 0, next 0
// BYTES-NEXT: 3: 01 7d type filter 1, next -3
// BYTES-NEXT: 5: 02 7d type filter 2, next -3
// BYTES-NEXT: type table bytes (8, 4-byte indirect pcrel sdata4 entries, last id first):
// BYTES-NEXT: type 2: indirect pcrel32 -> @_ZTIc
// BYTES-NEXT: type 1: indirect pcrel32 -> @_ZTIi
