// Class arguments passed by value, with a callee that throws: when is each copy destroyed?
#include <cstdio>

struct Arg {
  int v;
  explicit Arg(int value) : v(value) { std::printf("Arg(%d)\n", v); }
  Arg(const Arg &other) : v(other.v) { std::printf("Arg(copy %d)\n", v); }
  ~Arg() { std::printf("~Arg(%d)\n", v); }
};

static int consume(Arg a, Arg b) {
  std::printf("consume %d %d\n", a.v, b.v);
  if (a.v + b.v > 5)
    throw a.v + b.v;
  return a.v + b.v;
}

int main() {
  Arg x(1);
  int r = consume(x, Arg(2));
  std::printf("r = %d\n", r);
  try {
    consume(Arg(3), Arg(4));
  } catch (int sum) {
    std::printf("caught %d\n", sum);
    r += sum;
  }
  return r;
}
