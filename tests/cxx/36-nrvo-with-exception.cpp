// A named return value is destroyed if the function throws after constructing it.
#include <stdio.h>

struct Doc {
  int id;
  Doc(int i) : id(i) { printf("Doc(%d)\n", id); }
  Doc(const Doc& o) : id(o.id) { printf("copy Doc(%d)\n", id); }
  ~Doc() { printf("~Doc(%d)\n", id); }
};

Doc build(int id) {
  Doc d(id);
  if (id < 0)
    throw id;
  return d;
}

int main() {
  Doc ok = build(1);
  try {
    Doc bad = build(-2);
    printf("not reached\n");
  } catch (int e) {
    printf("caught %d\n", e);
  }
  printf("ok=%d\n", ok.id);
  return 0;
}
