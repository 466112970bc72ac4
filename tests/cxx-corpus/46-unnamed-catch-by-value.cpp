// An unnamed by-value catch parameter: is the exception copied?
#include <cstdio>

struct Counted {
  static int copies;
  Counted() {}
  Counted(const Counted &) { ++copies; std::printf("copy\n"); }
  ~Counted() { std::printf("~Counted\n"); }
};
int Counted::copies = 0;

int main() {
  try {
    throw Counted();
  } catch (Counted) {
    std::printf("handler\n");
  }
  std::printf("copies %d\n", Counted::copies);
  return Counted::copies;
}
