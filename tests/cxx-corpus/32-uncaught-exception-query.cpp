// std::uncaught_exception() tells a destructor whether it runs because of unwinding.
#include <cstdio>
#include <exception>

struct Transaction {
  int id;
  ~Transaction() {
    if (std::uncaught_exception())
      std::printf("rollback %d\n", id);
    else
      std::printf("commit %d\n", id);
  }
};

static void work(int id) {
  Transaction t{id};
  if (id % 2 == 0)
    throw id;
}

int main() {
  int failures = 0;
  for (int id = 1; id <= 4; ++id) {
    try {
      work(id);
    } catch (int) {
      ++failures;
      std::printf("in handler: %d\n", std::uncaught_exception() ? 1 : 0);
    }
  }
  return failures;
}
