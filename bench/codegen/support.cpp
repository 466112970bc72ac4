// The callees of the codegen benchmarks, compiled by g++ -O2 into both builds so that
// only the code around the calls differs: a guard object with an out-of-line
// constructor and destructor, a step that may throw (but does not), and a thrower.
#include <cstdlib>

volatile int sink;

struct Guard {
  int id;
  Guard(int i);
  ~Guard();
};
Guard::Guard(int i) : id(i) { sink = i; }
Guard::~Guard() { sink = id; }

int step(int i) { return (i & 3) + sink; }

void thrower(int i) { throw i; }

// BENCH_N overrides the benchmark's iteration count.
int bench_iterations(int fallback) {
  const char *n = getenv("BENCH_N");
  return n ? atoi(n) : fallback;
}
