// Overloaded operators that throw: checked arithmetic and a bounds-checked subscript.
#include <cstdio>
#include <exception>

struct Overflow : std::exception {
  const char *what() const noexcept override { return "overflow"; }
};
struct OutOfRange : std::exception {
  int index;
  explicit OutOfRange(int i) : index(i) {}
  const char *what() const noexcept override { return "out of range"; }
};

class Small {
public:
  explicit Small(int v) : value_(v) {}
  Small operator+(const Small &other) const {
    int sum = value_ + other.value_;
    if (sum > 100)
      throw Overflow();
    return Small(sum);
  }
  Small &operator+=(const Small &other) { return *this = *this + other; }
  bool operator==(const Small &other) const { return value_ == other.value_; }
  int get() const { return value_; }

private:
  int value_;
};

class Buffer {
public:
  int &operator[](int i) {
    if (i < 0 || i >= 4)
      throw OutOfRange(i);
    return data_[i];
  }

private:
  int data_[4] = {0, 0, 0, 0};
};

int main() {
  Small a(40), b(50);
  Small c = a + b;
  std::printf("c = %d, equal %d\n", c.get(), c == Small(90));
  try {
    c += b;
  } catch (const std::exception &e) {
    std::printf("%s, c still %d\n", e.what(), c.get());
  }
  Buffer buf;
  int status = 0;
  for (int i = 2; i < 6; ++i) {
    try {
      buf[i] = i;
      std::printf("buf[%d] = %d\n", i, buf[i]);
    } catch (const OutOfRange &e) {
      std::printf("%s: %d\n", e.what(), e.index);
      status += e.index;
    }
  }
  return status;
}
