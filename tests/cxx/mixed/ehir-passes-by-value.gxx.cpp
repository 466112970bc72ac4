// Built by g++: the callees of ehir-passes-by-value.cpp (built by ehir).
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
struct NT {
  int v;
  NT(int x);
  NT(const NT& o);
  ~NT();
};

Two gxx_two(Two t, int k) {
  printf("g++ gxx_two(%d,%d, %d)\n", t.a, t.b, k);
  t.a += k;
  t.b *= k;
  return t;
}

ID gxx_id(ID v, DD w) {
  printf("g++ gxx_id(%d,%g | %g,%g)\n", v.i, v.d, w.x, w.y);
  ID r = {v.i * 2, v.d + w.x + w.y};
  v.i = 0;
  return r;
}

DD gxx_dd(DD a, DD b) {
  DD r = {a.x + b.y, a.y * b.x};
  return r;
}

Big gxx_big(Big b, Two t) {
  printf("g++ gxx_big(%ld,%ld,%ld | %d,%d)\n", b.a, b.b, b.c, t.a, t.b);
  Big r = {b.c + t.a, b.b + t.b, b.a};
  b.a = b.b = b.c = 0;
  return r;
}

FFF gxx_fff(FFF f, C3 c) {
  printf("g++ gxx_fff(%g,%g,%g | %c%c%c)\n", f.a, f.b, f.c, c.c[0], c.c[1], c.c[2]);
  FFF r = {f.c, f.a, f.b + c.c[0]};
  return r;
}

C3 gxx_c3(C3 c) {
  C3 r = {{c.c[2], c.c[1], c.c[0]}};
  return r;
}

EF gxx_ef(Empty e, EF v, Gap g, int k) {
  printf("g++ gxx_ef(%g, %g, %d)\n", v.f, g.f, k);
  EF r;
  r.f = v.f + g.f * k;
  return r;
}

Empty gxx_empty(int k) {
  printf("g++ gxx_empty(%d)\n", k);
  return Empty();
}

long gxx_int_pressure(int a, int b, int c, int d, int e, LL s, int f) {
  printf("g++ gxx_int_pressure(%d %d %d %d %d | %ld %ld | %d)\n", a, b, c, d, e, s.a, s.b, f);
  return a + b + c + d + e + s.a * 100 + s.b * 1000 + f * 10000;
}

double gxx_sse_pressure(double a, double b, double c, double d, double e, double f,
                        double g, DD s, double h) {
  printf("g++ gxx_sse_pressure(%g %g %g %g %g %g %g | %g %g | %g)\n", a, b, c, d, e, f, g,
         s.x, s.y, h);
  return a + b + c + d + e + f + g + s.x * 100 + s.y * 1000 + h * 10000;
}

int gxx_nt(NT n, Two t) {
  printf("g++ gxx_nt(%d | %d,%d)\n", n.v, t.a, t.b);
  return n.v + t.a + t.b;
}

void gxx_throw_big(Big b, Two t) {
  printf("g++ gxx_throw_big(%ld,%ld,%ld | %d,%d)\n", b.a, b.b, b.c, t.a, t.b);
  b.b = t.a + t.b;
  throw b;
}

static Two swap_two(Two t, DD w) {
  printf("g++ swap_two(%d,%d | %g,%g)\n", t.a, t.b, w.x, w.y);
  Two r = {t.b, t.a + (int)w.y};
  return r;
}

typedef Two (*TwoFn)(Two, DD);
TwoFn gxx_pointer() { return swap_two; }

Big gxx_call_back(Big (*f)(Big, ID), Big b, ID i) {
  printf("g++ gxx_call_back(%ld,%ld,%ld | %d,%g)\n", b.a, b.b, b.c, i.i, i.d);
  Big r = f(b, i);
  printf("g++ got back %ld %ld %ld; mine still %ld %ld %ld\n", r.a, r.b, r.c, b.a, b.b, b.c);
  return r;
}
