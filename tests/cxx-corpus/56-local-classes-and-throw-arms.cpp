// Classes declared inside functions, and conditional expressions with a throw arm:
// the arm that throws builds nothing, and the temporaries of the other arm live only
// on its path.
#include <cstdio>

struct Reading {
  int value;
  explicit Reading(int v) : value(v) { std::printf("  Reading(%d)\n", value); }
  Reading(const Reading &other) : value(other.value) { std::printf("  copy Reading(%d)\n", value); }
  ~Reading() { std::printf("  ~Reading(%d)\n", value); }
};

static Reading sample(int raw) {
  struct Guard {
    int raw;
    ~Guard() { std::printf("  sample(%d) done\n", raw); }
  } guard{raw};
  return raw >= 0 ? Reading(raw * 2) : throw raw;
}

static int check(bool ok, int code) {
  struct Counter {
    static int &count() {
      static int n = 0;
      return n;
    }
  };
  ++Counter::count();
  ok ? (void)std::printf("  ok %d\n", code) : throw Reading(code);
  return Counter::count();
}

int main() {
  int status = 0;
  const int raws[] = {3, -4};
  for (int raw : raws) {
    std::printf("raw %d\n", raw);
    try {
      Reading r = sample(raw);
      status += r.value;
    } catch (int bad) {
      std::printf("  rejected %d\n", bad);
      status += 100;
    }
  }
  try {
    check(true, 1);
    check(false, 7);
  } catch (const Reading &r) {
    std::printf("caught Reading(%d), calls %d\n", r.value, check(true, 2));
    status += r.value;
  }
  return status;
}
