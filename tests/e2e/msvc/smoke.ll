; Hand-written LLVM IR for x86_64-pc-windows-msvc that exercises every funclet construct the
; MSVC lowering of ehir will emit: catchswitch/catchpad/catchret, cleanuppad/cleanupret, a
; try inside a catch (a catchswitch within a catchpad), a cleanup inside a catch, a rethrow
; from a catch, catch by value (int) and by reference (Base&, thrown as Derived, so the
; CatchableTypeArray lists the base class), catch-all, and "funclet" operand bundles.
;
; C++ equivalent:
;   struct Base { int x; };  struct Derived : Base { int y; };
;   struct Obj { int id; ~Obj() { printf("~Obj %d\n", id); } };
;   void thrower(int k) { if (k == 1) throw 42; if (k == 2) throw Derived{{7}, 8}; }
;   int main() {
;     try { Obj o{1}; thrower(1); puts("not reached"); }
;     catch (int e) {
;       printf("caught int %d\n", e);
;       try { Obj inner{2}; thrower(2); } catch (Base &b) { printf("caught Base %d\n", b.x); }
;     }
;     try { try { thrower(1); } catch (...) { puts("rethrowing"); throw; } }
;     catch (int &e) { printf("outer caught %d\n", e); }
;     puts("done");
;     exit(0);
;   }
; Expected stdout (CR stripped):
;   ~Obj 1 / caught int 42 / ~Obj 2 / caught Base 7 / rethrowing / outer caught 42 / done

target triple = "x86_64-pc-windows-msvc"

%rtti.TypeDescriptor2 = type { ptr, ptr, [3 x i8] }
%rtti.TypeDescriptor13 = type { ptr, ptr, [14 x i8] }
%rtti.TypeDescriptor10 = type { ptr, ptr, [11 x i8] }
%eh.CatchableType = type { i32, i32, i32, i32, i32, i32, i32 }
%eh.CatchableTypeArray.1 = type { i32, [1 x i32] }
%eh.CatchableTypeArray.2 = type { i32, [2 x i32] }
%eh.ThrowInfo = type { i32, i32, i32, i32 }
%struct.Derived = type { i32, i32 }

@__ImageBase = external dso_local constant i8
; wine does not export type_info's vftable; matching compares the decorated names.
@"??_7type_info@@6B@" = private constant [2 x ptr] zeroinitializer

@"??_R0H@8" = linkonce_odr global %rtti.TypeDescriptor2 { ptr @"??_7type_info@@6B@", ptr null, [3 x i8] c".H\00" }, comdat
@"??_R0?AUDerived@@@8" = linkonce_odr global %rtti.TypeDescriptor13 { ptr @"??_7type_info@@6B@", ptr null, [14 x i8] c".?AUDerived@@\00" }, comdat
@"??_R0?AUBase@@@8" = linkonce_odr global %rtti.TypeDescriptor10 { ptr @"??_7type_info@@6B@", ptr null, [11 x i8] c".?AUBase@@\00" }, comdat

; int: simple type (flags 1), size 4.
@"_CT??_R0H@84" = linkonce_odr unnamed_addr constant %eh.CatchableType { i32 1, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"??_R0H@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 4, i32 0 }, section ".xdata", comdat
@_CTA1H = linkonce_odr unnamed_addr constant %eh.CatchableTypeArray.1 { i32 1, [1 x i32] [i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"_CT??_R0H@84" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)] }, section ".xdata", comdat
@_TI1H = linkonce_odr unnamed_addr constant %eh.ThrowInfo { i32 0, i32 0, i32 0, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @_CTA1H to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32) }, section ".xdata", comdat

; Derived (size 8) and its base Base at offset 0 (mdisp 0, pdisp -1, vdisp 0).
@"_CT??_R0?AUDerived@@@88" = linkonce_odr unnamed_addr constant %eh.CatchableType { i32 0, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"??_R0?AUDerived@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 8, i32 0 }, section ".xdata", comdat
@"_CT??_R0?AUBase@@@84" = linkonce_odr unnamed_addr constant %eh.CatchableType { i32 0, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"??_R0?AUBase@@@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 4, i32 0 }, section ".xdata", comdat
@"_CTA2?AUDerived@@" = linkonce_odr unnamed_addr constant %eh.CatchableTypeArray.2 { i32 2, [2 x i32] [i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"_CT??_R0?AUDerived@@@88" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"_CT??_R0?AUBase@@@84" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)] }, section ".xdata", comdat
@"_TI2?AUDerived@@" = linkonce_odr unnamed_addr constant %eh.ThrowInfo { i32 0, i32 0, i32 0, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"_CTA2?AUDerived@@" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32) }, section ".xdata", comdat

$"??_R0H@8" = comdat any
$"??_R0?AUDerived@@@8" = comdat any
$"??_R0?AUBase@@@8" = comdat any
$"_CT??_R0H@84" = comdat any
$_CTA1H = comdat any
$_TI1H = comdat any
$"_CT??_R0?AUDerived@@@88" = comdat any
$"_CT??_R0?AUBase@@@84" = comdat any
$"_CTA2?AUDerived@@" = comdat any
$"_TI2?AUDerived@@" = comdat any

