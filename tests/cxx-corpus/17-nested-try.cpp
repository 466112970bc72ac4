// Try blocks nested in try blocks and in handlers; inner handlers decline types they do not name.
#include <cstdio>

struct Guard {
  int id;
  ~Guard() { std::printf("~Guard %d\n", id); }
};

static int classify(int n) {
  int result = 0;
  try {
    Guard g1{1};
    try {
      Guard g2{2};
      if (n == 0)
        throw 'c';
      if (n == 1)
        throw 1.5;
      throw n;
    } catch (char c) {
      std::printf("inner char %c\n", c);
      result = 1;
      try {
        throw 2L;
      } catch (long v) {
        std::printf("handler's own try %ld\n", v);
        result += static_cast<int>(v);
      }
    }
  } catch (double d) {
    std::printf("outer double %.1f\n", d);
    result = 10;
  } catch (int i) {
    std::printf("outer int %d\n", i);
    result = 20 + i;
  }
  return result;
}

int main() {
  int total = 0;
  for (int n = 0; n < 3; ++n)
    total += classify(n);
  std::printf("total %d\n", total);
  return total;
}
