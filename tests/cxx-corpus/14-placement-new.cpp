// Placement new into a buffer, an explicit destructor call, and a class placement
// operator new whose matching placement delete runs when the constructor throws.
#include <cstdio>
#include <new>

struct Arena {
  alignas(8) unsigned char bytes[256];
  unsigned used = 0;
  void *take(unsigned n) {
    void *p = bytes + used;
    used += (n + 7) & ~7u;
    return p;
  }
};

struct Widget {
  int id;
  explicit Widget(int i) : id(i) {
    if (i == 3)
      throw i;
    std::printf("Widget(%d)\n", id);
  }
  ~Widget() { std::printf("~Widget(%d)\n", id); }
  static void *operator new(std::size_t size, Arena &arena) {
    std::printf("arena new\n");
    return arena.take(static_cast<unsigned>(size));
  }
  static void operator delete(void *, Arena &arena) {
    std::printf("arena delete (used %u)\n", arena.used);
  }
};

int main() {
  alignas(Widget) unsigned char storage[sizeof(Widget)];
  Widget *w = ::new (storage) Widget(1);
  w->~Widget();
  Arena arena;
  Widget *x = new (arena) Widget(2);
  std::printf("x->id %d\n", x->id);
  x->~Widget();
  try {
    new (arena) Widget(3);
  } catch (int v) {
    std::printf("threw %d\n", v);
  }
  return static_cast<int>(arena.used);
}
