// A global of a class whose default constructor is trivial (and an array of them),
// without an initializer, is zero-initialized static storage: no constructor runs, so it
// is no dynamic initialization.
// RUN: %ehir opt %s | FileCheck %s
// RUN: %ehir run --phase all %s; test $? -eq 42
// RUN: %ehir build %s -o %t.exe && %t.exe; test $? -eq 42
// CHECK-DAG: cir.global external @table = #cir.zero : !cir.array<!rec_Entry x 4>
// CHECK-DAG: cir.global external @last = #cir.zero : !rec_Entry
struct Entry {
  const char *name;
  int value;
};

Entry table[4];
Entry last;

int main() {
  table[2].value = 40;
  last.value = table[2].value + 2;
  return table[0].value + (table[3].name == 0 ? last.value : 1);
}
