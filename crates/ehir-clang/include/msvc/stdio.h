/* <stdio.h> for ehir's Windows target: what msvcrt.dll exports. */
#ifndef EHIR_MSVC_STDIO_H
#define EHIR_MSVC_STDIO_H
#include "_ehir_msvc.h"
EHIR_BEGIN_C
/* msvcrt's stream: struct _iobuf, 48 bytes on x86-64. */
struct _iobuf {
  char *_ptr;
  int _cnt;
  char *_base;
  int _flag;
  int _file;
  int _charbuf;
  int _bufsiz;
  char *_tmpfname;
};
typedef struct _iobuf FILE;
FILE *__cdecl __iob_func(void);
#define stdin (&__iob_func()[0])
#define stdout (&__iob_func()[1])
#define stderr (&__iob_func()[2])
#define EOF (-1)
#define _IOFBF 0x0000
#define _IOLBF 0x0040
#define _IONBF 0x0004
int __cdecl printf(const char *format, ...);
int __cdecl fprintf(FILE *stream, const char *format, ...);
int __cdecl sprintf(char *buffer, const char *format, ...);
int __cdecl _snprintf(char *buffer, size_t count, const char *format, ...);
int __cdecl puts(const char *text);
int __cdecl putchar(int character);
int __cdecl fputs(const char *text, FILE *stream);
int __cdecl fflush(FILE *stream);
int __cdecl setvbuf(FILE *stream, char *buffer, int mode, size_t size);
EHIR_END_C
#endif
