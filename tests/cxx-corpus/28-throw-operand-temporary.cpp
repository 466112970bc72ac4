// A temporary with a destructor inside the throw operand: `throw Ex(Tmp(3).get())`.
#include <cstdio>

struct Tmp {
  int v;
  explicit Tmp(int value) : v(value) { std::printf("Tmp(%d)\n", v); }
  ~Tmp() { std::printf("~Tmp(%d)\n", v); }
  int get() const { return v; }
};

struct Ex {
  int code;
  explicit Ex(int c) : code(c) { std::printf("Ex(%d)\n", code); }
  Ex(const Ex &other) : code(other.code) { std::printf("Ex(copy %d)\n", code); }
  ~Ex() { std::printf("~Ex(%d)\n", code); }
};

int main() {
  int status = 0;
  try {
    throw Ex(Tmp(3).get());
  } catch (const Ex &e) {
    std::printf("caught Ex %d\n", e.code);
    status = e.code;
  }
  try {
    throw Ex(Tmp(4).get() + Tmp(5).get());
  } catch (Ex &e) {
    std::printf("caught Ex %d\n", e.code);
    status += e.code;
  }
  return status;
}
