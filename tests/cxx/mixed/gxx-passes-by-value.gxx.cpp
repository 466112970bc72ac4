// Built by g++: calls the functions of gxx-passes-by-value.cpp (built by ehir) that take
// and return classes by value, and catches what they throw.
#include <stdio.h>

struct Two { int a; int b; };
struct ID { int i; double d; };
struct DD { double x; double y; };
struct Big { long a; long b; long c; };
struct LL { long a; long b; };
struct FFF { float a; float b; float c; };
struct C3 { char c[3]; };
struct Empty {};
struct EF { Empty e; float f; };
struct Gap : Empty { Empty e; float f; };

Two ehir_two(Two t, int k);
ID ehir_id(ID v, DD w);
DD ehir_dd(DD a, DD b);
Big ehir_big(Big b, Two t);
FFF ehir_fff(FFF f, C3 c);
C3 ehir_c3(C3 c);
EF ehir_ef(Empty e, EF v, Gap g, int k);
Empty ehir_empty(int k);
long ehir_int_pressure(int a, int b, int c, int d, int e, LL s, int f);
double ehir_sse_pressure(double a, double b, double c, double d, double e, double f,
                         double g, DD s, double h);
Two ehir_throw(ID v, Big b, Two t);
DD ehir_call_back(DD (*f)(DD, Big), DD d, Big b);
typedef Two (*TwoFn)(Two, DD);
TwoFn ehir_pointer();

struct Guard {
  const char* what;
  ~Guard() { printf("g++ ~Guard(%s)\n", what); }
};

static DD gxx_mix(DD d, Big b) {
  printf("g++ gxx_mix(%g,%g | %ld,%ld,%ld)\n", d.x, d.y, b.a, b.b, b.c);
  if (b.a < 0)
    throw d;
  DD r = {d.y + b.b, d.x * b.c};
  return r;
}

int main() {
  Two t = {1, 2};
  Two t2 = ehir_two(t, 10);
  printf("ehir_two -> %d %d (mine %d %d)\n", t2.a, t2.b, t.a, t.b);

  ID v = {7, 2.5};
  DD w = {0.25, -4.0};
  ID v2 = ehir_id(v, w);
  printf("ehir_id -> %d %g (mine %d %g)\n", v2.i, v2.d, v.i, v.d);

  DD d = ehir_dd(w, w);
  printf("ehir_dd -> %g %g\n", d.x, d.y);

  Big b = {100, 200, 300};
  Big b2 = ehir_big(b, t);
  printf("ehir_big -> %ld %ld %ld (mine %ld %ld %ld)\n", b2.a, b2.b, b2.c, b.a, b.b, b.c);

  FFF f = {1.5f, 2.5f, 3.5f};
  C3 c = {{'x', 'y', 'z'}};
  FFF f2 = ehir_fff(f, c);
  printf("ehir_fff -> %g %g %g\n", f2.a, f2.b, f2.c);
  C3 c2 = ehir_c3(c);
  printf("ehir_c3 -> %c%c%c\n", c2.c[0], c2.c[1], c2.c[2]);

  Empty e;
  EF ef;
  ef.f = 0.5f;
  Gap g;
  g.f = 8.0f;
  EF ef2 = ehir_ef(e, ef, g, 3);
  printf("ehir_ef -> %g\n", ef2.f);
  ehir_empty(4);

  LL s = {11, 22};
  printf("ehir_int_pressure -> %ld\n", ehir_int_pressure(1, 2, 3, 4, 5, s, 6));
  DD q = {0.5, 0.25};
  printf("ehir_sse_pressure -> %g\n", ehir_sse_pressure(1, 2, 3, 4, 5, 6, 7, q, 8));

  TwoFn p = ehir_pointer();
  Two t3 = p(t, w);
  printf("through ehir's pointer -> %d %d\n", t3.a, t3.b);

  Two t4 = ehir_throw(ID(), b, t);
  printf("ehir_throw returned %d %d\n", t4.a, t4.b);
  try {
    Guard gd = {"around ehir_throw"};
    ehir_throw(v, b, t2);
  } catch (Big& caught) {
    printf("g++ caught Big(%ld,%ld,%ld)\n", caught.a, caught.b, caught.c);
  }

  DD r = ehir_call_back(gxx_mix, w, b);
  printf("ehir_call_back -> %g %g\n", r.x, r.y);
  try {
    Guard gd = {"around ehir_call_back"};
    Big neg = {-1, 2, 3};
    ehir_call_back(gxx_mix, q, neg);
  } catch (DD& caught) {
    printf("g++ caught DD(%g,%g)\n", caught.x, caught.y);
  }
  return 0;
}
