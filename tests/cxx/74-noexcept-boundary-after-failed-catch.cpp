// A noexcept function whose try does not catch the exception, called where a handler
// further out would catch it: the search finds that handler, so the frames nearer the
// throw unwind first and the cleanup inside the try runs; then std::terminate is called
// right after the failed match -- the object between the try and the noexcept boundary
// is never destroyed. (g++'s behaviour, which every phase and both ABIs reproduce.
// main reaches the noexcept function through a global function pointer, so that no
// optimizer can see that this call only reaches a noexcept function and drop main's
// handler: the search would then fail and std::terminate run before anything unwinds,
// which C++ also allows.)
#include <stdio.h>
#include <stdlib.h>
#include <exception>

struct Noisy {
  int id;
  Noisy(int i) : id(i) { printf("Noisy(%d)\n", id); }
  ~Noisy() { printf("~Noisy(%d)\n", id); }
};

void on_terminate() {
  printf("terminate handler called\n");
  exit(5);
}

void thrower() {
  Noisy n(1);
  throw 42;
}

void middle() {
  Noisy n(2);
  thrower();
}

void guarded() noexcept {
  Noisy outer(3);
  try {
    Noisy inner(4);
    middle();
  } catch (float) {
    printf("float, not reached\n");
  }
  printf("not reached either\n");
}

void wrapper(int mode) {
  if (mode == 0)
    throw 7;
  guarded();
}

void (*call_wrapper)(int) = wrapper;

int main() {
  std::set_terminate(on_terminate);
  try {
    call_wrapper(0);
  } catch (int i) {
    printf("caught %d\n", i);
  }
  try {
    call_wrapper(1);
  } catch (int i) {
    printf("caught %d, not reached\n", i);
  }
  return 0;
}
