// A destructor that throws while another exception unwinds calls std::terminate.
// wine-not-compared: wine's msvcrt runs the throwing destructor again and again (the unwind state does not move past it) until the stack overflows; Microsoft's runtime calls std::terminate.
#include <cstdio>
#include <cstdlib>
#include <exception>

struct Fragile {
  ~Fragile() noexcept(false) {
    std::printf("~Fragile throws\n");
    throw 2;
  }
};

static void on_terminate() {
  std::printf("terminate called\n");
  std::exit(42);
}

int main() {
  std::set_terminate(on_terminate);
  try {
    Fragile f;
    std::printf("throwing 1\n");
    throw 1;
  } catch (int v) {
    std::printf("not reached %d\n", v);
  }
  return 0;
}
