/* <string.h> for ehir's Windows target: what msvcrt.dll exports. */
#ifndef EHIR_MSVC_STRING_H
#define EHIR_MSVC_STRING_H
#include "_ehir_msvc.h"
EHIR_BEGIN_C
void *__cdecl memcpy(void *destination, const void *source, size_t size);
void *__cdecl memmove(void *destination, const void *source, size_t size);
void *__cdecl memset(void *destination, int value, size_t size);
int __cdecl memcmp(const void *left, const void *right, size_t size);
size_t __cdecl strlen(const char *text);
int __cdecl strcmp(const char *left, const char *right);
int __cdecl strncmp(const char *left, const char *right, size_t count);
char *__cdecl strcpy(char *destination, const char *source);
char *__cdecl strncpy(char *destination, const char *source, size_t count);
char *__cdecl strcat(char *destination, const char *source);
char *__cdecl strchr(const char *text, int character);
char *__cdecl strrchr(const char *text, int character);
char *__cdecl strstr(const char *text, const char *pattern);
char *__cdecl _strdup(const char *text);
EHIR_END_C
#endif
