// Virtual bases with vftables of their own (Microsoft ABI: a vftable inside the virtual
// base, found through the vbtable; vtordisps): virtual calls during construction and
// destruction that reach overriders of the class being built through the virtual base,
// a class whose only vftable is its virtual base's, one with its own vftable as well,
// typeid and dynamic_cast through them, a constructor that throws after the virtual base
// is built, and an exception of such a class caught by the virtual base and deleted
// through it.
#include <stdio.h>
#include <typeinfo>

struct Base {
  int id;
  explicit Base(int i) : id(i) { printf("Base(%d) is %s\n", id, who()); }
  virtual ~Base() { printf("~Base(%d) is %s\n", id, who()); }
  virtual const char *who() const { return "Base"; }
  virtual int weight() const { return 1; }
};

// Overrides a function of its virtual base and calls it while built: a vtordisp.
struct Left : virtual Base {
  int left = 10;
  Left() : Base(1) { printf("Left sees %s, weight %d\n", who(), weight()); }
  ~Left() override { printf("~Left sees %s\n", who()); }
  const char *who() const override { return "Left"; }
  // A new virtual function: Left has a vftable of its own besides Base's.
  virtual int side() const { return left; }
};

// Only a destructor override: its one vftable is the virtual base's.
struct Right : virtual Base {
  int right;
  explicit Right(int r) : Base(2), right(r) {
    printf("Right sees %s, weight %d\n", who(), weight());
    if (r < 0)
      throw r;
  }
  ~Right() override { printf("~Right sees %s\n", who()); }
};

struct Both : Left, Right {
  explicit Both(int r) : Base(42), Right(r) { printf("Both sees %s\n", who()); }
  ~Both() override { printf("~Both sees %s (Left says %s)\n", who(), Left::who()); }
  const char *who() const override { return "Both"; }
  int weight() const override { return right + left; }
};

static void show(const Base &base) {
  printf("show: %s weighs %d\n", base.who(), base.weight());
}

int main() {
  int status = 0;
  try {
    Both broken(-3);
  } catch (int r) {
    printf("caught %d\n", r);
    status += 1;
  }
  {
    Both both(5);
    show(both);
    Left &left = both;
    Right &right = both;
    printf("left: %s side %d; right: %s weight %d\n", left.who(), left.side(), right.who(),
           right.weight());
    printf("typeid via Right: %d, via Base: %d\n", typeid(right) == typeid(Both),
           typeid(static_cast<Base &>(both)) == typeid(Both));
    Base *base = &both;
    Both *back = dynamic_cast<Both *>(base);
    Left *across = dynamic_cast<Left *>(&right);
    printf("dynamic_cast back %d, across %d\n", back == &both, across == &left);
    status += both.id;
  }
  try {
    throw Both(7);
  } catch (Base &base) {
    printf("caught %s id %d\n", base.who(), base.id);
    status += 10;
  }
  Base *owned = new Both(9);
  printf("owned weighs %d\n", owned->weight());
  delete owned;
  Right *only = new Right(4);
  show(*only);
  delete only;
  return status;
}
