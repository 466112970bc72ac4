// Arithmetic, bitwise and compound assignment operators with the usual conversions.
#include <stdio.h>

int main() {
  int a = 17, b = 5;
  printf("%d %d %d %d %d\n", a + b, a - b, a * b, a / b, a % b);
  printf("%d %d %d %d %d\n", a & b, a | b, a ^ b, a << 2, a >> 1);
  unsigned u = 3;
  printf("%u\n", u - 4);
  long big = 1L << 20;
  printf("%ld\n", big);
  double x = 7;
  x /= 2;
  printf("%g\n", x);
  char c = 'A';
  c += 2;
  printf("%c\n", c);
  a += 3;
  a -= 1;
  a *= 2;
  a /= 3;
  a %= 7;
  a <<= 3;
  a >>= 1;
  a |= 1;
  a &= 0xff;
  a ^= 0x10;
  printf("%d\n", a);
  int i = 5;
  int j = i++;
  int k = ++i;
  printf("%d %d %d\n", i, j, k);
  printf("%d %d %d\n", -a, !a, ~a);
  printf("%d\n", (a > b) + (a >= b) + (a < b) + (a <= b) + (a == b) + (a != b));
  float f = 1.5f;
  printf("%.2f\n", f * 3);
  return 0;
}
