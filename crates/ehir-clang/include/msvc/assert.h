/* <assert.h> for ehir's Windows target: msvcrt's _assert prints the message on stderr
   and aborts (exit status 3). Not guarded: NDEBUG may change between inclusions. */
#include "_ehir_msvc.h"
#undef assert
EHIR_BEGIN_C
__declspec(noreturn) void __cdecl _assert(const char *message, const char *file, unsigned line);
EHIR_END_C
#ifdef NDEBUG
#define assert(expression) ((void)0)
#else
#define assert(expression) \
  ((void)((!!(expression)) || (_assert(#expression, __FILE__, __LINE__), 0)))
#endif
