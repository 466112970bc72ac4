// std::runtime_error, std::out_of_range and std::logic_error, caught through their bases.
#include <cstdio>
#include <cstring>
#include <stdexcept>

static int element(int i) {
  static const int data[3] = {5, 6, 7};
  if (i < 0)
    throw std::invalid_argument("negative index");
  if (i >= 3)
    throw std::out_of_range("index past the end");
  return data[i];
}

static void load(bool ok) {
  if (!ok)
    throw std::runtime_error("load failed");
}

int main() {
  int status = 0;
  int indexes[] = {1, 5, -1};
  for (int i : indexes) {
    try {
      std::printf("element %d\n", element(i));
    } catch (const std::out_of_range &e) {
      std::printf("out_of_range: %s\n", e.what());
      status += 1;
    } catch (const std::logic_error &e) {
      std::printf("logic_error: %s\n", e.what());
      status += 10;
    }
  }
  try {
    load(false);
  } catch (const std::exception &e) {
    std::printf("exception: %s (%d)\n", e.what(), (int)std::strlen(e.what()));
    status += 100;
  }
  return status;
}
