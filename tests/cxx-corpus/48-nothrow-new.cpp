// new (std::nothrow) returns a pointer instead of throwing; delete on null does nothing.
#include <cstdio>
#include <new>

struct Block {
  int data[4];
  Block() { std::printf("Block\n"); }
  ~Block() { std::printf("~Block\n"); }
};

int main() {
  Block *b = new (std::nothrow) Block;
  std::printf("allocated %d\n", b != nullptr);
  delete b;
  int *numbers = new (std::nothrow) int[8];
  for (int i = 0; i < 8; ++i)
    numbers[i] = i * i;
  std::printf("numbers[7] %d\n", numbers[7]);
  delete[] numbers;
  Block *none = nullptr;
  delete none;
  return 0;
}
