// Classes trivial for the purposes of calls (trivial copy constructor and destructor)
// passed and returned by value: 8-, 12-, 16- and 24-byte classes, floats and doubles,
// an empty class and one with an empty member at a gap, register pressure, function
// pointers, methods, a named return value, and exceptions thrown while such arguments
// are live. (Built by ehir, the Itanium lowering passes them as the x86-64 System V ABI
// says; tests/cxx/mixed checks that against g++'s objects.)
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
  Trace(int i) : id(i) { printf("Trace(%d)\n", id); }
  ~Trace() { printf("~Trace(%d)\n", id); }
};

Two f_two(Two t, int k) {
  printf("f_two(%d,%d, %d)\n", t.a, t.b, k);
  t.a += k;
  t.b *= k;
  return t;
}

ID f_id(ID v, DD w) {
  printf("f_id(%d,%g | %g,%g)\n", v.i, v.d, w.x, w.y);
  ID r;
  r.i = v.i * 2;
  r.d = v.d + w.x + w.y;
  v.i = 0;
  return r;
}

DD f_dd(DD a, DD b) {
  DD r;
  r.x = a.x + b.y;
  r.y = a.y * b.x;
  return r;
}

Big f_big(Big b, Two t) {
  printf("f_big(%ld,%ld,%ld | %d,%d)\n", b.a, b.b, b.c, t.a, t.b);
  Big r;
  r.a = b.c + t.a;
  r.b = b.b + t.b;
  r.c = b.a;
  b.a = 0;
  b.b = 0;
  b.c = 0;
  return r;
}

FFF f_fff(FFF f, C3 c) {
  printf("f_fff(%g,%g,%g | %c%c%c)\n", f.a, f.b, f.c, c.c[0], c.c[1], c.c[2]);
  FFF r;
  r.a = f.c;
  r.b = f.a;
  r.c = f.b + c.c[0];
  return r;
}

C3 f_c3(C3 c) {
  C3 r;
  r.c[0] = c.c[2];
  r.c[1] = c.c[1];
  r.c[2] = c.c[0];
  return r;
}

EF f_ef(Empty e, EF v, Gap g, int k) {
  printf("f_ef(%g, %g, %d)\n", v.f, g.f, k);
  EF r;
  r.f = v.f + g.f * k;
  return r;
}

Empty f_empty(int k) {
  printf("f_empty(%d)\n", k);
  return Empty();
}

long f_int_pressure(int a, int b, int c, int d, int e, LL s, int f) {
  printf("f_int_pressure(%d %d %d %d %d | %ld %ld | %d)\n", a, b, c, d, e, s.a, s.b, f);
  return a + b + c + d + e + s.a * 100 + s.b * 1000 + f * 10000;
}

double f_sse_pressure(double a, double b, double c, double d, double e, double f,
                         double g, DD s, double h) {
  printf("f_sse_pressure(%g %g %g %g %g %g %g | %g %g | %g)\n", a, b, c, d, e, f, g,
         s.x, s.y, h);
  return a + b + c + d + e + f + g + s.x * 100 + s.y * 1000 + h * 10000;
}

// Throws while its by-value arguments are live; its cleanup reads them.
Two f_throw(ID v, Big b, Two t) {
  Trace tr(t.a + t.b);
  if (v.i > 0) {
    printf("throws (%d,%g | %ld)\n", v.i, v.d, b.c);
    throw b;
  }
  return t;
}

// Calls back into g++ through a pointer while its own by-value arguments are live; what
// g++ throws unwinds through this frame.
DD f_call_back(DD (*f)(DD, Big), DD d, Big b) {
  Trace tr((int)d.x);
  DD r = f(d, b);
  printf("f_call_back got %g %g; mine still %g %g\n", r.x, r.y, d.x, d.y);
  return r;
}

static Two swap_two(Two t, DD w) {
  printf("swap_two(%d,%d | %g,%g)\n", t.a, t.b, w.x, w.y);
  Two r;
  r.a = t.b;
  r.b = t.a + (int)w.y;
  return r;
}

typedef Two (*TwoFn)(Two, DD);
TwoFn f_pointer() { return swap_two; }

struct Guard {
  int id;
  Guard(int i) : id(i) {}
  ~Guard() { printf("~Guard(%d)\n", id); }
};

