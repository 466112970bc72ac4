// A function template applies a lambda to each element; the lambda throws part way and
// the template's RAII helper restores state.
#include <cstdio>

template <typename T> class Restore {
public:
  explicit Restore(T &slot) : slot_(slot), saved_(slot) {}
  ~Restore() {
    std::printf("restore %d\n", static_cast<int>(saved_));
    slot_ = saved_;
  }

private:
  T &slot_;
  T saved_;
};

template <typename T, int N, typename F> int for_each_counted(T (&items)[N], F f) {
  int done = 0;
  for (T &item : items) {
    f(item);
    ++done;
  }
  return done;
}

static int mode = 1;

int main() {
  int values[] = {1, 2, 3, 4, 5};
  int total = 0;
  int done = for_each_counted(values, [&total](int v) { total += v; });
  std::printf("done %d total %d\n", done, total);
  try {
    Restore<int> keep(mode);
    mode = 7;
    for_each_counted(values, [](int &v) {
      if (v == 3)
        throw v;
      v *= 10;
    });
  } catch (int at) {
    std::printf("stopped at %d, mode %d\n", at, mode);
  }
  std::printf("values %d %d %d\n", values[0], values[1], values[2]);
  return values[1] + mode;
}
