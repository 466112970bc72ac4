// std::bad_exception is thrown and caught like any class derived from std::exception.
#include <cstdio>
#include <exception>

static void fail(int how) {
  if (how == 0)
    throw std::bad_exception();
  if (how == 1)
    throw std::exception();
}

int main() {
  int status = 0;
  for (int how = 0; how < 3; ++how) {
    try {
      fail(how);
      std::printf("%d: fine\n", how);
    } catch (const std::bad_exception &) {
      std::printf("%d: bad_exception\n", how);
      status += 1;
    } catch (const std::exception &) {
      std::printf("%d: exception\n", how);
      status += 10;
    }
  }
  try {
    fail(0);
  } catch (std::exception &e) {
    bool is_bad = dynamic_cast<std::bad_exception *>(&e) != nullptr;
    std::printf("base handler, dynamic type bad_exception: %d\n", is_bad);
    status += 100;
  }
  return status;
}
