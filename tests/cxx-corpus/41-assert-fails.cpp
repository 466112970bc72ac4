// A failing assert aborts (the message goes to stderr; only the status is recorded).
#include <cassert>
#include <cstdio>

static int half(int v) {
  assert(v % 2 == 0);
  return v / 2;
}

int main() {
  std::printf("half of 8 is %d\n", half(8));
  std::fflush(stdout);
  std::printf("half of 7 is %d\n", half(7));
  return 0;
}
