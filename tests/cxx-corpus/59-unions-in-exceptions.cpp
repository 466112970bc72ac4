// Unions: an error class that holds one of several payloads in an anonymous union
// (tagged by a member), copied into the exception object and out into a by-value
// handler, and a named union whose members share their storage.
#include <cstdio>
#include <cstring>

union Bits {
  unsigned int word;
  unsigned char bytes[4];
};

struct Failure {
  enum Kind { Code, Text, Ratio } kind;
  union {
    int code;
    char text[12];
    double ratio;
  };
  explicit Failure(int c) : kind(Code), code(c) {}
  explicit Failure(const char *t) : kind(Text) { std::strncpy(text, t, sizeof text - 1); text[11] = 0; }
  explicit Failure(double r) : kind(Ratio), ratio(r) {}
  void print() const {
    switch (kind) {
    case Code: std::printf("code %d\n", code); break;
    case Text: std::printf("text %s\n", text); break;
    case Ratio: std::printf("ratio %.2f\n", ratio); break;
    }
  }
};

static void fail(int which) {
  if (which == 0)
    throw Failure(404);
  if (which == 1)
    throw Failure("timeout");
  throw Failure(0.25);
}

int main() {
  int status = 0;
  for (int i = 0; i < 3; ++i) {
    try {
      fail(i);
    } catch (Failure f) {
      f.print();
      status += f.kind;
    }
  }
  Bits b;
  b.word = 0x01020304u;
  std::printf("sizeof %d, low byte %d\n", (int)sizeof(Bits), b.bytes[0]);
  std::printf("sizeof Failure %d\n", (int)sizeof(Failure));
  return status + b.bytes[0];
}
