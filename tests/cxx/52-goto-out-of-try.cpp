// goto out of a try block and out of a handler.
#include <stdio.h>

struct G {
  int id;
  G(int i) : id(i) { printf("G(%d)\n", id); }
  ~G() { printf("~G(%d)\n", id); }
};

int main() {
  int phase = 0;
  try {
    G g(1);
    if (phase == 0)
      goto out_of_try;
    printf("not reached\n");
  } catch (...) {
  }
out_of_try:
  printf("left the try\n");
  try {
    throw 2;
  } catch (int v) {
    G h(v);
    goto out_of_handler;
  }
out_of_handler:
  printf("left the handler\n");
  return 0;
}
