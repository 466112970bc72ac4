// Static data members and static member functions count live instances.
#include <stdio.h>

class Counted {
public:
  Counted() { ++live; ++total; printf("live %d\n", live); }
  Counted(const Counted&) { ++live; ++total; printf("live %d (copy)\n", live); }
  ~Counted() { --live; printf("live %d\n", live); }
  static int count() { return live; }
  static int total;

private:
  static int live;
};

int Counted::live = 0;
int Counted::total = 0;

int main() {
  Counted a;
  {
    Counted b;
    Counted c(b);
    printf("inside: %d\n", Counted::count());
  }
  printf("outside: %d, total %d\n", Counted::count(), Counted::total);
  return 0;
}
