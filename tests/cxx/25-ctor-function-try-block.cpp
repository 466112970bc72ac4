// A constructor's function-try-block sees the exception after the members are
// destroyed, and rethrows it when the handler falls off its end.
#include <stdio.h>

struct Member {
  int id;
  Member(int i) : id(i) {
    printf("Member(%d)\n", id);
    if (i == 2)
      throw "member failed";
  }
  ~Member() { printf("~Member(%d)\n", id); }
};

struct Owner {
  Member a;
  Member b;
  Owner() try : a(1), b(2) {
    printf("Owner body (not reached)\n");
  } catch (const char* msg) {
    printf("Owner handler: %s\n", msg);
  }
};

int main() {
  try {
    Owner o;
  } catch (const char* msg) {
    printf("main caught: %s\n", msg);
  }
  return 0;
}
