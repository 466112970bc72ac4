// Nested try blocks: the innermost matching handler wins; others are skipped.
#include <stdio.h>

struct Scope {
  const char* n;
  Scope(const char* s) : n(s) { printf("+%s\n", n); }
  ~Scope() { printf("-%s\n", n); }
};

int main() {
  try {
    Scope outer("outer");
    try {
      Scope inner("inner");
      throw 2.5;
    } catch (int) {
      printf("int handler (wrong)\n");
    } catch (double d) {
      printf("double handler %g\n", d);
      throw 'x';
    }
    printf("not reached\n");
  } catch (char c) {
    printf("char handler %c\n", c);
  } catch (...) {
    printf("catch-all (wrong)\n");
  }
  return 0;
}
