// Built by ehir: calls functions built by g++ (ehir-passes-by-value.gxx.cpp) that take
// and return classes by value, directly and through function pointers, and catches an
// exception thrown by g++ code while by-value arguments are live in both frames. Classes
// trivial for the purposes of calls travel as the x86-64 System V ABI says (registers,
// byval copies, sret); others by invisible reference.
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

Two gxx_two(Two t, int k);
ID gxx_id(ID v, DD w);
DD gxx_dd(DD a, DD b);
Big gxx_big(Big b, Two t);
FFF gxx_fff(FFF f, C3 c);
C3 gxx_c3(C3 c);
EF gxx_ef(Empty e, EF v, Gap g, int k);
Empty gxx_empty(int k);
long gxx_int_pressure(int a, int b, int c, int d, int e, LL s, int f);
double gxx_sse_pressure(double a, double b, double c, double d, double e, double f,
                        double g, DD s, double h);
int gxx_nt(NT n, Two t);
void gxx_throw_big(Big b, Two t);
typedef Two (*TwoFn)(Two, DD);
TwoFn gxx_pointer();
Big gxx_call_back(Big (*f)(Big, ID), Big b, ID i);

struct Trace {
  Two t;
  Trace(Two x) : t(x) { printf("ehir Trace(%d,%d)\n", t.a, t.b); }
  ~Trace() { printf("ehir ~Trace(%d,%d)\n", t.a, t.b); }
};

NT::NT(int x) : v(x) { printf("ehir NT(%d)\n", v); }
NT::NT(const NT& o) : v(o.v + 100) { printf("ehir NT copy(%d)\n", v); }
NT::~NT() { printf("ehir ~NT(%d)\n", v); }

// Called back by g++ through a pointer: a memory-class result and argument, and a mixed
// INTEGER/SSE argument.
Big ehir_combine(Big b, ID i) {
  b.a += i.i;
  b.c += (long)(i.d * 10);
  printf("ehir_combine(%ld,%ld,%ld | %d,%g)\n", b.a, b.b, b.c, i.i, i.d);
  return b;
}

// Takes a class by value and keeps it live (in a cleanup) while g++ code throws.
void ehir_forward_throw(Big b, Two t) {
  Trace tr(t);
  b.a = -b.a;
  gxx_throw_big(b, t);
  printf("not reached\n");
}

int main() {
  Two t;
  t.a = 1;
  t.b = 2;
  Two t2 = gxx_two(t, 10);
  printf("gxx_two -> %d %d (mine %d %d)\n", t2.a, t2.b, t.a, t.b);

  ID v;
  v.i = 7;
  v.d = 2.5;
  DD w;
  w.x = 0.25;
  w.y = -4.0;
  ID v2 = gxx_id(v, w);
  printf("gxx_id -> %d %g (mine %d %g)\n", v2.i, v2.d, v.i, v.d);

  DD d = gxx_dd(w, w);
  printf("gxx_dd -> %g %g\n", d.x, d.y);

  Big b;
  b.a = 100;
  b.b = 200;
  b.c = 300;
  Big b2 = gxx_big(b, t);
  printf("gxx_big -> %ld %ld %ld (mine %ld %ld %ld)\n", b2.a, b2.b, b2.c, b.a, b.b, b.c);

  FFF f;
  f.a = 1.5f;
  f.b = 2.5f;
  f.c = 3.5f;
  C3 c;
  c.c[0] = 'x';
  c.c[1] = 'y';
  c.c[2] = 'z';
  FFF f2 = gxx_fff(f, c);
  printf("gxx_fff -> %g %g %g\n", f2.a, f2.b, f2.c);
  C3 c2 = gxx_c3(c);
  printf("gxx_c3 -> %c%c%c\n", c2.c[0], c2.c[1], c2.c[2]);

  Empty e;
  EF ef;
  ef.f = 0.5f;
  Gap g;
  g.f = 8.0f;
  EF ef2 = gxx_ef(e, ef, g, 3);
  printf("gxx_ef -> %g\n", ef2.f);
  Empty e2 = gxx_empty(4);
  (void)e2;

  LL s;
  s.a = 11;
  s.b = 22;
  printf("gxx_int_pressure -> %ld\n", gxx_int_pressure(1, 2, 3, 4, 5, s, 6));
  DD q;
  q.x = 0.5;
  q.y = 0.25;
  printf("gxx_sse_pressure -> %g\n",
         gxx_sse_pressure(1, 2, 3, 4, 5, 6, 7, q, 8));

  NT n(5);
  printf("gxx_nt -> %d\n", gxx_nt(n, t));

  TwoFn p = gxx_pointer();
  Two t3 = p(t, w);
  printf("through g++'s pointer -> %d %d\n", t3.a, t3.b);

  Big b3 = gxx_call_back(ehir_combine, b, v);
  printf("gxx_call_back -> %ld %ld %ld\n", b3.a, b3.b, b3.c);

  try {
    Trace outer(t2);
    ehir_forward_throw(b, t);
  } catch (Big& caught) {
    printf("ehir caught Big(%ld,%ld,%ld); mine still %ld %ld %ld\n", caught.a, caught.b,
           caught.c, b.a, b.b, b.c);
  }
  return 0;
}
