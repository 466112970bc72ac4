// <cassert> checks that hold, next to exceptions that report broken input.
#include <cassert>
#include <cstdio>

struct Stack {
  int items[8];
  int size = 0;
  void push(int v) {
    if (size == 8)
      throw size;
    items[size++] = v;
    assert(size > 0 && size <= 8);
  }
  int pop() {
    assert(size > 0);
    return items[--size];
  }
};

int main() {
  Stack s;
  int pushed = 0;
  try {
    for (int i = 0; i < 10; ++i) {
      s.push(i * i);
      ++pushed;
    }
  } catch (int full) {
    std::printf("full at %d\n", full);
  }
  assert(pushed == 8);
  int top = s.pop();
  std::printf("pushed %d, top %d\n", pushed, top);
  assert(top == 49);
  return pushed;
}
