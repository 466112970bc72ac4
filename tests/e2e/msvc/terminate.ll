; A noexcept boundary in the form eh-abi-lowering=msvc gives it when the boundary is the
; first handler an exception meets: a catch-all catchswitch whose catchpad calls
; std::terminate (`?terminate@@YAXXZ` of msvcrt). The runtime's search phase stops there,
; so the callee's cleanup runs, then the program terminates: msvcrt's terminate calls
; abort, exit status 3 (g++'s abort: 134).
;   void thrower() { Obj o; throw 5; }   // ~Obj prints "cleanup"
;   int main() noexcept { puts("start"); thrower(); }
; Expected stdout: start / cleanup / terminating, exit status 3.

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
@.str.terminating = private constant [12 x i8] c"terminating\00"

declare dso_local void @_CxxThrowException(ptr, ptr)
declare dso_local i32 @__CxxFrameHandler3(...)
declare dso_local i32 @puts(ptr)
declare dso_local i32 @fflush(ptr)
declare dso_local void @"?terminate@@YAXXZ"() noreturn

define dso_local void @thrower() personality ptr @__CxxFrameHandler3 {
entry:
  %x = alloca i32
  store i32 5, ptr %x
  invoke void @_CxxThrowException(ptr %x, ptr @_TI1H) to label %unreachable unwind label %cleanup
cleanup:
  %c = cleanuppad within none []
  %r = call i32 @puts(ptr @.str.cleanup) [ "funclet"(token %c) ]
  cleanupret from %c unwind to caller
unreachable:
  unreachable
}

define dso_local i32 @main() personality ptr @__CxxFrameHandler3 {
entry:
  %r = call i32 @puts(ptr @.str.start)
  invoke void @thrower() to label %unreachable unwind label %terminate.switch
terminate.switch:
  %cs = catchswitch within none [label %terminate.handler] unwind to caller
terminate.handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  %r2 = call i32 @puts(ptr @.str.terminating) [ "funclet"(token %cp) ]
  %f = call i32 @fflush(ptr null) [ "funclet"(token %cp) ]
  call void @"?terminate@@YAXXZ"() [ "funclet"(token %cp) ]
  unreachable
unreachable:
  unreachable
}
