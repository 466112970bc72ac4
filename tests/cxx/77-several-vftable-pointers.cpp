// Classes with several vtable pointers (Microsoft ABI: several vftables): virtual calls,
// typeid and dynamic_cast through each base, an override reached through a second base
// (a this-adjusting thunk), a virtual destructor that only a second base declares, and
// an exception of such a class caught by each base.
#include <stdio.h>
#include <typeinfo>

struct X {
  virtual void x() { printf("X::x\n"); }
  int a = 1;
};
struct Y {
  virtual void y() { printf("Y::y\n"); }
  int b = 2;
};
struct P : X, Y {
  virtual void p() { printf("P::p %d\n", b); }
  void y() override { printf("P::y %d %d\n", a, b); }
};
struct Q {
  virtual void q() { printf("Q::q\n"); }
};
struct E {
  int e = 5;
};
// P and Q have vtable pointers, E has none.
struct D : E, P, Q {
  void q() override { printf("D::q %d %d\n", e, a); }
  virtual ~D() { printf("~D\n"); }
  void x() override { printf("D::x %d\n", e); }
};
// X twice: once directly, once in R.
struct R : X {
  virtual void r() { printf("R::r %d\n", a); }
};
struct T : X, R {
  void x() override { printf("T::x\n"); }
};
// Only the second base has a virtual destructor.
struct A {
  virtual void f() { printf("A::f\n"); }
  int a = 1;
};
struct B {
  virtual ~B() { printf("~B\n"); }
  int b = 2;
};
struct C : A, B {
  ~C() { printf("~C %d %d %d\n", a, b, c); }
  void f() override { printf("C::f %d\n", c); }
  int c = 3;
};
struct F : C {
  ~F() { printf("~F\n"); }
};

int main() {
  int status = 0;
  D *d = new D;
  Q *q = d;
  Y *y = d;
  X *x = d;
  P *p = d;
  q->q();
  y->y();
  x->x();
  p->p();
  d->y();
  d->q();
  printf("typeid %d %d\n", typeid(*q) == typeid(D), typeid(*y) == typeid(D));
  printf("cast %d %d %d\n", dynamic_cast<D *>(q) == d, dynamic_cast<Q *>(y) == q,
         dynamic_cast<void *>(y) == (void *)d);
  delete d;

  T t;
  R *r = &t;
  r->x();
  r->r();
  static_cast<X *>(r)->x();

  B *b = new C;
  delete b;
  A *a = new F;
  a->f();
  delete static_cast<B *>(static_cast<F *>(a));
  C *c = new F;
  ::delete c;

  try {
    throw D();
  } catch (Q &caught) {
    caught.q();
    status += 1;
  }
  try {
    throw D();
  } catch (Y &caught) {
    caught.y();
    status += 10;
  }
  return status;
}
