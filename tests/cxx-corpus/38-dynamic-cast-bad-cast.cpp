// A failing dynamic_cast to a reference throws std::bad_cast.
#include <cstdio>
#include <typeinfo>

struct Animal {
  virtual ~Animal() {}
};
struct Dog : Animal {
  int barks = 3;
};
struct Cat : Animal {};

static int barks(Animal &a) { return dynamic_cast<Dog &>(a).barks; }

int main() {
  Dog d;
  Cat c;
  int status = barks(d);
  std::printf("dog barks %d\n", status);
  try {
    barks(c);
  } catch (const std::bad_cast &) {
    std::printf("cat is not a dog\n");
    status += 10;
  }
  try {
    barks(c);
  } catch (const std::exception &) {
    std::printf("bad_cast is a std::exception\n");
    status += 100;
  }
  return status;
}
