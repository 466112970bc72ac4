// A class with two dynamic bases: calls through the second base's pointer reach the
// derived class's overriders (this-adjusting thunks), deleting through it releases the
// whole object, and typeid and dynamic_cast see the complete object.
#include <cstdio>
#include <typeinfo>

struct Shape {
  virtual ~Shape() { std::printf("~Shape\n"); }
  virtual double area() const { return 0; }
};

struct Named {
  const char *label = "unnamed";
  virtual ~Named() { std::printf("~Named %s\n", label); }
  virtual const char *describe() const { return label; }
  virtual void rename(const char *l) { label = l; }
};

struct Square : Shape, Named {
  double side;
  explicit Square(double s) : side(s) { label = "square"; }
  ~Square() override { std::printf("~Square %g\n", side); }
  double area() const override { return side * side; }
  const char *describe() const override { return area() > 10 ? "big square" : "small square"; }
};

struct Validation {
  Named *culprit;
};

static void check(Named &n) {
  if (typeid(n) == typeid(Square))
    throw Validation{&n};
}

int main() {
  int status = 0;
  Named *n = new Square(4);
  std::printf("%s\n", n->describe());
  n->rename("renamed");
  std::printf("%s, typeid %s\n", static_cast<Square *>(n)->label,
              typeid(*n) == typeid(Square) ? "Square" : "other");
  if (Shape *s = dynamic_cast<Shape *>(n))
    std::printf("area %g\n", s->area());
  try {
    check(*n);
  } catch (const Validation &v) {
    std::printf("rejected %s\n", v.culprit->describe());
    status += 1;
  }
  delete n;
  Square small(2);
  Named &ref = small;
  std::printf("%s\n", ref.describe());
  return status;
}
