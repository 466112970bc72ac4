/* <stdlib.h> for ehir's Windows target: what msvcrt.dll exports. */
#ifndef EHIR_MSVC_STDLIB_H
#define EHIR_MSVC_STDLIB_H
#include "_ehir_msvc.h"
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 0x7fff
EHIR_BEGIN_C
void *__cdecl malloc(size_t size);
void *__cdecl calloc(size_t count, size_t size);
void *__cdecl realloc(void *block, size_t size);
void __cdecl free(void *block);
__declspec(noreturn) void __cdecl exit(int status);
__declspec(noreturn) void __cdecl _exit(int status);
__declspec(noreturn) void __cdecl abort(void);
int __cdecl atexit(void(__cdecl *function)(void));
int __cdecl atoi(const char *text);
long __cdecl atol(const char *text);
double __cdecl atof(const char *text);
char *__cdecl getenv(const char *name);
int __cdecl rand(void);
void __cdecl srand(unsigned int seed);
int __cdecl abs(int value);
long __cdecl labs(long value);
EHIR_END_C
#endif
