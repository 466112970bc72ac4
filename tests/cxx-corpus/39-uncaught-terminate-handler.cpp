// An exception nobody catches calls the terminate handler, which prints and exits.
#include <cstdio>
#include <cstdlib>
#include <exception>

struct Session {
  ~Session() { std::printf("~Session\n"); }
};

static void last_words() {
  std::printf("uncaught, terminating\n");
  std::exit(9);
}

static void fail() {
  Session s;
  throw 1;
}

int main() {
  std::set_terminate(last_words);
  std::printf("start\n");
  fail();
  return 0;
}
