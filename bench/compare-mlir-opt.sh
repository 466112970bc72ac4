#!/usr/bin/env bash
# Side-by-side: parse + verify + print of a ~300,000-op structured module by `ehir opt`
# and of the same-shape func/arith/memref/scf module by `mlir-opt-19`, in one run.
# Prints wall times and CPU times (user + system, best of 5 each), the ratios, and the
# peak resident memory of `ehir opt` per op. Needs mlir-19-tools (Debian) and GNU time
# (`/usr/bin/time`) for the CPU and memory figures.
set -euo pipefail
cd "$(dirname "$0")/.."
units=${UNITS:-23078}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo build -q --release -p ehir
cargo bench -q -p ehir --bench opt_throughput -- --units "$units" \
  --emit-cir "$tmp/w.cir" --emit-mlir "$tmp/w.mlir"
mlir_opt=$(command -v mlir-opt-19 || true)
[ -n "$mlir_opt" ] || { echo "mlir-opt-19 not found: apt-get install mlir-19-tools" >&2; exit 1; }
ehir=${CARGO_TARGET_DIR:-target}/release/ehir
gnu_time=/usr/bin/time
[ -x "$gnu_time" ] || gnu_time=

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }

# Runs "$@" 5 times; sets best_wall, best_cpu (seconds) and rss_kb (of the last run).
measure() {
  best_wall=999999 best_cpu=999999 rss_kb=0
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s.%N)
    if [ -n "$gnu_time" ]; then
      "$gnu_time" -o "$tmp/time" -f '%U %S %M' "$@" >/dev/null
    else
      "$@" >/dev/null
    fi
    e=$(date +%s.%N)
    best_wall=$(min "$(echo "$e - $s" | bc -l)" "$best_wall")
    if [ -n "$gnu_time" ]; then
      local user sys
      read -r user sys rss_kb <"$tmp/time"
      best_cpu=$(min "$(echo "$user + $sys" | bc -l)" "$best_cpu")
    fi
  done
}

measure "$ehir" opt "$tmp/w.cir" -o /dev/null
ehir_wall=$best_wall ehir_cpu=$best_cpu ehir_rss=$rss_kb
measure "$mlir_opt" "$tmp/w.mlir" -o /dev/null
mlir_wall=$best_wall mlir_cpu=$best_cpu mlir_rss=$rss_kb
ops=$((units * 13))
printf 'ops: ~%d\n' "$ops"
printf 'ehir opt      %.3f s  %.2f Mops/s\n' "$ehir_wall" "$(echo "$ops / $ehir_wall / 1000000" | bc -l)"
printf 'mlir-opt-19   %.3f s  %.2f Mops/s\n' "$mlir_wall" "$(echo "$ops / $mlir_wall / 1000000" | bc -l)"
printf 'ratio (mlir-opt time / ehir time): %.1fx\n' "$(echo "$mlir_wall / $ehir_wall" | bc -l)"
if [ -n "$gnu_time" ]; then
  # GNU time counts in 10 ms steps.
  cpu_ratio=$(awk -v m="$mlir_cpu" -v e="$ehir_cpu" 'BEGIN { if (e > 0) printf "%.1fx", m / e; else print "n/a" }')
  printf 'cpu (user+sys, 10 ms steps): ehir opt %.2f s, mlir-opt-19 %.2f s, ratio %s\n' \
    "$ehir_cpu" "$mlir_cpu" "$cpu_ratio"
  printf 'max RSS: ehir opt %d KiB = %.0f bytes/op (input text included), mlir-opt-19 %d KiB = %.0f bytes/op\n' \
    "$ehir_rss" "$(echo "$ehir_rss * 1024 / $ops" | bc -l)" \
    "$mlir_rss" "$(echo "$mlir_rss * 1024 / $ops" | bc -l)"
fi
