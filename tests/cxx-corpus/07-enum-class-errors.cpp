// An enum class thrown and caught by value, and one as a member of an exception.
#include <cstdio>

enum class Errc : unsigned char { none, timeout, refused, reset };

struct NetError {
  Errc code;
  int attempt;
};

static const char *text(Errc e) {
  switch (e) {
  case Errc::none: return "none";
  case Errc::timeout: return "timeout";
  case Errc::refused: return "refused";
  case Errc::reset: return "reset";
  }
  return "?";
}

static void connect(int attempt) {
  if (attempt == 0)
    throw Errc::timeout;
  if (attempt == 1)
    throw NetError{Errc::refused, attempt};
  if (attempt == 2)
    throw NetError{Errc::reset, attempt};
}

int main() {
  int codes = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    try {
      connect(attempt);
      std::printf("attempt %d connected\n", attempt);
    } catch (Errc e) {
      std::printf("attempt %d: %s\n", attempt, text(e));
      codes += static_cast<int>(e);
    } catch (const NetError &e) {
      std::printf("attempt %d: net error %s\n", e.attempt, text(e.code));
      codes += static_cast<int>(e.code);
    }
  }
  return codes;
}
