// A destructor declared noexcept(false) throws; caught when no other exception is active.
#include <cstdio>

struct Committer {
  int id;
  bool fail;
  Committer(int i, bool f) : id(i), fail(f) {}
  ~Committer() noexcept(false) {
    std::printf("commit %d\n", id);
    if (fail)
      throw id;
  }
};

struct Log {
  ~Log() { std::printf("~Log\n"); }
};

static void transaction(int id, bool fail) {
  Log log;
  Committer commit(id, fail);
  std::printf("body %d\n", id);
}

int main() {
  int failed = 0;
  for (int id = 1; id <= 3; ++id) {
    try {
      transaction(id, id == 2);
    } catch (int which) {
      std::printf("transaction %d failed on commit\n", which);
      failed = which;
    }
  }
  try {
    Committer outer(7, true);
    Committer inner(8, false);
  } catch (int which) {
    std::printf("caught %d\n", which);
    failed += which;
  }
  return failed;
}
