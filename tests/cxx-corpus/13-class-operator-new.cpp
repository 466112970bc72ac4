// Class-specific operator new/delete; a throwing constructor frees through the class's delete.
#include <cstdio>
#include <cstdlib>
#include <new>

class Node {
public:
  static int live;
  static void *operator new(std::size_t size) {
    ++live;
    std::printf("Node::new\n");
    return std::malloc(size);
  }
  static void operator delete(void *p) {
    --live;
    std::printf("Node::delete\n");
    std::free(p);
  }
  explicit Node(int v) : value(v) {
    if (v < 0)
      throw v;
    std::printf("Node(%d)\n", v);
  }
  ~Node() { std::printf("~Node(%d)\n", value); }
  int value;
};
int Node::live = 0;

int main() {
  Node *a = new Node(1);
  try {
    Node *b = new Node(-5);
    std::printf("not reached %d\n", b->value);
  } catch (int v) {
    std::printf("constructor threw %d, live %d\n", v, Node::live);
  }
  delete a;
  std::printf("live %d\n", Node::live);
  return Node::live;
}
