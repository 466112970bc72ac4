// The standard exceptions' own what() texts, and pointers to pointers thrown and
// caught (their typeinfo objects are the program's: the runtime has those of pointers
// to fundamental types only).
#include <cstdio>
#include <exception>
#include <new>
#include <typeinfo>

struct Base {
  virtual ~Base() {}
};
struct Other : Base {};

static int value = 42;
static int *pointer = &value;

int main() {
  int status = 0;
  try {
    throw std::exception();
  } catch (const std::exception &e) {
    std::printf("%s\n", e.what());
    status += 1;
  }
  try {
    Base b;
    Other &o = dynamic_cast<Other &>(b);
    (void)o;
  } catch (const std::bad_cast &) {
    std::printf("bad cast\n");
    status += 2;
  }
  try {
    throw std::bad_alloc();
  } catch (const std::exception &e) {
    std::printf("%s\n", e.what());
    status += 4;
  }
  try {
    throw &pointer;
  } catch (int *const *p) {
    std::printf("through int *const *: %d\n", **p);
    status += 8;
  }
  try {
    throw &pointer;
  } catch (void *p) {
    std::printf("as void *: %s\n", p == &pointer ? "same" : "other");
    status += 16;
  }
  return status;
}
