// A member initializer throws: the bases and members already built are destroyed in reverse.
#include <cstdio>

struct Piece {
  const char *name;
  Piece(const char *n, bool fail) : name(n) {
    if (fail)
      throw n;
    std::printf("+%s\n", name);
  }
  ~Piece() { std::printf("-%s\n", name); }
};

struct Base {
  Piece base_piece;
  Base() : base_piece("base", false) {}
  ~Base() { std::printf("~Base\n"); }
};

struct Assembly : Base {
  Piece a;
  Piece b;
  Piece c;
  explicit Assembly(int fail_at) : a("a", fail_at == 0), b("b", fail_at == 1), c("c", fail_at == 2) {
    std::printf("Assembly body\n");
  }
  ~Assembly() { std::printf("~Assembly\n"); }
};

int main() {
  int failures = 0;
  for (int fail_at = 0; fail_at < 4; ++fail_at) {
    try {
      Assembly x(fail_at);
    } catch (const char *which) {
      std::printf("failed at %s\n", which);
      ++failures;
    }
  }
  return failures;
}
