// What depends on the dialect, and C idioms in C++: `throw()` is a dynamic exception
// specification before C++17 (a violation calls std::unexpected) and means `noexcept`
// from C++17 on (a violation terminates); a `typedef enum { ... } E;` or
// `typedef struct { ... } S;` names its type by the typedef (also one that refers to
// itself, as <unwind.h> does); `__builtin_expect` and `__builtin_abort`; `register`
// (removed in C++17, which g++ accepts with a warning and so does ehir). Checked against
// g++ in both dialects, at every interpreter phase and natively.
// RUN: g++ -std=c++14 -w -o %t.gxx14 %s && %t.gxx14 > %t.expected14; test $? -eq 2
// RUN: %ehir --std=c++14 run --phase all %s > %t.run14; test $? -eq 2
// RUN: diff %t.expected14 %t.run14
// RUN: %ehir --std=c++14 build %s -o %t.exe14
// RUN: %t.exe14 > %t.native14; test $? -eq 2
// RUN: diff %t.expected14 %t.native14
// RUN: g++ -std=c++17 -w -o %t.gxx17 %s && %t.gxx17 > %t.expected17; test $? -eq 3
// RUN: %ehir --std=c++17 run --phase all %s > %t.run17; test $? -eq 3
// RUN: diff %t.expected17 %t.run17
// RUN: %ehir --std=c++17 build %s -o %t.exe17
// RUN: %t.exe17 > %t.native17; test $? -eq 3
// RUN: diff %t.expected17 %t.native17
#include <cstdio>
#include <cstdlib>
#include <exception>

typedef enum { RED = 1, GREEN = 2 } Color;
typedef struct {
  Color color;
  int weight;
} Ball;
typedef struct Node Node;
struct Node {
  Node *next;
  int value;
};

static void on_unexpected() {
  std::printf("unexpected\n");
  std::exit(2);
}

static void on_terminate() {
  std::printf("terminate\n");
  std::exit(3);
}

static int weigh(const Ball &b) throw() {
  if (__builtin_expect(b.color == GREEN, 0))
    throw b.weight;
  return b.weight;
}

int main() {
#if __cplusplus < 201703L
  std::set_unexpected(on_unexpected);
#endif
  std::set_terminate(on_terminate);
  Node tail = {nullptr, 2};
  Node head = {&tail, 1};
  register int sum = head.value + head.next->value;
  Ball red = {RED, sum};
  std::printf("red weighs %d\n", weigh(red));
  Ball green = {GREEN, 5};
  std::printf("green weighs %d\n", weigh(green));
  __builtin_abort();
}
