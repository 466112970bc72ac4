// Objects with static storage end in the reverse order of their construction, mixed
// with functions registered by std::atexit; std::exit from deep inside the program
// runs them, but does not destroy the locals of the functions it leaves.
#include <cstdio>
#include <cstdlib>

struct Tracked {
  const char *name;
  explicit Tracked(const char *n) : name(n) { std::printf("construct %s\n", name); }
  ~Tracked() { std::printf("destroy %s\n", name); }
};

Tracked global_a("global a");

static Tracked &registry() {
  static Tracked instance("registry");
  return instance;
}

static void goodbye() { std::printf("atexit goodbye\n"); }

Tracked global_b("global b");

static int depth(int n) {
  Tracked local("local in depth");
  if (n == 0) {
    std::printf("exiting from depth\n");
    std::exit(4);
  }
  return depth(n - 1) + 1;
}

int main() {
  std::printf("main starts\n");
  std::atexit(goodbye);
  registry();
  static Tracked late("late static");
  try {
    return depth(2);
  } catch (...) {
    std::printf("not reached\n");
  }
  return 0;
}
