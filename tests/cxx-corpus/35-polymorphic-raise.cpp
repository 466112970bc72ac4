// A polymorphic exception rethrows its own dynamic type through a virtual raise().
#include <cstdio>

struct Error {
  virtual ~Error() {}
  virtual void raise() const { throw *this; }
  virtual int code() const { return 1; }
};
struct DiskError : Error {
  void raise() const override { throw *this; }
  int code() const override { return 2; }
};

static void rethrow_later(const Error &saved) { saved.raise(); }

int main() {
  DiskError disk;
  Error &as_base = disk;
  int status = 0;
  try {
    throw as_base;
  } catch (DiskError &) {
    std::printf("static type thrown: not reached\n");
  } catch (Error &e) {
    std::printf("throw by base reference slices, code %d\n", e.code());
    status += e.code();
  }
  try {
    rethrow_later(as_base);
  } catch (DiskError &e) {
    std::printf("raise() keeps the dynamic type, code %d\n", e.code());
    status += 10 * e.code();
  }
  return status;
}
