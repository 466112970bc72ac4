// Temporaries live until the end of their full expression, also when it throws.
#include <cstdio>

struct Tmp {
  int v;
  explicit Tmp(int value) : v(value) { std::printf("Tmp(%d)\n", v); }
  ~Tmp() { std::printf("~Tmp(%d)\n", v); }
  int get() const { return v; }
};

static int check(int a, int b) {
  if (a + b > 10)
    throw a + b;
  return a + b;
}

static const Tmp &pass(const Tmp &t) { return t; }

int main() {
  int r = check(Tmp(1).get(), Tmp(2).get());
  std::printf("r = %d\n", r);
  try {
    r = check(Tmp(5).get(), Tmp(6).get()) + Tmp(100).get();
  } catch (int sum) {
    std::printf("caught %d\n", sum);
  }
  int len = pass(Tmp(9)).get();
  std::printf("len %d\n", len);
  const Tmp &kept = Tmp(11);
  std::printf("kept %d\n", kept.get());
  return r;
}
