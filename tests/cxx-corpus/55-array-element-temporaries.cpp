// Each element of an array of classes is built in its own full expression: the
// temporary of its default argument is destroyed right after it, and if that
// destructor throws, the element (already built) is destroyed with those before it.
// clang-windows-not-oracle: Clang (for Linux and for Windows alike) does not destroy the element just built when the destructor of its default argument's temporary throws, which [except.ctor] and g++ do; Clang for Windows is no oracle for it.
#include <cstdio>

static int live = 0;
static int fail_at = -1;

struct Token {
  int serial;
  Token() : serial(live) {}
  ~Token() noexcept(false) {
    std::printf("  ~Token after element %d\n", serial);
    if (serial == fail_at)
      throw serial;
  }
};

struct Slot {
  int index;
  Slot(const Token &t = Token()) : index(live++) { std::printf("  Slot %d\n", index); }
  ~Slot() {
    --live;
    std::printf("  ~Slot %d\n", index);
  }
};

int main() {
  int caught = 0;
  for (fail_at = 0; fail_at <= 3; ++fail_at) {
    std::printf("fail at %d\n", fail_at);
    try {
      Slot slots[3];
      std::printf("  built %d\n", live);
    } catch (int at) {
      std::printf("  caught %d, live %d\n", at, live);
      caught += at + 1;
    }
  }
  return caught * 10 + live;
}
