#!/usr/bin/env bash
# Build time of C++ programs: `ehir build` (Clang's AST, CIRGen, the EH passes, llc -O0,
# the link) against `clang++-22 -O0` (compile and link) on the same programs, in one
# interleaved run (each round times every program with both, in alternating order, so
# that a change of the machine's load hits both alike). Target: ehir at most 2x Clang.
#
#   bench/compare-clang-build.sh [PROGRAM.cpp...]
#
# Default programs: the corpus of everyday C++ around exceptions (tests/cxx-corpus, in
# C++17) and examples/eh-tour.cpp; programs ehir does not build yet are listed and left
# out. ROUNDS (default 3) rounds; each program's figure is its best round. Prints, per
# program, the best wall time of each and the ratio, then the totals and the ratio of
# the totals (the figure the target is about) and the median per-program ratio.
# Needs clang-22, llvm-19 (llc) and g++ (the Itanium link).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
std=${STD:-c++17}
clang=${EHIR_CLANG:-clang++-22}
command -v "$clang" >/dev/null || { echo "$clang not found: apt-get install clang-22" >&2; exit 1; }
cargo build -q --release -p ehir
ehir=${CARGO_TARGET_DIR:-target}/release/ehir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
  candidates=("$@")
else
  candidates=(tests/cxx-corpus/*.cpp examples/eh-tour.cpp)
fi

# The programs both build.
programs=()
for p in "${candidates[@]}"; do
  if ! "$ehir" --std="$std" build "$p" -o "$tmp/probe" 2>"$tmp/err"; then
    echo "left out (ehir does not build it): $p: $(grep -m1 'error' "$tmp/err" | cut -c1-120)"
    continue
  fi
  if ! "$clang" -std="$std" -O0 -w "$p" -o "$tmp/probe" 2>/dev/null; then
    echo "left out (clang++ does not build it): $p"
    continue
  fi
  programs+=("$p")
done
[ ${#programs[@]} -gt 0 ] || { echo "no program to measure" >&2; exit 1; }

# seconds COMMAND...: the wall time of one run of COMMAND (its output discarded).
seconds() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}

declare -A best_ehir best_clang
for p in "${programs[@]}"; do
  best_ehir[$p]=999999
  best_clang[$p]=999999
done
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }
for round in $(seq 1 "$rounds"); do
  for p in "${programs[@]}"; do
    ehir_run() { best_ehir[$p]=$(min "$(seconds "$ehir" --std="$std" build "$p" -o "$tmp/ehir.exe")" "${best_ehir[$p]}"); }
    clang_run() { best_clang[$p]=$(min "$(seconds "$clang" -std="$std" -O0 -w "$p" -o "$tmp/clang.exe")" "${best_clang[$p]}"); }
    if [ $((round % 2)) -eq 1 ]; then
      ehir_run
      clang_run
    else
      clang_run
      ehir_run
    fi
  done
done

printf '%-44s %10s %10s %7s\n' program 'ehir s' 'clang s' ratio
total_ehir=0
total_clang=0
ratios=()
for p in "${programs[@]}"; do
  e=${best_ehir[$p]}
  c=${best_clang[$p]}
  r=$(echo "$e / $c" | bc -l)
  ratios+=("$r")
  total_ehir=$(echo "$total_ehir + $e" | bc -l)
  total_clang=$(echo "$total_clang + $c" | bc -l)
  printf '%-44s %10.3f %10.3f %6.2fx\n' "$(basename "$p")" "$e" "$c" "$r"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
printf '%-44s %10.3f %10.3f %6.2fx\n' "total (${#programs[@]} programs, best of $rounds)" \
  "$total_ehir" "$total_clang" "$(echo "$total_ehir / $total_clang" | bc -l)"
printf 'median per-program ratio: %.2fx (target: at most 2x)\n' "$median"
