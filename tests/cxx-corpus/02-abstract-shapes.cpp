// An abstract base with pure virtual functions; a virtual call throws.
#include <cstdio>
#include <exception>

class InvalidShape : public std::exception {
public:
  const char *what() const noexcept override { return "invalid shape"; }
};

class Shape {
public:
  virtual ~Shape() { std::printf("~Shape\n"); }
  virtual int area() const = 0;
  virtual const char *name() const = 0;
};

class Rect : public Shape {
public:
  Rect(int w, int h) : w_(w), h_(h) {}
  ~Rect() override { std::printf("~Rect %dx%d\n", w_, h_); }
  int area() const override {
    if (w_ < 0 || h_ < 0)
      throw InvalidShape();
    return w_ * h_;
  }
  const char *name() const override { return "rect"; }

private:
  int w_, h_;
};

class Square : public Rect {
public:
  explicit Square(int side) : Rect(side, side) {}
  ~Square() override { std::printf("~Square\n"); }
  const char *name() const override { return "square"; }
};

static int total(const Shape *const *shapes, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) {
    std::printf("%s\n", shapes[i]->name());
    sum += shapes[i]->area();
  }
  return sum;
}

int main() {
  Rect a(2, 3);
  Square b(4);
  Rect c(-1, 5);
  const Shape *good[] = {&a, &b};
  std::printf("total %d\n", total(good, 2));
  const Shape *bad[] = {&a, &c, &b};
  try {
    std::printf("total %d\n", total(bad, 3));
  } catch (const std::exception &e) {
    std::printf("caught %s\n", e.what());
  }
  return 0;
}
