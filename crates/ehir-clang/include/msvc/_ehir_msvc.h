/* Common definitions of ehir's Windows headers (x86-64, Microsoft ABI, msvcrt.dll).
   Written from the ABI's public facts: LLP64 (long is 32 bits), size_t is 64 bits,
   every function below is exported by msvcrt.dll or defined by ehir's startup object. */
#ifndef EHIR_MSVC_COMMON_H
#define EHIR_MSVC_COMMON_H
#ifdef __cplusplus
#define EHIR_EXTERN_C extern "C"
#define EHIR_BEGIN_C extern "C" {
#define EHIR_END_C }
#define EHIR_NOTHROW throw()
#else
#define EHIR_EXTERN_C extern
#define EHIR_BEGIN_C
#define EHIR_END_C
#define EHIR_NOTHROW
#endif
#ifndef _SIZE_T_DEFINED
#define _SIZE_T_DEFINED
typedef unsigned long long size_t;
#endif
#ifndef NULL
#ifdef __cplusplus
#define NULL 0
#else
#define NULL ((void *)0)
#endif
#endif
#endif
