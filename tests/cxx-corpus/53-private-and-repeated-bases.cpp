// What a handler for a base class catches when the base is private, reached twice, or
// shared through virtual inheritance.
#include <cstdio>

struct Error {
  int code;
};
struct Io : Error {};
struct Parse : Error {};
struct Both : Io, Parse {};           // Error twice: a handler for Error cannot catch it
struct Hidden : private Error {};     // private: a handler for Error cannot catch it
struct VIo : virtual Error {};
struct VParse : virtual Error {};
struct Shared : VIo, VParse {};       // Error once, shared
struct Mixed : VIo, private VParse {}; // Error reachable publicly through VIo

template <class T> static int classify(T thrown) {
  try {
    throw thrown;
  } catch (Error &e) {
    return 1;
  } catch (Io &) {
    return 2;
  } catch (...) {
    return 3;
  }
}

int main() {
  Shared s;
  s.code = 7;
  Mixed m;
  m.code = 8;
  int codes[] = {classify(Io{}), classify(Both{}), classify(Hidden{}), classify(s),
                 classify(m)};
  for (int c : codes)
    std::printf("%d ", c);
  std::printf("\n");
  try {
    throw &s;
  } catch (VParse *p) {
    std::printf("shared code through VParse %d\n", p->code);
  }
  try {
    throw &m;
  } catch (Error *e) {
    std::printf("mixed code through Error %d\n", e->code);
  }
  return codes[0] * 10000 + codes[1] * 1000 + codes[2] * 100 + codes[3] * 10 + codes[4];
}
