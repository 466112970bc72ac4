// A handler changes the caught object by reference and rethrows it with `throw;`.
#include <cstdio>

struct Trace {
  int hops = 0;
  Trace() { std::printf("Trace()\n"); }
  Trace(const Trace &other) : hops(other.hops) { std::printf("Trace(copy)\n"); }
  ~Trace() { std::printf("~Trace(%d)\n", hops); }
};

static void inner() { throw Trace(); }

static void middle() {
  try {
    inner();
  } catch (Trace &t) {
    ++t.hops;
    std::printf("middle saw %d\n", t.hops);
    throw;
  }
}

static void outer() {
  try {
    middle();
  } catch (...) {
    std::printf("outer rethrows\n");
    throw;
  }
}

int main() {
  try {
    outer();
  } catch (const Trace &t) {
    std::printf("main got %d hops\n", t.hops);
    return t.hops;
  }
  return 0;
}
