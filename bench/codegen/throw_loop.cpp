// Every iteration throws through a cleanup (the guard's destructor) into a typed catch.
#include <cstdio>

struct Guard {
  int id;
  Guard(int i);
  ~Guard();
};
void thrower(int i);
int bench_iterations(int fallback);

long long run(int n) {
  long long caught = 0;
  for (int i = 0; i < n; ++i) {
    try {
      Guard g(i);
      thrower(i);
    } catch (int v) {
      caught += v;
    }
  }
  return caught;
}

int main() {
  printf("%lld\n", run(bench_iterations(1500000)));
  return 0;
}
