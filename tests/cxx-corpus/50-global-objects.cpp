// Global objects with constructors and destructors around a program that throws.
#include <cstdio>

struct Registry {
  int entries;
  const char *name;
  Registry(const char *n, int e) : entries(e), name(n) { std::printf("init %s\n", name); }
  ~Registry() { std::printf("fini %s (%d)\n", name, entries); }
};

Registry first("first", 1);
Registry second("second", 2);

static void add(Registry &r, int n) {
  if (n < 0)
    throw n;
  r.entries += n;
}

int main() {
  std::printf("main\n");
  try {
    add(first, 3);
    add(second, -1);
  } catch (int n) {
    std::printf("rejected %d\n", n);
  }
  return first.entries + second.entries;
}
