// Throwing and catching pointers: the handler receives the pointer value.
#include <stdio.h>

struct Node {
  int v;
  Node(int x) : v(x) { printf("Node(%d)\n", v); }
  ~Node() { printf("~Node(%d)\n", v); }
};

int main() {
  Node local_node(5);
  try {
    throw &local_node;
  } catch (Node* p) {
    printf("caught node %d\n", p->v);
  }
  try {
    throw new Node(6);
  } catch (Node* p) {
    printf("caught heap node %d\n", p->v);
    delete p;
  }
  try {
    throw "a message";
  } catch (const char* s) {
    printf("caught string: %s\n", s);
  }
  return 0;
}
