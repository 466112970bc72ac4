// A class operator new throws std::bad_alloc when its fixed pool is exhausted.
#include <cstdio>
#include <new>

class Pooled {
public:
  static void *operator new(std::size_t size) {
    if (used_ + size > sizeof pool_)
      throw std::bad_alloc();
    void *p = pool_ + used_;
    used_ += size;
    return p;
  }
  static void operator delete(void *) { std::printf("pool delete\n"); }
  Pooled() { ++count; }
  ~Pooled() { --count; }
  static int count;

private:
  long long payload_[4];
  alignas(8) static unsigned char pool_[100];
  static std::size_t used_;
};
alignas(8) unsigned char Pooled::pool_[100];
std::size_t Pooled::used_ = 0;
int Pooled::count = 0;

int main() {
  int made = 0;
  try {
    for (;;) {
      new Pooled;
      ++made;
    }
  } catch (const std::bad_alloc &) {
    std::printf("bad_alloc after %d objects\n", made);
  }
  try {
    new Pooled;
  } catch (std::exception &) {
    std::printf("caught as std::exception, count %d\n", Pooled::count);
  }
  return made;
}
