// `throw nullptr` is caught by a void* handler and by a pointer-to-class handler.
#include <cstdio>

struct Node {
  int value;
};

int main() {
  int status = 0;
  try {
    throw nullptr;
  } catch (void *p) {
    std::printf("void* handler, null %d\n", p == nullptr);
    status += 1;
  }
  try {
    try {
      throw nullptr;
    } catch (Node *n) {
      std::printf("Node* handler, null %d\n", n == nullptr);
      status += 10;
    }
  } catch (...) {
    std::printf("catch-all\n");
    status += 100;
  }
  try {
    throw nullptr;
  } catch (int) {
    std::printf("int handler: not reached\n");
  } catch (decltype(nullptr)) {
    std::printf("nullptr_t handler\n");
    status += 1000;
  }
  return status % 256;
}
