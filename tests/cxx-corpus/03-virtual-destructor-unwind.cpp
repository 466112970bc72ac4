// Deleting through a base pointer runs the derived destructor, also while unwinding.
#include <cstdio>

struct Base {
  virtual ~Base() { std::printf("~Base\n"); }
  virtual void work() = 0;
};

struct Worker : Base {
  int id;
  explicit Worker(int i) : id(i) { std::printf("Worker %d\n", id); }
  ~Worker() override { std::printf("~Worker %d\n", id); }
  void work() override {
    std::printf("work %d\n", id);
    if (id == 2)
      throw id;
  }
};

class Owner {
public:
  explicit Owner(Base *owned) : owned_(owned) {}
  ~Owner() { delete owned_; }
  Base *operator->() { return owned_; }

private:
  Base *owned_;
};

static void run(int id) {
  Owner owner(new Worker(id));
  owner->work();
  std::printf("done %d\n", id);
}

int main() {
  int status = 0;
  for (int id = 1; id <= 3; ++id) {
    try {
      run(id);
    } catch (int failed) {
      std::printf("failed %d\n", failed);
      status += failed;
    }
  }
  return status;
}
