// A nested class defined outside its class (`struct Registry::Entry { ... };`) is the
// class its declaration inside names (`Registry::Entry`), and a class pointing to
// itself through a partly qualified name inside its enclosing class (`Entry *` in
// `Registry::Entry`, a callback taking `Registry &`) is laid out once. Checked against
// g++ (the oracle) at every interpreter phase and natively.
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 3
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 3
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 3
// RUN: diff %t.expected %t.native
#include <cstdio>

namespace app {
struct Registry {
  struct Entry;
  struct Link {
    Link *next;
    void (*callback)(Registry &, int);
    int index;
  };
  Entry *first = nullptr;
  Link *links = nullptr;
  int calls = 0;
};

struct Registry::Entry {
  const char *name;
  Entry *next;
  ~Entry() { std::printf("~Entry(%s)\n", name); }
};
} // namespace app

static void count(app::Registry &registry, int index) {
  registry.calls += index;
  if (index == 2)
    throw index;
}

int main() {
  app::Registry registry;
  app::Registry::Link second{nullptr, count, 2};
  app::Registry::Link first{&second, count, 1};
  registry.links = &first;
  try {
    app::Registry::Entry entry{"outer", nullptr};
    registry.first = &entry;
    for (app::Registry::Link *l = registry.links; l; l = l->next)
      l->callback(registry, l->index);
  } catch (int e) {
    std::printf("caught %d after %d\n", e, registry.calls);
  }
  return registry.calls;
}
