// A by-value catch parameter whose copy constructor throws: std::terminate on Itanium.
#include <cstdio>
#include <cstdlib>
#include <exception>

struct Picky {
  int id;
  explicit Picky(int i) : id(i) {}
  Picky(const Picky &other) : id(other.id) {
    std::printf("copying %d\n", id);
    if (id == 2)
      throw 99;
  }
  ~Picky() { std::printf("~Picky(%d)\n", id); }
};

static void handler() {
  std::printf("terminate\n");
  std::exit(11);
}

int main() {
  std::set_terminate(handler);
  try {
    throw Picky(1);
  } catch (Picky p) {
    std::printf("caught copy of %d\n", p.id);
  }
  try {
    throw Picky(2);
  } catch (Picky p) {
    std::printf("not reached %d\n", p.id);
  } catch (int e) {
    std::printf("sibling handler got %d\n", e);
  }
  return 0;
}
