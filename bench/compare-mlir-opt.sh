#!/usr/bin/env bash
# Side-by-side: parse + verify + print of a ~300,000-op structured module by `ehir opt`
# and of the same-shape func/arith/memref/scf module by `mlir-opt-19`, in one run.
# Prints wall times (best of 5) and the ratio. Needs mlir-19-tools (Debian).
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
best() { # best wall time in seconds of 5 runs of "$@"
  local b=999999
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
    b=$(echo "$e - $s" | bc -l | awk -v b="$b" '{ print ($1 < b) ? $1 : b }')
  done
  echo "$b"
}
ehir_t=$(best ${CARGO_TARGET_DIR:-target}/release/ehir opt "$tmp/w.cir" -o /dev/null)
mlir_t=$(best "$mlir_opt" "$tmp/w.mlir" -o /dev/null)
ops=$((units * 13))
printf 'ops: ~%d\n' "$ops"
printf 'ehir opt      %.3f s  %.2f Mops/s\n' "$ehir_t" "$(echo "$ops / $ehir_t / 1000000" | bc -l)"
printf 'mlir-opt-19   %.3f s  %.2f Mops/s\n' "$mlir_t" "$(echo "$ops / $mlir_t / 1000000" | bc -l)"
printf 'ratio (mlir-opt time / ehir time): %.1fx\n' "$(echo "$mlir_t / $ehir_t" | bc -l)"