@.str.obj = private constant [9 x i8] c"~Obj %d\0A\00"
@.str.int = private constant [15 x i8] c"caught int %d\0A\00"
@.str.base = private constant [16 x i8] c"caught Base %d\0A\00"
@.str.outer = private constant [17 x i8] c"outer caught %d\0A\00"
@.str.unreached = private constant [12 x i8] c"not reached\00"
@.str.rethrow = private constant [11 x i8] c"rethrowing\00"
@.str.done = private constant [5 x i8] c"done\00"

declare dso_local void @_CxxThrowException(ptr, ptr)
declare dso_local i32 @__CxxFrameHandler3(...)
declare dso_local i32 @printf(ptr, ...)
declare dso_local i32 @puts(ptr)
declare dso_local void @exit(i32) noreturn

define dso_local void @obj_dtor(ptr %this) {
entry:
  %v = load i32, ptr %this
  %r = call i32 (ptr, ...) @printf(ptr @.str.obj, i32 %v)
  ret void
}

define dso_local void @thrower(i32 %k) {
entry:
  %int.tmp = alloca i32
  %derived.tmp = alloca %struct.Derived
  %is1 = icmp eq i32 %k, 1
  br i1 %is1, label %throw.int, label %check2
throw.int:
  store i32 42, ptr %int.tmp
  call void @_CxxThrowException(ptr %int.tmp, ptr @_TI1H) noreturn
  unreachable
check2:
  %is2 = icmp eq i32 %k, 2
  br i1 %is2, label %throw.derived, label %ret
throw.derived:
  store i32 7, ptr %derived.tmp
  %y = getelementptr inbounds i8, ptr %derived.tmp, i64 4
  store i32 8, ptr %y
  call void @_CxxThrowException(ptr %derived.tmp, ptr @"_TI2?AUDerived@@") noreturn
  unreachable
ret:
  ret void
}

define dso_local i32 @main() personality ptr @__CxxFrameHandler3 {
entry:
  %o = alloca i32
  %inner = alloca i32
  %e = alloca i32
  %b = alloca ptr
  %e2 = alloca ptr
  store i32 1, ptr %o
  invoke void @thrower(i32 1) to label %try.body.cont unwind label %ehcleanup

try.body.cont:
  %u = call i32 @puts(ptr @.str.unreached)
  call void @obj_dtor(ptr %o)
  br label %try.cont

ehcleanup:                                       ; ~Obj o while unwinding
  %c0 = cleanuppad within none []
  call void @obj_dtor(ptr %o) [ "funclet"(token %c0) ]
  cleanupret from %c0 unwind label %catch.dispatch

catch.dispatch:
  %cs0 = catchswitch within none [label %catch.int] unwind to caller

catch.int:
  %cp0 = catchpad within %cs0 [ptr @"??_R0H@8", i32 0, ptr %e]
  %ev = load i32, ptr %e
  %p1 = call i32 (ptr, ...) @printf(ptr @.str.int, i32 %ev) [ "funclet"(token %cp0) ]
  store i32 2, ptr %inner
  invoke void @thrower(i32 2) [ "funclet"(token %cp0) ]
          to label %inner.cont unwind label %inner.cleanup

inner.cont:
  call void @obj_dtor(ptr %inner) [ "funclet"(token %cp0) ]
  br label %inner.done

inner.cleanup:                                   ; ~Obj inner, nested in the catch
  %c1 = cleanuppad within %cp0 []
  call void @obj_dtor(ptr %inner) [ "funclet"(token %c1) ]
  cleanupret from %c1 unwind label %inner.dispatch

inner.dispatch:
  %cs1 = catchswitch within %cp0 [label %catch.base] unwind to caller

catch.base:
  %cp1 = catchpad within %cs1 [ptr @"??_R0?AUBase@@@8", i32 8, ptr %b]
  %bp = load ptr, ptr %b
  %bx = load i32, ptr %bp
  %p2 = call i32 (ptr, ...) @printf(ptr @.str.base, i32 %bx) [ "funclet"(token %cp1) ]
  catchret from %cp1 to label %inner.done

inner.done:
  catchret from %cp0 to label %try.cont

try.cont:
  invoke void @thrower(i32 1) to label %second.cont unwind label %dispatch2

second.cont:
  br label %second.done

dispatch2:
  %cs2 = catchswitch within none [label %catch.all] unwind label %dispatch3

catch.all:
  %cp2 = catchpad within %cs2 [ptr null, i32 64, ptr null]
  %r1 = call i32 @puts(ptr @.str.rethrow) [ "funclet"(token %cp2) ]
  invoke void @_CxxThrowException(ptr null, ptr null) [ "funclet"(token %cp2) ]
          to label %unreachable unwind label %dispatch3

dispatch3:
  %cs3 = catchswitch within none [label %catch.int2] unwind to caller

catch.int2:
  %cp3 = catchpad within %cs3 [ptr @"??_R0H@8", i32 8, ptr %e2]
  %e2p = load ptr, ptr %e2
  %ev2 = load i32, ptr %e2p
  %p3 = call i32 (ptr, ...) @printf(ptr @.str.outer, i32 %ev2) [ "funclet"(token %cp3) ]
  catchret from %cp3 to label %second.done

second.done:
  %d = call i32 @puts(ptr @.str.done)
  call void @exit(i32 0)
  unreachable

unreachable:
  unreachable
}
