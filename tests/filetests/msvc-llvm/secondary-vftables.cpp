// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s
// RUN: %ehir emit-llvm --abi msvc %s | grep -o '^@"??_[7R]4[^"]*"' | sort > %t.ehir && \
// RUN:   clang++-22 --target=x86_64-pc-windows-msvc -fms-extensions -nostdinc -isystem %S/../../../crates/ehir-clang/include/msvc \
// RUN:   -S -emit-llvm %s -o - | grep -o '^@"??_[7R]4[^"]*"' | sort > %t.clang && \
// RUN:   test -s %t.clang && diff %t.clang %t.ehir
// A class with several vftable pointers on the Microsoft ABI has one vftable per pointer,
// each with a Complete Object Locator that gives the pointer's offset, named as Clang
// for Windows names them (`??_7D@@6BY@@@`: the bases that tell them apart; the one
// vftable of a base, `Q`, needs none). A method's `this` points to the vftable pointer
// of the first vftable it has a slot in; a vftable where it is reached through another
// pointer holds a this-adjusting thunk (`?x@T@@WBA@EAAXXZ`: 16 bytes back).

struct X { virtual void x() {} int a = 1; };
struct Y { virtual void y() {} int b = 2; };
struct P : X, Y { virtual void p() {} void y() override {} };
struct Q { virtual void q() {} };
struct E { int e = 5; };
// The bases with a vftable pointer come first: P at 0, Q at 32, E at 40.
struct D : E, P, Q {
  void q() override {}
  virtual ~D() {}
  void x() override {}
};
struct R : X { virtual void r() {} };
struct T : X, R { void x() override {} };

// CHECK-DAG: @"??_7D@@6BX@@@" = internal constant [4 x ptr] [ptr @"??_R4D@@6BX@@@", ptr @"?x@D@@UEAAXXZ", ptr @"?p@P@@UEAAXXZ", ptr @"??_GD@@UEAAPEAXI@Z"]
// CHECK-DAG: @"??_7D@@6BY@@@" = internal constant [2 x ptr] [ptr @"??_R4D@@6BY@@@", ptr @"?y@P@@UEAAXXZ"]
// CHECK-DAG: @"??_7D@@6B@" = internal constant [2 x ptr] [ptr @"??_R4D@@6B@", ptr @"?q@D@@UEAAXXZ"]
// CHECK-DAG: @"??_7T@@6BR@@@" = internal constant [3 x ptr] [ptr @"??_R4T@@6BR@@@", ptr @"?x@T@@WBA@EAAXXZ", ptr @"?r@R@@UEAAXXZ"]
// CHECK-DAG: @"??_R4D@@6BX@@@" = {{.*}} { i32 1, i32 0, i32 0,
// CHECK-DAG: @"??_R4D@@6BY@@@" = {{.*}} { i32 1, i32 16, i32 0,
// CHECK-DAG: @"??_R4D@@6B@" = {{.*}} { i32 1, i32 32, i32 0,
// CHECK-DAG: @"??_R4T@@6BR@@@" = {{.*}} { i32 1, i32 16, i32 0,
// The thunk moves `this` from T's R subobject to T.
// CHECK-DAG: define internal void @"?x@T@@WBA@EAAXXZ"(ptr %[[THIS:.*]])
// CHECK-DAG: getelementptr i8, ptr %[[THIS]], i64 -16
// D::q's `this` is D's Q subobject: its body moves it back 32 bytes.
// CHECK-DAG: define {{.*}}void @"?q@D@@UEAAXXZ"(ptr %[[QTHIS:.*]])
// CHECK-DAG: getelementptr i8, ptr %[[QTHIS]], i64 -32

int main() {
  D d;
  T t;
  Q *q = &d;
  q->q();
  static_cast<R *>(&t)->x();
  return 0;
}
