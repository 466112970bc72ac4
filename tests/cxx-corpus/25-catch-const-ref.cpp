// Catch by const reference: no copy, mutable members still change, the object lives
// until the handler ends.
#include <cstdio>

struct Report {
  int id;
  mutable int reads = 0;
  explicit Report(int i) : id(i) { std::printf("Report(%d)\n", id); }
  Report(const Report &other) : id(other.id) { std::printf("copy Report(%d)\n", id); }
  ~Report() { std::printf("~Report(%d) after %d reads\n", id, reads); }
  int read() const { return ++reads, id; }
};

int main() {
  int sum = 0;
  try {
    throw Report(7);
  } catch (const Report &r) {
    sum += r.read();
    sum += r.read();
    std::printf("in handler\n");
  }
  std::printf("after handler, sum %d\n", sum);
  return sum;
}
