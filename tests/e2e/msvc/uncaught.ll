; An exception that no handler catches, on the Microsoft runtime under wine: wine still
; unwinds (the callee's cleanup runs) and the process exits with status 99; output that
; was not flushed is lost. g++'s build calls std::terminate in the search phase instead
; (no cleanup, status 134). Tests of uncaught exceptions say so.
;   void thrower() { Obj o; throw 5; }   // ~Obj prints "cleanup"
;   int main() { puts("start"); thrower(); }
; Expected stdout (each line flushed): start / cleanup, exit status 99.

target triple = "x86_64-pc-windows-msvc"

%rtti.TypeDescriptor2 = type { ptr, ptr, [3 x i8] }
%eh.CatchableType = type { i32, i32, i32, i32, i32, i32, i32 }
%eh.CatchableTypeArray.1 = type { i32, [1 x i32] }
%eh.ThrowInfo = type { i32, i32, i32, i32 }

@__ImageBase = external dso_local constant i8
@"??_7type_info@@6B@" = private constant [2 x ptr] zeroinitializer
@"??_R0H@8" = linkonce_odr global %rtti.TypeDescriptor2 { ptr @"??_7type_info@@6B@", ptr null, [3 x i8] c".H\00" }, comdat
@"_CT??_R0H@84" = linkonce_odr unnamed_addr constant %eh.CatchableType { i32 1, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"??_R0H@8" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 4, i32 0 }, section ".xdata", comdat
@_CTA1H = linkonce_odr unnamed_addr constant %eh.CatchableTypeArray.1 { i32 1, [1 x i32] [i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @"_CT??_R0H@84" to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)] }, section ".xdata", comdat
@_TI1H = linkonce_odr unnamed_addr constant %eh.ThrowInfo { i32 0, i32 0, i32 0, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (ptr @_CTA1H to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32) }, section ".xdata", comdat
$"??_R0H@8" = comdat any
$"_CT??_R0H@84" = comdat any
$_CTA1H = comdat any
$_TI1H = comdat any

@.str.start = private constant [6 x i8] c"start\00"
@.str.cleanup = private constant [8 x i8] c"cleanup\00"

declare dso_local void @_CxxThrowException(ptr, ptr)
declare dso_local i32 @__CxxFrameHandler3(...)
declare dso_local i32 @puts(ptr)
declare dso_local i32 @fflush(ptr)

define dso_local void @thrower() personality ptr @__CxxFrameHandler3 {
entry:
  %x = alloca i32
  store i32 5, ptr %x
  invoke void @_CxxThrowException(ptr %x, ptr @_TI1H) to label %unreachable unwind label %cleanup
cleanup:
  %c = cleanuppad within none []
  %r = call i32 @puts(ptr @.str.cleanup) [ "funclet"(token %c) ]
  %f = call i32 @fflush(ptr null) [ "funclet"(token %c) ]
  cleanupret from %c unwind to caller
unreachable:
  unreachable
}

define dso_local i32 @main() {
entry:
  %r = call i32 @puts(ptr @.str.start)
  %f = call i32 @fflush(ptr null)
  call void @thrower()
  ret i32 0
}
