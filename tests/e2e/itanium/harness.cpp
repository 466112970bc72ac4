// The other half of every seed scenario: the external functions the seed listings call
// (each prints `call @<mangled name>` and then throws or returns what the environment
// scripts) and a `main` that calls the scenario's entry.
//
// Scripting uses the interpreter's spellings (`ehir run --throw-at/--returns`), several
// specs separated by spaces:
//   EHIR_THROW_AT='@_ZN9SomeClass11doSomethingEv#2=int:7'   the 2nd call throws int 7
//   EHIR_RETURNS='@_ZN9SomeClass3getEv=5,7'                  successive results
// Thrown types: int, float, double, const char*, std::exception.
//
// Entries: `void someFunc()` (default), `int someFunc()` (-DEHIR_ENTRY_INT), or the base
// object constructor `_ZN7DerivedC2Ev` of the seed's EH-only cleanup (-DEHIR_ENTRY_DERIVED).
// An exception escaping the entry prints `escape` and exits 1, as `ehir run` reports it.
#include "harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct ThrowSpec {
  std::string callee;
  long nth; // 0: every call
  std::string type;
  std::string value;
};

struct ReturnSpec {
  std::string callee;
  std::vector<long> values;
};

std::vector<ThrowSpec> throw_specs;
std::vector<ReturnSpec> return_specs;
std::map<std::string, long> call_counts;

std::vector<std::string> words(const char *text) {
  std::vector<std::string> out;
  if (!text)
    return out;
  std::string cur;
  for (const char *p = text;; ++p) {
    if (*p == ' ' || *p == '\0') {
      if (!cur.empty())
        out.push_back(cur);
      cur.clear();
      if (*p == '\0')
        break;
    } else {
      cur += *p;
    }
  }
  return out;
}

[[noreturn]] void bad_spec(const std::string &spec) {
  fprintf(stderr, "harness: cannot parse spec '%s'\n", spec.c_str());
  exit(99);
}

void parse_specs() {
  for (const std::string &s : words(getenv("EHIR_THROW_AT"))) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || s[0] != '@')
      bad_spec(s);
    std::string lhs = s.substr(1, eq - 1), rhs = s.substr(eq + 1);
    ThrowSpec t{lhs, 1, rhs, ""};
    size_t hash = lhs.rfind('#');
    if (hash != std::string::npos) {
      t.callee = lhs.substr(0, hash);
      std::string n = lhs.substr(hash + 1);
      t.nth = n == "*" ? 0 : atol(n.c_str());
    }
    // The value follows the last ':' that is not part of '::'.
    for (size_t i = rhs.size(); i-- > 0;) {
      if (rhs[i] == ':' && (i + 1 >= rhs.size() || rhs[i + 1] != ':') &&
          (i == 0 || rhs[i - 1] != ':')) {
        t.type = rhs.substr(0, i);
        t.value = rhs.substr(i + 1);
        break;
      }
    }
    throw_specs.push_back(t);
  }
  for (const std::string &s : words(getenv("EHIR_RETURNS"))) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || s[0] != '@')
      bad_spec(s);
    ReturnSpec r{s.substr(1, eq - 1), {}};
    std::string values = s.substr(eq + 1) + ",";
    size_t start = 0;
    for (size_t comma; (comma = values.find(',', start)) != std::string::npos;
         start = comma + 1)
      r.values.push_back(atol(values.substr(start, comma - start).c_str()));
    return_specs.push_back(r);
  }
}

[[noreturn]] void throw_as(const std::string &type, const std::string &value) {
  if (type == "int")
    throw static_cast<int>(atol(value.c_str()));
  if (type == "float")
    throw static_cast<float>(atof(value.c_str()));
  if (type == "double")
    throw atof(value.c_str());
  if (type == "const char*")
    throw static_cast<const char *>(strdup(value.c_str()));
  if (type == "std::exception")
    throw std::exception();
  fprintf(stderr, "harness: cannot throw '%s'\n", type.c_str());
  exit(99);
}

// Logs a call of an external function, then throws or returns what the specs say.
long called(const char *name) {
  printf("call @%s\n", name);
  long n = ++call_counts[name];
  for (const ThrowSpec &t : throw_specs)
    if (t.callee == name && (t.nth == 0 || t.nth == n))
      throw_as(t.type, t.value);
  for (const ReturnSpec &r : return_specs)
    if (r.callee == name && !r.values.empty())
      return r.values[static_cast<size_t>(n) - 1 < r.values.size()
                          ? static_cast<size_t>(n) - 1
                          : r.values.size() - 1];
  return 0;
}

} // namespace

SomeClass::SomeClass() : id(0) { called("_ZN9SomeClassC1Ev"); }
SomeClass::~SomeClass() noexcept(false) { called("_ZN9SomeClassD1Ev"); }
void SomeClass::doSomething() { called("_ZN9SomeClass11doSomethingEv"); }
int SomeClass::get() { return static_cast<int>(called("_ZN9SomeClass3getEv")); }
void f() { called("_Z1fv"); }
// The seed's multiple-catch listings call `f` by its unmangled name.
void f_unmangled() __asm__("f");
void f_unmangled() { called("f"); }

#if defined(EHIR_ENTRY_DERIVED)
// The seed's `Base`, whose constructor and destructor are only declared there.
class Base {
public:
  Base();
  ~Base();
};
Base::Base() { called("_ZN4BaseC2Ev"); }
Base::~Base() { called("_ZN4BaseD2Ev"); }
// `Derived::Derived()` as a base-object constructor: the symbol both builds define.
void derived_base_ctor(void *self) __asm__("_ZN7DerivedC2Ev");
#endif

int main() {
  // Unbuffered, so output written before std::terminate aborts the process survives.
  setvbuf(stdout, nullptr, _IONBF, 0);
  parse_specs();
  try {
#if defined(EHIR_ENTRY_DERIVED)
    alignas(16) static char storage[64];
    derived_base_ctor(storage);
    printf("leave @_ZN7DerivedC2Ev\n");
#elif defined(EHIR_ENTRY_INT)
    int result = someFunc();
    printf("leave @someFunc = %d\n", result);
#else
    someFunc();
    printf("leave @someFunc\n");
#endif
  } catch (...) {
    printf("escape\n");
    return 1;
  }
  return 0;
}
