// Lambdas capturing by value and by reference, called from destructors during unwinding.
#include <cstdio>

template <typename F> struct OnExit {
  F action;
  ~OnExit() { action(); }
};

template <typename F> OnExit<F> on_exit(F action) { return OnExit<F>{action}; }

static int steps = 0;

static void stage(int depth) {
  int local = depth * 10;
  auto note = on_exit([&local, depth] {
    ++steps;
    std::printf("exit stage %d (local %d)\n", depth, local);
  });
  local += 1;
  if (depth == 3)
    throw depth;
  stage(depth + 1);
}

int main() {
  auto counter = [](int from) {
    int count = from;
    return [count]() mutable { return ++count; };
  };
  auto next = counter(5);
  std::printf("%d %d\n", next(), next());
  try {
    stage(1);
  } catch (int depth) {
    std::printf("caught at depth %d after %d steps\n", depth, steps);
  }
  auto thrower = [](int v) -> int {
    if (v > 2)
      throw v * 2;
    return v;
  };
  int sum = 0;
  for (int v = 0; v < 5; ++v) {
    try {
      sum += thrower(v);
    } catch (int doubled) {
      sum += doubled;
    }
  }
  std::printf("sum %d\n", sum);
  return sum;
}
