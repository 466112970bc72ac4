// Functions returning objects by value: the returned object is destroyed exactly once,
// also when a later step throws.
#include <cstdio>

struct Value {
  int v;
  explicit Value(int x) : v(x) { std::printf("Value(%d)\n", v); }
  Value(const Value &other) : v(other.v) { std::printf("Value(copy %d)\n", v); }
  ~Value() { std::printf("~Value(%d)\n", v); }
};

static Value make(int x) {
  Value result(x);
  if (x < 0)
    throw x;
  result.v += 1;
  return result;
}

static Value pick(bool first) { return first ? Value(10) : make(20); }

int main() {
  Value a = make(1);
  Value b = pick(false);
  int status = a.v + b.v;
  try {
    Value c = make(-3);
    status = 0;
  } catch (int e) {
    std::printf("make(%d) threw\n", e);
  }
  std::printf("status %d\n", status);
  return status;
}
