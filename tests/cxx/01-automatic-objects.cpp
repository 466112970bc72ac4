// Automatic objects are destroyed in reverse order of construction at scope exit.
#include <stdio.h>

struct Tracer {
  int id;
  Tracer(int i) : id(i) { printf("construct %d\n", id); }
  ~Tracer() { printf("destroy %d\n", id); }
  void work() { printf("work %d\n", id); }
};

int main() {
  Tracer a(1);
  Tracer b(2);
  a.work();
  Tracer c(3);
  c.work();
  printf("end of main\n");
  return 0;
}
