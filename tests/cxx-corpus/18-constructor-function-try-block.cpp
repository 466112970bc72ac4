// A constructor's function-try-block sees a member's exception; it is rethrown on leaving.
#include <cstdio>

struct Part {
  int id;
  explicit Part(int i) : id(i) {
    if (i == 2)
      throw i;
    std::printf("Part %d\n", id);
  }
  ~Part() { std::printf("~Part %d\n", id); }
};

struct Machine {
  Part first;
  Part second;
  Machine(int a, int b) try : first(a), second(b) {
    std::printf("Machine built\n");
  } catch (int e) {
    std::printf("Machine failed on part %d\n", e);
  }
  ~Machine() { std::printf("~Machine\n"); }
};

int main() {
  int status = 0;
  try {
    Machine ok(1, 3);
  } catch (int) {
    status = 100;
  }
  try {
    Machine bad(1, 2);
  } catch (int e) {
    std::printf("main caught %d\n", e);
    status += e;
  }
  return status;
}
