// Catching a base by value copies (slices) the exception; by reference keeps it whole.
#include <cstdio>

struct Base {
  virtual ~Base() {}
  virtual const char *name() const { return "Base"; }
};
struct Derived : Base {
  const char *name() const override { return "Derived"; }
};

int main() {
  int status = 0;
  try {
    throw Derived();
  } catch (Base b) {
    std::printf("by value: %s\n", b.name());
    status += 1;
  }
  try {
    throw Derived();
  } catch (Base &b) {
    std::printf("by reference: %s\n", b.name());
    status += 10;
  }
  try {
    try {
      throw Derived();
    } catch (Base b) {
      std::printf("rethrowing from the copy's handler\n");
      throw;
    }
  } catch (Derived &d) {
    std::printf("rethrow keeps: %s\n", d.name());
    status += 100;
  }
  return status;
}
