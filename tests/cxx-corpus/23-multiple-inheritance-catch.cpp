// An exception class with two bases is caught by a handler for either base.
#include <cstdio>

struct IoError {
  int io = 1;
  virtual ~IoError() {}
};
struct Retryable {
  int attempts = 3;
  virtual ~Retryable() {}
};
struct Timeout : IoError, Retryable {
  int millis;
  explicit Timeout(int ms) : millis(ms) {}
};

static void fail(int which) {
  if (which == 0)
    throw Timeout(250);
  throw IoError();
}

int main() {
  int status = 0;
  try {
    fail(0);
  } catch (Retryable &r) {
    std::printf("retryable, %d attempts\n", r.attempts);
    Timeout *t = dynamic_cast<Timeout *>(&r);
    std::printf("timeout %d ms\n", t ? t->millis : -1);
    status += r.attempts;
  }
  try {
    fail(0);
  } catch (const IoError &e) {
    std::printf("io error %d\n", e.io);
    status += 10;
  }
  try {
    try {
      fail(1);
    } catch (Retryable &) {
      std::printf("not retryable: not reached\n");
    }
  } catch (IoError &e) {
    std::printf("plain io error %d\n", e.io);
    status += 100;
  }
  return status;
}
