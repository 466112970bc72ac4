// exit() does not run destructors of automatic objects (stdout is still flushed).
#include <stdio.h>
#include <stdlib.h>

struct Auto {
  ~Auto() { printf("~Auto (not printed)\n"); }
};

void deep() {
  Auto a;
  printf("exiting from deep\n");
  exit(2);
}

int main() {
  Auto m;
  deep();
  return 0;
}
