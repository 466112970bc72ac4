// new T[n] where an element's constructor throws: the built elements are destroyed in
// reverse and the class's operator delete[] frees the array.
#include <cstdio>
#include <cstdlib>
#include <new>

struct Cell {
  static int made;
  int id;
  Cell() : id(made) {
    if (made == 3)
      throw made;
    ++made;
    std::printf("Cell %d\n", id);
  }
  ~Cell() { std::printf("~Cell %d\n", id); }
  static void *operator new[](std::size_t size) {
    std::printf("Cell::new[]\n");
    return std::malloc(size);
  }
  static void operator delete[](void *p) {
    std::printf("Cell::delete[]\n");
    std::free(p);
  }
};
int Cell::made = 0;

int main() {
  Cell *two = new Cell[2];
  delete[] two;
  Cell::made = 1;
  try {
    Cell *many = new Cell[5];
    delete[] many;
  } catch (int at) {
    std::printf("constructor %d threw\n", at);
    return at;
  }
  return 0;
}
