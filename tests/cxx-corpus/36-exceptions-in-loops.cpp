// Throwing inside loops with objects in the body; continue and break leave the scopes too.
#include <cstdio>

struct Step {
  int n;
  explicit Step(int i) : n(i) {}
  ~Step() { std::printf("~Step %d\n", n); }
};

static void maybe_throw(int i) {
  if (i % 3 == 2)
    throw i;
}

int main() {
  int caught = 0, skipped = 0;
  for (int i = 0; i < 10; ++i) {
    Step s(i);
    if (i == 1) {
      ++skipped;
      continue;
    }
    try {
      Step inner(100 + i);
      maybe_throw(i);
    } catch (int v) {
      ++caught;
      if (v == 8)
        break;
      continue;
    }
    std::printf("no throw at %d\n", i);
  }
  int k = 0;
  while (true) {
    try {
      if (++k == 4)
        throw k;
    } catch (int) {
      break;
    }
  }
  std::printf("caught %d skipped %d k %d\n", caught, skipped, k);
  return caught * 10 + k;
}
