// Exceptions of several fundamental types, each caught by the handler of its type.
#include <stdio.h>

void thrower(int which) {
  switch (which) {
  case 0: throw true;
  case 1: throw 'q';
  case 2: throw 2.75;
  case 3: throw 99L;
  case 4: throw 1.5f;
  default: throw (unsigned short)7;
  }
}

int main() {
  for (int i = 0; i < 6; ++i) {
    try {
      thrower(i);
    } catch (bool b) {
      printf("bool %d\n", b);
    } catch (char c) {
      printf("char %c\n", c);
    } catch (double d) {
      printf("double %g\n", d);
    } catch (long l) {
      printf("long %ld\n", l);
    } catch (float f) {
      printf("float %g\n", f);
    } catch (unsigned short s) {
      printf("ushort %d\n", s);
    }
  }
  return 0;
}
