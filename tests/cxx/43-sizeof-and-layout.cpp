// sizeof of fundamental types and classes laid out as g++ does (empty bases take no
// space, padding follows alignment).
#include <stdio.h>

struct Empty {};
struct WithEmptyBase : Empty {
  int x;
};
struct Padded {
  char c;
  double d;
  short s;
};
struct Derived : Padded {
  int extra;
};

int main() {
  printf("%d %d %d %d %d\n", (int)sizeof(char), (int)sizeof(short), (int)sizeof(int), (int)sizeof(long), (int)sizeof(double));
  printf("%d %d %d %d\n", (int)sizeof(Empty), (int)sizeof(WithEmptyBase), (int)sizeof(Padded), (int)sizeof(Derived));
  int arr[7];
  printf("%d %d\n", (int)sizeof(arr), (int)sizeof arr[0]);
  return 0;
}
