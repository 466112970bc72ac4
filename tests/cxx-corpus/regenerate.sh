#!/usr/bin/env bash
# Writes the recorded expectations of the C++ programs (format: tests/cxx-corpus/README.md).
#  - tests/cxx-corpus/NN-name.expected: what `g++ -std=c++17 -O0` makes NN-name.cpp print
#    and return;
#  - NN-name.expected-msvc next to tests/cxx-corpus/*.cpp, tests/cxx/*.cpp and
#    examples/*.cpp: what Clang for Windows makes it do under wine, only where that differs
#    from g++ (written by crates/ehir/tests/clang_windows_oracle.rs in recording mode).
# Needs g++, clang++-22, LLVM 19 (llc, llvm-dlltool, lld-link) and wine.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for source in tests/cxx-corpus/*.cpp; do
  g++ -std=c++17 -O0 -w "$source" -o "$scratch/program"
  status=0
  "$scratch/program" >"$scratch/stdout" </dev/null 2>/dev/null || status=$?
  { printf 'exit %d\n' "$status"; cat "$scratch/stdout"; } >"${source%.cpp}.expected"
done
echo "recorded g++ for $(ls tests/cxx-corpus/*.cpp | wc -l) programs"

EHIR_RECORD_WINDOWS_EXPECTATIONS=1 cargo test -q -p ehir --test clang_windows_oracle \
  -- --nocapture under_clang_for_windows
