// typeid of a caught polymorphic exception names its dynamic type.
#include <cstdio>
#include <typeinfo>

struct Base {
  virtual ~Base() {}
};
struct Left : Base {};
struct Right : Base {};

static void raise(int which) {
  if (which == 0)
    throw Left();
  throw Right();
}

int main() {
  int status = 0;
  for (int which = 0; which < 2; ++which) {
    try {
      raise(which);
    } catch (const Base &e) {
      bool left = typeid(e) == typeid(Left);
      bool right = typeid(e) == typeid(Right);
      bool base = typeid(e) == typeid(Base);
      std::printf("left %d right %d base %d\n", left, right, base);
      status += left ? 1 : right ? 2 : 4;
    }
  }
  std::printf("int == int: %d, int == long: %d\n", typeid(int) == typeid(int), typeid(int) == typeid(long));
  return status;
}
