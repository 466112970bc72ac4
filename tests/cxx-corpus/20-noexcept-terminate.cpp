// An exception leaving a noexcept function calls std::terminate; the handler prints and exits.
#include <cstdio>
#include <cstdlib>
#include <exception>

struct Noisy {
  ~Noisy() { std::printf("~Noisy\n"); }
};

static void risky(int v) {
  if (v > 1)
    throw v;
}

static void promise(int v) noexcept {
  std::printf("promise %d\n", v);
  risky(v);
  std::printf("kept %d\n", v);
}

static void handler() {
  std::printf("terminate handler\n");
  std::exit(5);
}

int main() {
  std::set_terminate(handler);
  promise(1);
  try {
    promise(2);
  } catch (int) {
    std::printf("not reached\n");
  }
  return 0;
}
