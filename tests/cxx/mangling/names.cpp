// Every function and variable defined here must get the same symbol from ehir as from
// g++ (the test compares ehir's definitions with `nm` of g++'s object).
#include <exception>

struct Point {
  int x;
  int y;
  Point();
  Point(int a, int b);
  Point(const Point& other);
  ~Point();
  Point& operator=(const Point& other);
  int sum() const;
  void move(int dx, int dy);
  static int count;
  static Point origin();
};

Point::Point() : x(0), y(0) {}
Point::Point(int a, int b) : x(a), y(b) {}
Point::Point(const Point& other) : x(other.x), y(other.y) {}
Point::~Point() {}
Point& Point::operator=(const Point& other) {
  x = other.x;
  y = other.y;
  return *this;
}
int Point::sum() const { return x + y; }
void Point::move(int dx, int dy) {
  x += dx;
  y += dy;
}
int Point::count = 0;
Point Point::origin() { return Point(); }

struct Derived : Point {
  Derived(int v) : Point(v, v) {}
  int twice() const { return 2 * sum(); }
};

int global_counter = 0;

void f0() {}
void f1(int) {}
void f2(char, signed char, unsigned char, short, unsigned short) {}
void f3(long, unsigned long, long long, unsigned long long, bool) {}
void f4(float, double) {}
void f5(int*, const int*, int* const, const int* const*) {}
void f6(const char*, const char*, char*) {}
void f7(Point, Point&, const Point&, Point*, const Point*) {}
void f8(void (*)(), int (*)(int, int), void (*)(void (*)())) {}
void f9(int[], const char[4]) {}
void f10(const std::exception&, std::exception*) {}
void f11(Derived&, const Point&, Derived*) {}
void f12(int&, const int&, double&) {}
int overloaded(int a) { return a; }
int overloaded(double d) { return (int)d; }
int overloaded(const Point& p) { return p.x; }
extern "C" int c_function(int v) { return v; }
static int internal_helper() { return 1; }
int uses_helper() { return internal_helper() + Derived(1).twice(); }

int with_static() {
  static int calls = 0;
  return ++calls;
}
