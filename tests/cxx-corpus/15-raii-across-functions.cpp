// RAII objects in several frames: an exception three calls deep destroys each frame's locals.
#include <cstdio>

class Handle {
public:
  explicit Handle(const char *name) : name_(name) { std::printf("open %s\n", name_); }
  Handle(Handle &&other) : name_(other.name_) { other.name_ = nullptr; }
  ~Handle() {
    if (name_)
      std::printf("close %s\n", name_);
  }
  const char *name() const { return name_; }

private:
  const char *name_;
};

static Handle open_checked(const char *name) {
  Handle h(name);
  if (name[0] == '!')
    throw 3;
  return h;
}

static int read_all(int depth) {
  Handle level(depth == 1 ? "level1" : depth == 2 ? "level2" : "level3");
  if (depth == 3) {
    Handle bad = open_checked("!bad");
    return 0;
  }
  return read_all(depth + 1) + 1;
}

int main() {
  Handle config = open_checked("config");
  std::printf("using %s\n", config.name());
  try {
    read_all(1);
  } catch (int e) {
    std::printf("caught %d\n", e);
    return e;
  }
  return 0;
}