static DD mix(DD d, Big b) {
  printf("mix(%g,%g | %ld,%ld,%ld)\n", d.x, d.y, b.a, b.b, b.c);
  if (b.a < 0)
    throw d;
  DD r;
  r.x = d.y + b.b;
  r.y = d.x * b.c;
  return r;
}

struct Maker {
  int base;
  Two make(int k) {
    Two t;
    t.a = base;
    t.b = k;
    return t;
  }
  Big makeBig(Two t) {
    Big b;
    b.a = base;
    b.b = t.a;
    b.c = t.b;
    return b;
  }
};

// Named return value: the local is the result slot.
ID named(int k) {
  ID r;
  r.i = k;
  r.d = k / 4.0;
  if (k > 100)
    throw k;
  return r;
}

int main() {
  Two t;
  t.a = 1;
  t.b = 2;
  Two t2 = f_two(t, 10);
  printf("f_two -> %d %d (mine %d %d)\n", t2.a, t2.b, t.a, t.b);

  ID v;
  v.i = 7;
  v.d = 2.5;
  DD w;
  w.x = 0.25;
  w.y = -4.0;
  ID v2 = f_id(v, w);
  printf("f_id -> %d %g (mine %d %g)\n", v2.i, v2.d, v.i, v.d);

  DD d = f_dd(w, w);
  printf("f_dd -> %g %g\n", d.x, d.y);

  Big b;
  b.a = 100;
  b.b = 200;
  b.c = 300;
  Big b2 = f_big(b, t);
  printf("f_big -> %ld %ld %ld (mine %ld %ld %ld)\n", b2.a, b2.b, b2.c, b.a, b.b, b.c);

  FFF f;
  f.a = 1.5f;
  f.b = 2.5f;
  f.c = 3.5f;
  C3 c;
  c.c[0] = 'x';
  c.c[1] = 'y';
  c.c[2] = 'z';
  FFF f2 = f_fff(f, c);
  printf("f_fff -> %g %g %g\n", f2.a, f2.b, f2.c);
  C3 c2 = f_c3(c);
  printf("f_c3 -> %c%c%c\n", c2.c[0], c2.c[1], c2.c[2]);

  Empty e;
  EF ef;
  ef.f = 0.5f;
  Gap g;
  g.f = 8.0f;
  EF ef2 = f_ef(e, ef, g, 3);
  printf("f_ef -> %g\n", ef2.f);
  f_empty(4);

  LL s;
  s.a = 11;
  s.b = 22;
  printf("f_int_pressure -> %ld\n", f_int_pressure(1, 2, 3, 4, 5, s, 6));
  DD q;
  q.x = 0.5;
  q.y = 0.25;
  printf("f_sse_pressure -> %g\n", f_sse_pressure(1, 2, 3, 4, 5, 6, 7, q, 8));

  TwoFn p = f_pointer();
  Two t3 = p(t, w);
  printf("through a pointer -> %d %d\n", t3.a, t3.b);

  Maker m;
  m.base = 9;
  Two t5 = m.make(4);
  Big b5 = m.makeBig(t5);
  printf("methods -> %d %d | %ld %ld %ld\n", t5.a, t5.b, b5.a, b5.b, b5.c);

  ID v0;
  v0.i = 0;
  v0.d = 0;
  Two t4 = f_throw(v0, b, t);
  printf("f_throw returned %d %d\n", t4.a, t4.b);
  try {
    Guard gd(1);
    f_throw(v, b, t2);
  } catch (Big& caught) {
    printf("caught Big(%ld,%ld,%ld)\n", caught.a, caught.b, caught.c);
  }

  DD r = f_call_back(mix, w, b);
  printf("f_call_back -> %g %g\n", r.x, r.y);
  try {
    Guard gd(2);
    Big neg;
    neg.a = -1;
    neg.b = 2;
    neg.c = 3;
    f_call_back(mix, q, neg);
  } catch (DD& caught) {
    printf("caught DD(%g,%g)\n", caught.x, caught.y);
  }

  ID n1 = named(6);
  printf("named -> %d %g\n", n1.i, n1.d);
  try {
    Guard gd(3);
    n1 = named(101);
  } catch (int k) {
    printf("caught %d; n1 still %d %g\n", k, n1.i, n1.d);
  }
  return 0;
}
