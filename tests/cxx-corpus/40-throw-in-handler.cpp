// A handler throws a new exception: the first is destroyed when the handler exits.
#include <cstdio>

struct Ex {
  int id;
  explicit Ex(int i) : id(i) { std::printf("Ex(%d)\n", id); }
  Ex(const Ex &other) : id(other.id) { std::printf("Ex(copy %d)\n", id); }
  ~Ex() { std::printf("~Ex(%d)\n", id); }
};

static void translate() {
  try {
    throw Ex(1);
  } catch (const Ex &first) {
    std::printf("translating %d\n", first.id);
    throw Ex(first.id + 1);
  }
}

int main() {
  try {
    translate();
  } catch (const Ex &second) {
    std::printf("main caught %d\n", second.id);
    return second.id;
  }
  return 0;
}
