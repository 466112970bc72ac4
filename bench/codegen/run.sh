#!/usr/bin/env bash
# Generated-code benchmark of the Itanium pipeline, side by side in one run:
#   cleanup_loop  a hot loop that calls through a cleanup scope and never throws
#   throw_loop    every iteration throws through a cleanup into a typed catch
# Each program is built from its CIR by `ehir build -O2 --run-opt` (opt -O2 + llc -O2)
# and from the equivalent C++ by `g++ -O2`; both link the same g++ -O2 support.o (the
# callees), so only the code around the calls differs. Prints the best of 7 interleaved
# runs of each, in CPU time (user + system, which a busy machine disturbs less than wall
# time), and the ratio (ehir time / g++ time). Targets: cleanup_loop within 5%,
# throw_loop within 10%. BENCH_N overrides the iteration counts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo build -q -p ehir
ehir=${CARGO_TARGET_DIR:-target}/debug/ehir
cxx=${EHIR_CXX:-g++}
"$cxx" -O2 -c "$here/support.cpp" -o "$tmp/support.o"
# CPU seconds (user + system) of one run of "$@".
cpu() { /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null; awk '{ print $1 + $2 }' "$tmp/time"; }
for prog in cleanup_loop throw_loop; do
  "$ehir" build -O2 --run-opt "$here/$prog.cir" "$tmp/support.o" -o "$tmp/$prog.ehir"
  "$cxx" -O2 "$here/$prog.cpp" "$tmp/support.o" -o "$tmp/$prog.gxx"
  a=$("$tmp/$prog.ehir"); b=$("$tmp/$prog.gxx")
  [ "$a" = "$b" ] || { echo "$prog: outputs differ: ehir $a, g++ $b" >&2; exit 1; }
  best_e=999999; best_g=999999
  for _ in 1 2 3 4 5 6 7; do
    best_e=$(cpu "$tmp/$prog.ehir" | awk -v b="$best_e" '{ print ($1 < b) ? $1 : b }')
    best_g=$(cpu "$tmp/$prog.gxx" | awk -v b="$best_g" '{ print ($1 < b) ? $1 : b }')
  done
  printf '%-13s ehir %.3f s   g++ -O2 %.3f s   ratio %.3f\n' "$prog" "$best_e" "$best_g" \
    "$(echo "$best_e / $best_g" | bc -l)"
done
