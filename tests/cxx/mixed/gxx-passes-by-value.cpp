// Built by ehir: functions that take and return classes by value, called by code built by
// g++ (gxx-passes-by-value.gxx.cpp) directly and through pointers; one throws while its
// by-value arguments are live, one calls back into g++ code that throws through it.
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

struct Trace {
  int id;
  Trace(int i) : id(i) { printf("ehir Trace(%d)\n", id); }
  ~Trace() { printf("ehir ~Trace(%d)\n", id); }
};

Two ehir_two(Two t, int k) {
  printf("ehir_two(%d,%d, %d)\n", t.a, t.b, k);
  t.a += k;
  t.b *= k;
  return t;
}

ID ehir_id(ID v, DD w) {
  printf("ehir_id(%d,%g | %g,%g)\n", v.i, v.d, w.x, w.y);
  ID r;
  r.i = v.i * 2;
  r.d = v.d + w.x + w.y;
  v.i = 0;
  return r;
}

DD ehir_dd(DD a, DD b) {
  DD r;
  r.x = a.x + b.y;
  r.y = a.y * b.x;
  return r;
}

Big ehir_big(Big b, Two t) {
  printf("ehir_big(%ld,%ld,%ld | %d,%d)\n", b.a, b.b, b.c, t.a, t.b);
  Big r;
  r.a = b.c + t.a;
  r.b = b.b + t.b;
  r.c = b.a;
  b.a = 0;
  b.b = 0;
  b.c = 0;
  return r;
}

FFF ehir_fff(FFF f, C3 c) {
  printf("ehir_fff(%g,%g,%g | %c%c%c)\n", f.a, f.b, f.c, c.c[0], c.c[1], c.c[2]);
  FFF r;
  r.a = f.c;
  r.b = f.a;
  r.c = f.b + c.c[0];
  return r;
}

C3 ehir_c3(C3 c) {
  C3 r;
  r.c[0] = c.c[2];
  r.c[1] = c.c[1];
  r.c[2] = c.c[0];
  return r;
}

EF ehir_ef(Empty e, EF v, Gap g, int k) {
  printf("ehir_ef(%g, %g, %d)\n", v.f, g.f, k);
  EF r;
  r.f = v.f + g.f * k;
  return r;
}

Empty ehir_empty(int k) {
  printf("ehir_empty(%d)\n", k);
  return Empty();
}

long ehir_int_pressure(int a, int b, int c, int d, int e, LL s, int f) {
  printf("ehir_int_pressure(%d %d %d %d %d | %ld %ld | %d)\n", a, b, c, d, e, s.a, s.b, f);
  return a + b + c + d + e + s.a * 100 + s.b * 1000 + f * 10000;
}

double ehir_sse_pressure(double a, double b, double c, double d, double e, double f,
                         double g, DD s, double h) {
  printf("ehir_sse_pressure(%g %g %g %g %g %g %g | %g %g | %g)\n", a, b, c, d, e, f, g,
         s.x, s.y, h);
  return a + b + c + d + e + f + g + s.x * 100 + s.y * 1000 + h * 10000;
}

// Throws while its by-value arguments are live; its cleanup reads them.
Two ehir_throw(ID v, Big b, Two t) {
  Trace tr(t.a + t.b);
  if (v.i > 0) {
    printf("ehir_throw throws (%d,%g | %ld)\n", v.i, v.d, b.c);
    throw b;
  }
  return t;
}

// Calls back into g++ through a pointer while its own by-value arguments are live; what
// g++ throws unwinds through this frame.
DD ehir_call_back(DD (*f)(DD, Big), DD d, Big b) {
  Trace tr((int)d.x);
  DD r = f(d, b);
  printf("ehir_call_back got %g %g; mine still %g %g\n", r.x, r.y, d.x, d.y);
  return r;
}

static Two swap_two(Two t, DD w) {
  printf("ehir swap_two(%d,%d | %g,%g)\n", t.a, t.b, w.x, w.y);
  Two r;
  r.a = t.b;
  r.b = t.a + (int)w.y;
  return r;
}

typedef Two (*TwoFn)(Two, DD);
TwoFn ehir_pointer() { return swap_two; }
