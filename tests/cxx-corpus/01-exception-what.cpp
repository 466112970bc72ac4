// A class deriving from std::exception overrides what(); caught through the base.
#include <cstdio>
#include <cstring>
#include <exception>

class ParseError : public std::exception {
public:
  explicit ParseError(int line) : line_(line) { std::sprintf(text_, "parse error at line %d", line); }
  const char *what() const noexcept override { return text_; }
  int line() const { return line_; }

private:
  int line_;
  char text_[64];
};

static int parse(const char *input) {
  int line = 1;
  for (const char *p = input; *p; ++p) {
    if (*p == '\n')
      ++line;
    if (*p == '!')
      throw ParseError(line);
  }
  return line;
}

int main() {
  std::printf("lines: %d\n", parse("a\nb\nc"));
  try {
    parse("ok\nstill ok\nbad!");
  } catch (const std::exception &e) {
    std::printf("caught: %s\n", e.what());
  }
  try {
    parse("!");
  } catch (const ParseError &e) {
    std::printf("line %d, %d chars\n", e.line(), (int)std::strlen(e.what()));
    return e.line() + 10;
  }
  return 0;
}
