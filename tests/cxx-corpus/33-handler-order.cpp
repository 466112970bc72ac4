// Handlers are tried in order: a base handler before a derived one takes the derived.
#include <cstdio>

struct Base {
  virtual ~Base() {}
  virtual int kind() const { return 1; }
};
struct Derived : Base {
  int kind() const override { return 2; }
};
struct MoreDerived : Derived {
  int kind() const override { return 3; }
};

static int dispatch(int which) {
  try {
    if (which == 0)
      throw Base();
    if (which == 1)
      throw Derived();
    throw MoreDerived();
  } catch (MoreDerived &e) {
    std::printf("MoreDerived handler, kind %d\n", e.kind());
    return 30;
  } catch (Base &e) {
    std::printf("Base handler, kind %d\n", e.kind());
    return e.kind();
  } catch (Derived &) {
    std::printf("Derived handler: never\n");
    return 100;
  }
}

int main() {
  int status = 0;
  for (int which = 0; which < 3; ++which)
    status += dispatch(which);
  return status;
}
