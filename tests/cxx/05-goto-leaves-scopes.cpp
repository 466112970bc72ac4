// goto out of a scope runs the destructors of the objects it leaves.
#include <stdio.h>

struct R {
  int n;
  R(int i) : n(i) { printf("R(%d)\n", n); }
  ~R() { printf("~R(%d)\n", n); }
};

int main() {
  int tries = 0;
again:
  {
    R r(tries);
    if (tries < 2) {
      ++tries;
      goto again;
    }
    R s(100);
    if (tries == 2)
      goto done;
    printf("not reached\n");
  }
done:
  printf("done after %d tries\n", tries);
  return 0;
}
