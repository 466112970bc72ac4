#!/bin/sh
# Builds an x86_64-pc-windows-msvc LLVM IR file into a PE executable with LLVM 19 (llc,
# llvm-dlltool, lld-link) and runs it under wine, headless; prints its stdout with CRs
# stripped and exits with its exit status. The Microsoft runtime comes from wine's
# msvcrt.dll through an import library made here.
#   usage: run.sh FILE.ll [WORKDIR]
# WINEPREFIX defaults to $TMPDIR/ehir-wine-prefix (created on first use, ~10 s, ~700 MB).
set -eu
ll=$1
work=${2:-$(mktemp -d)}
bindir=${EHIR_LLVM_BINDIR:-$(llvm-config-19 --bindir)}
name=$(basename "$ll" .ll)
mkdir -p "$work"
printf 'LIBRARY msvcrt.dll\nEXPORTS\nprintf\nputs\nfflush\nexit\nabort\n_CxxThrowException\n__CxxFrameHandler3\n?terminate@@YAXXZ\n' > "$work/msvcrt.def"
"$bindir/llvm-dlltool" -m i386:x86-64 -d "$work/msvcrt.def" -l "$work/msvcrt.lib"
"$bindir/llc" -mtriple=x86_64-pc-windows-msvc -filetype=obj "$ll" -o "$work/$name.obj"
"$bindir/lld-link" /nologo /entry:main /subsystem:console /nodefaultlib /machine:x64 \
  "/out:$work/$name.exe" "$work/$name.obj" "$work/msvcrt.lib"
export WINEPREFIX="${WINEPREFIX:-${TMPDIR:-/tmp}/ehir-wine-prefix}"
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winedbg.exe=d"
unset DISPLAY
status=0
wine "$work/$name.exe" > "$work/$name.stdout" 2> "$work/$name.stderr" || status=$?
tr -d '\r' < "$work/$name.stdout"
exit $status
