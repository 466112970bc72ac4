// An ordinary function's function-try-block returns a value from its handler.
#include <cstdio>

struct Temp {
  ~Temp() { std::printf("~Temp\n"); }
};

static int divide(int a, int b) try {
  Temp t;
  if (b == 0)
    throw "division by zero";
  return a / b;
} catch (const char *message) {
  std::printf("error: %s\n", message);
  return -1;
}

int main() {
  int q1 = divide(10, 3);
  int q2 = divide(1, 0);
  std::printf("%d %d\n", q1, q2);
  return q1 - q2;
}
