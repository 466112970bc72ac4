// puts and putchar, and char arithmetic.
#include <stdio.h>

int main() {
  puts("line one");
  for (char c = 'a'; c <= 'e'; ++c)
    putchar(c);
  putchar('\n');
  puts("done");
  return 0;
}
