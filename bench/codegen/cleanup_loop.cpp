// The hot path calls through a cleanup scope and never throws: a guard object per
// iteration, a call that may throw, and a `continue` that leaves through the cleanup.
#include <cstdio>

struct Guard {
  int id;
  Guard(int i);
  ~Guard();
};
int step(int i);
int bench_iterations(int fallback);

long long run(int n) {
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    Guard g(i);
    sum += step(i);
    if (i % 7 == 0)
      continue;
    sum ^= i;
  }
  return sum;
}

int main() {
  printf("%lld\n", run(bench_iterations(300000000)));
  return 0;
}
