// RUN: %ehir emit-llvm --abi msvc %s | FileCheck %s
// RUN: %ehir emit-llvm --abi msvc %s | opt -passes=verify -disable-output
// The Microsoft RTTI and throw tables of C++ throws: a ThrowInfo → CatchableTypeArray →
// CatchableType → TypeDescriptor chain per thrown type, with image-relative references.
// A class lists itself and its bases (each with its offset in the object, B at 4); a
// pointer to a class lists the pointers to its bases and void*; scalars and pointers are
// simple types (flag 1). A pointer's pointee qualifiers are not part of any descriptor:
// a thrown `const char *` is `char *` with the ThrowInfo's const attribute (1), and
// `catch (const char *)` is the `char *` descriptor with the const adjective (1).
// The ThrowInfo of a class names its destructor (by the name Clang gives it for the
// target). The C++ is compiled for Windows, so functions have Microsoft names. The exception object is an alloca of
// the throwing function; `throw;` is _CxxThrowException(null, null). Doubles bring
// `_fltused`.
#include <stdio.h>

struct A { int a; };
struct B { int b; };
class M : public A, public B {
public:
  int m;
  M() { m = 3; }
  ~M() {}
};

// CHECK-DAG: @"??_R0?AVM@@@8" = linkonce_odr global { ptr, ptr, [8 x i8] } { ptr @ehir.type_info.vftable, ptr null, [8 x i8] c".?AVM@@\00" }, comdat, align 8
// CHECK-DAG: @"??_R0?AUB@@@8" = linkonce_odr global { ptr, ptr, [8 x i8] } { ptr @ehir.type_info.vftable, ptr null, [8 x i8] c".?AUB@@\00" }, comdat, align 8
// CHECK-DAG: @"??_R0PEAD@8" = linkonce_odr global { ptr, ptr, [6 x i8] } { ptr @ehir.type_info.vftable, ptr null, [6 x i8] c".PEAD\00" }, comdat, align 8

// CHECK-DAG: @"_CT??_R0H@84" = linkonce_odr unnamed_addr constant { i32, i32, i32, i32, i32, i32, i32 } { i32 1, i32 trunc (i64 sub (i64 ptrtoint (ptr @"??_R0H@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 4, i32 0 }, comdat, align 4
// CHECK-DAG: @_TI1H = linkonce_odr unnamed_addr constant { i32, i32, i32, i32 } { i32 0, i32 0, i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @_CTA1H to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32) }, comdat, align 4

// CHECK-DAG: @"_CT??_R0?AVM@@@812" = linkonce_odr unnamed_addr constant { i32, i32, i32, i32, i32, i32, i32 } { i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @"??_R0?AVM@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 12, i32 0 }
// CHECK-DAG: @"_CT??_R0?AUA@@@84" = linkonce_odr unnamed_addr constant { i32, i32, i32, i32, i32, i32, i32 } { i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @"??_R0?AUA@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 4, i32 0 }
// CHECK-DAG: @"_CT??_R0?AUB@@@84@4" = linkonce_odr unnamed_addr constant { i32, i32, i32, i32, i32, i32, i32 } { i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @"??_R0?AUB@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 4, i32 -1, i32 0, i32 4, i32 0 }
// CHECK-DAG: @"_CTA3?AVM@@" = linkonce_odr unnamed_addr constant { i32, [3 x i32] } { i32 3, [3 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0?AVM@@@812" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0?AUA@@@84" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0?AUB@@@84@4" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)] }
// CHECK-DAG: @"_TI3?AVM@@@??1M@@QEAA@XZ" = linkonce_odr unnamed_addr constant { i32, i32, i32, i32 } { i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @"??1M@@QEAA@XZ" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CTA3?AVM@@" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32) }

// CHECK-DAG: @"_CT??_R0PEAUB@@@88@4" = linkonce_odr unnamed_addr constant { i32, i32, i32, i32, i32, i32, i32 } { i32 1, i32 trunc (i64 sub (i64 ptrtoint (ptr @"??_R0PEAUB@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 4, i32 -1, i32 0, i32 8, i32 0 }
// CHECK-DAG: @"_CTA4PEAVM@@" = linkonce_odr unnamed_addr constant { i32, [4 x i32] } { i32 4, [4 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0PEAVM@@@88" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0PEAUA@@@88" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0PEAUB@@@88@4" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0PEAX@88" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)] }

// CHECK-DAG: @_CTA2PEAD = linkonce_odr unnamed_addr constant { i32, [2 x i32] } { i32 2, [2 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0PEAD@88" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @"_CT??_R0PEAX@88" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)] }
// CHECK-DAG: @_TIC2PEAD = linkonce_odr unnamed_addr constant { i32, i32, i32, i32 } { i32 1, i32 0, i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @_CTA2PEAD to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32) }

// CHECK-DAG: @_fltused = weak global i32 0, comdat, align 4
// CHECK-DAG: @__ImageBase = external constant i8

// CHECK-LABEL: define void @"?throw_int@@YAXXZ"()
// CHECK:         %[[INT:.+]] = alloca [4 x i8], align 16
// CHECK:         call void @_CxxThrowException(ptr %[[INT]], ptr @_TI1H)
void throw_int() { throw 7; }

// CHECK-LABEL: define void @"?throw_class@@YAXXZ"()
// CHECK:         %[[OBJ:.+]] = alloca [12 x i8], align 16
// CHECK:         call void @_CxxThrowException(ptr %[[OBJ]], ptr @"_TI3?AVM@@@??1M@@QEAA@XZ")
void throw_class() { throw M(); }

// CHECK-LABEL: define void @"?throw_pointer@@YAXPEAVM@@@Z"(
// CHECK:         call void @_CxxThrowException(ptr %{{.+}}, ptr @"_TI4PEAVM@@")
void throw_pointer(M *p) { throw p; }

// CHECK-LABEL: define void @"?throw_string@@YAXXZ"()
// CHECK:         call void @_CxxThrowException(ptr %{{.+}}, ptr @_TIC2PEAD)
void throw_string() { throw "text"; }

// CHECK-LABEL: define void @"?throw_double@@YAXXZ"()
// CHECK:         call void @_CxxThrowException(ptr %{{.+}}, ptr @_TI1N)
void throw_double() { throw 2.5; }

// CHECK-LABEL: define i32 @main()
// CHECK:         catchpad within %{{.+}} [ptr @"??_R0PEAD@8", i32 1, ptr %{{.+}}]
// CHECK:         %[[PAD:.+]] = catchpad within %{{.+}} [ptr @"??_R0?AUB@@@8", i32 8, ptr %{{.+}}]
// CHECK:         call void @_CxxThrowException(ptr null, ptr null) [ "funclet"(token %[[PAD]]) ]
int main() {
  try {
    throw_string();
  } catch (const char *s) {
    printf("%s\n", s);
  }
  try {
    throw_class();
  } catch (B &b) {
    printf("%d\n", b.b);
    throw;
  }
  return 0;
}
