// Forced unwinding (`_Unwind_ForcedUnwind`, what thread cancellation uses), modelled on
// libgcc and libstdc++: the stop function is asked before each frame is unwound; a stop
// function that refuses before anything ran makes the call return
// `_URC_FATAL_PHASE2_ERROR`; cleanups run, typed handlers are passed by, `catch (...)`
// catches it (a handler that does not rethrow ends it and `exception_cleanup` runs with
// `_URC_FOREIGN_EXCEPTION_CAUGHT`; one that rethrows lets it go on); past the outermost
// frame the stop function sees `_UA_END_OF_STACK`. Checked against g++ (the oracle) at
// every interpreter phase and natively.
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 7
// RUN: %ehir run --phase all %s > %t.run 2> %t.err; test $? -eq 7
// RUN: diff %t.expected %t.run
// RUN: FileCheck %s < %t.err
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 7
// RUN: diff %t.expected %t.native
// CHECK: verdict: phases structured, flat, itanium agree; the program exited with status 7
#include <cstdio>
#include <cstdlib>
#include <unwind.h>

static int refuse = 0;
static int log_bits = 0;

static _Unwind_Reason_Code stop(int version, _Unwind_Action actions,
                                _Unwind_Exception_Class, _Unwind_Exception *,
                                _Unwind_Context *, void *parameter) {
  if (version != 1 || !(actions & _UA_FORCE_UNWIND) || !(actions & _UA_CLEANUP_PHASE))
    std::abort();
  if (actions & _UA_END_OF_STACK) {
    std::printf("end of stack: %s, log %d\n", static_cast<const char *>(parameter),
                log_bits);
    std::fflush(stdout);
    std::exit(7);
  }
  return refuse ? _URC_NORMAL_STOP : _URC_NO_REASON;
}

static void cleanup(_Unwind_Reason_Code reason, _Unwind_Exception *) {
  std::printf("exception_cleanup(%d)\n", static_cast<int>(reason));
}

struct Logger {
  int bit;
  explicit Logger(int b) : bit(b) {}
  ~Logger() {
    log_bits |= bit;
    std::printf("~Logger(%d)\n", bit);
  }
};

static int force(const char *why) {
  _Unwind_Exception *exc = new _Unwind_Exception;
  exc->exception_class = 0;
  exc->exception_cleanup = cleanup;
  int code = _Unwind_ForcedUnwind(exc, stop, const_cast<char *>(why));
  std::printf("_Unwind_ForcedUnwind returned %d\n", code);
  return code;
}

static void inner(const char *why) {
  Logger one(1);
  try {
    force(why);
  } catch (int) {
    std::printf("catch (int): never\n");
  }
}

static void stopped_by_catch_all() {
  try {
    Logger two(2);
    inner("first");
  } catch (...) {
    std::printf("catch (...) ends it, log %d\n", log_bits);
  }
}

static void rethrown_by_catch_all() {
  Logger four(4);
  try {
    inner("second");
  } catch (...) {
    std::printf("catch (...) rethrows, log %d\n", log_bits);
    throw;
  }
}

int main() {
  refuse = 1;
  int code = force("refused");
  std::printf("refused: %d\n", code);
  refuse = 0;
  stopped_by_catch_all();
  log_bits = 0;
  try {
    rethrown_by_catch_all();
  } catch (int) {
    std::printf("catch (int) in main: never\n");
  }
  std::printf("not reached\n");
  return 1;
}
