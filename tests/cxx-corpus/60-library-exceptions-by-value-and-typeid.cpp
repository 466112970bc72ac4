// The standard exceptions the library builds: thrown from a message, copied into
// by-value handlers, asked what() virtually and by name, compared by typeid, and used
// as the base of a class of the program that keeps the library's what().
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <typeinfo>

struct ConfigError : std::runtime_error {
  int line;
  ConfigError(const char *what, int l) : std::runtime_error(what), line(l) {}
};

struct Shape {
  virtual ~Shape() {}
};
struct Circle : Shape {};

static void parse(int step) {
  switch (step) {
  case 0:
    throw std::invalid_argument("bad digit");
  case 1:
    throw std::length_error("too long");
  case 2:
    throw ConfigError("missing key", 12);
  case 3: {
    Shape plain;
    Shape &s = plain;
    (void)dynamic_cast<Circle &>(s);
    break;
  }
  default:
    throw std::overflow_error("too big");
  }
}

int main() {
  int score = 0;
  for (int step = 0; step < 5; ++step) {
    try {
      parse(step);
    } catch (std::logic_error e) {
      // A copy, by the library's copy constructor.
      std::printf("logic_error copy: %s, length_error? %d\n", e.what(),
                  (int)(typeid(e) == typeid(std::length_error)));
      score += 1;
    } catch (const ConfigError &e) {
      std::printf("config error at line %d: %s\n", e.line, e.what());
      score += 10;
    } catch (const std::exception &e) {
      bool cast = typeid(e) == typeid(std::bad_cast);
      bool overflow = typeid(e) == typeid(std::overflow_error);
      std::printf("exception: bad_cast %d, overflow_error %d, has text %d\n", (int)cast,
                  (int)overflow, (int)(std::strlen(e.what()) > 0));
      score += cast ? 100 : 1000;
    }
  }
  std::runtime_error kept("kept");
  std::runtime_error copy = kept;
  std::printf("copy says %s\n", copy.what());
  return score % 256;
}
