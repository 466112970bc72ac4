// Exceptions declared in nested namespaces, caught by qualified and using-declared names.
#include <cstdio>

namespace app {
namespace storage {
struct Error {
  int code;
};
struct NotFound : Error {
  const char *key;
  explicit NotFound(const char *k) : Error{404}, key(k) {}
};
inline void lookup(const char *key) {
  if (key[0] == 'x')
    throw NotFound(key);
  if (key[0] == 'e')
    throw Error{500};
  std::printf("found %s\n", key);
}
} // namespace storage
namespace ui {
auto describe(const storage::Error &e) -> const char * { return e.code == 404 ? "missing" : "broken"; }
} // namespace ui
} // namespace app

using app::storage::Error;
namespace st = app::storage;

int main() {
  const char *keys[] = {"alpha", "xray", "echo", "beta"};
  auto failures = 0;
  for (auto key : keys) {
    try {
      st::lookup(key);
    } catch (const st::NotFound &e) {
      ++failures;
      std::printf("%s: %s (%d)\n", e.key, app::ui::describe(e), e.code);
    } catch (const Error &e) {
      ++failures;
      std::printf("error: %s (%d)\n", app::ui::describe(e), e.code);
    }
  }
  return failures;
}
