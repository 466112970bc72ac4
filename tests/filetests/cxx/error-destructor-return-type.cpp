// A destructor declared through a pointer declarator (`* ~C()`) would return `void*`;
// it is an error (Clang's), not a module that fails to verify.
// RUN: not %ehir opt %s 2>&1 | FileCheck %s
struct Value {
  int v;
  Value(int x) : v(x) {}
  Value &operator=(const Value &o) {
    v = o.v;
    return *this;
  }* ~Value() {}
};

int main() {
  Value a(1);
  return a.v;
}

// CHECK: error-destructor-return-type.cpp:10:4: error: invalid destructor declaration
