// A class template's instantiation whose anonymous union member Clang spells
// `union (anonymous at PATH:L:C)`, a constructor template of a class (found among the
// specializations of its `FunctionTemplateDecl`), and the character types `wchar_t`,
// `char16_t`, `char32_t` (sizes, signedness, values): checked against g++ (the oracle)
// at every interpreter phase and natively.
// RUN: g++ -std=c++17 -w -o %t.gxx %s && %t.gxx > %t.expected; test $? -eq 4
// RUN: %ehir run --phase all %s > %t.run; test $? -eq 4
// RUN: diff %t.expected %t.run
// RUN: %ehir build %s -o %t.exe
// RUN: %t.exe > %t.native; test $? -eq 4
// RUN: diff %t.expected %t.native
#include <cstdio>

template <class T> struct Small {
  unsigned length;
  union {
    T local[4];
    unsigned long capacity;
  };
  Small() : length(0), capacity(0) {}
  ~Small() { std::printf("~Small(%u)\n", length); }
  void push(T c) {
    if (length == 4)
      throw length;
    local[length++] = c;
  }
};

struct Meter {
  long value;
  template <class Number> Meter(Number n, int scale) : value((long)n * scale) {}
};

int main() {
  wchar_t wide = L'w';
  char16_t narrow16 = u'x';
  char32_t wide32 = U'y';
  wchar_t negative = (wchar_t)-1;
  std::printf("sizes %zu %zu %zu, %d %d %d, negative %d\n", sizeof(wide), sizeof(narrow16),
              sizeof(wide32), (int)wide, (int)narrow16, (int)wide32, negative < 0);
  Meter meter(2.5, 4);
  Meter other(3, 2);
  std::printf("meters %ld %ld\n", meter.value, other.value);
  Small<char> text;
  try {
    for (char c = 'a'; c < 'z'; ++c)
      text.push(c);
  } catch (unsigned full) {
    std::printf("full at %u: %.4s\n", full, text.local);
  }
  return (int)text.length;
}
