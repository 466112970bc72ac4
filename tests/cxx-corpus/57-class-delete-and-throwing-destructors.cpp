// Deallocation and destructors that throw: a virtual destructor's deleting variant
// releases the object with its class's operator delete, `::delete` with the global one;
// a placement new whose constructor throws calls the matching placement delete; and when
// a destructor throws while an array (a member, or one from new[]) is destroyed, the
// elements before it are destroyed too.
#include <cstdio>
#include <cstdlib>
#include <new>

static int released = 0;

struct Pooled {
  int id;
  explicit Pooled(int i) : id(i) {}
  virtual ~Pooled() { std::printf("~Pooled %d\n", id); }
  static void *operator new(std::size_t size) { return std::malloc(size); }
  static void operator delete(void *p) {
    std::printf("Pooled::operator delete\n");
    ++released;
    std::free(p);
  }
};

struct Special : Pooled {
  explicit Special(int i) : Pooled(i) {}
  ~Special() override { std::printf("~Special %d\n", id); }
};

struct Arena {
  char bytes[64];
};

struct Fragile {
  int id;
  explicit Fragile(int i) : id(i) {
    if (i < 0)
      throw i;
  }
  static void *operator new(std::size_t, Arena &arena) { return arena.bytes; }
  static void operator delete(void *, Arena &) { std::printf("placement delete\n"); }
};

static int alive = 0;

struct Cell {
  int value;
  Cell(int v = 0) : value(v) { ++alive; }
  ~Cell() noexcept(false) {
    --alive;
    std::printf("~Cell %d\n", value);
    if (value == 13)
      throw value;
  }
};

struct Row {
  Cell cells[3];
};

int main() {
  Pooled *p = new Special(1);
  delete p;
  Pooled *q = new Special(2);
  ::delete q;
  std::printf("released by the class: %d\n", released);

  Arena arena;
  try {
    new (arena) Fragile(-7);
  } catch (int code) {
    std::printf("Fragile failed %d\n", code);
  }

  try {
    Row row = {{Cell(1), Cell(13), Cell(3)}};
  } catch (int code) {
    std::printf("row: caught %d, alive %d\n", code, alive);
  }

  Cell *cells = new Cell[3];
  cells[1].value = 13;
  try {
    delete[] cells;
  } catch (int code) {
    std::printf("array: caught %d, alive %d\n", code, alive);
  }
  return released * 10 + alive;
}
