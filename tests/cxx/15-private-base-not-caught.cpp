// A handler for a private (non-public) base class does not catch the derived type.
#include <stdio.h>

struct Base {
  Base() {}
};
struct Hidden : private Base {
  Hidden() {}
};

int main() {
  try {
    throw Hidden();
  } catch (Base&) {
    printf("caught as Base (wrong)\n");
  } catch (Hidden&) {
    printf("caught as Hidden\n");
  }
  return 0;
}
