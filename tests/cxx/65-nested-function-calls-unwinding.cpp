// Exceptions through several calls, each frame with a try that does not match.
#include <stdio.h>

struct Tag {
  int n;
  Tag(int x) : n(x) { printf("Tag(%d)\n", n); }
  ~Tag() { printf("~Tag(%d)\n", n); }
};

void c() {
  Tag t(3);
  throw 'c';
}
void b() {
  Tag t(2);
  try {
    c();
  } catch (int) {
    printf("b: int handler (wrong)\n");
  }
}
void a() {
  Tag t(1);
  try {
    b();
  } catch (double) {
    printf("a: double handler (wrong)\n");
  }
}

int main() {
  try {
    a();
  } catch (char ch) {
    printf("main caught '%c'\n", ch);
  }
  return 0;
}
