// The g++ twin of seed-callees.cir and seeds/entry-*.cir, for the native reference of the
// Microsoft-ABI seed scenarios (crates/ehir/tests/msvc_e2e.rs). Compiled with
// `-include tests/e2e/itanium/harness.h` (SomeClass, f, someFunc) and linked with the
// seed's C++ listing and seed-harness.cpp. The entry is chosen as in the Itanium harness:
// `void someFunc()` by default, `int someFunc()` with -DEHIR_ENTRY_INT, the base-object
// constructor `_ZN7DerivedC2Ev` with -DEHIR_ENTRY_DERIVED.
#include <cstdio>

int called(const char *name);

SomeClass::SomeClass() : id(0) { called("_ZN9SomeClassC1Ev"); }
SomeClass::~SomeClass() noexcept(false) { called("_ZN9SomeClassD1Ev"); }
void SomeClass::doSomething() { called("_ZN9SomeClass11doSomethingEv"); }
int SomeClass::get() { return called("_ZN9SomeClass3getEv"); }
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
void derived_base_ctor(void *self) __asm__("_ZN7DerivedC2Ev");
#endif

void ehir_entry() {
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
}
