#!/usr/bin/env bash
# Side-by-side, in one run: `ehir opt -p flatten-cfg` on a structured CIR function
# (scopes, ifs, while loops, cleanup scopes, trys nested DEPTH deep, UNITS times) against
# `mlir-opt-19 --convert-scf-to-cf` on its same-shape MLIR twin (scf.execute_region,
# scf.if, scf.while, memref/arith/func.call). Both parse, verify, run the pass, verify and
# print. Prints the best of 5 runs (CPU time, user+sys, and wall time), the time per op
# and the per-op ratio. The workloads come from `ehir_testgen::bench_function{,_mlir}`.
# Needs mlir-19-tools (Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
units=${UNITS:-4000}
depth=${DEPTH:-8}
runs=${RUNS:-5}
target=${CARGO_TARGET_DIR:-target}
mlir_opt=$(command -v mlir-opt-19 || true)
[ -n "$mlir_opt" ] || { echo "mlir-opt-19 not found: apt-get install mlir-19-tools" >&2; exit 1; }
cargo build -q --release -p ehir --bin ehir
cargo build -q --release -p ehir-passes --example emit_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$target/release/examples/emit_bench" "$units" "$depth" > "$tmp/w.cir" 2> "$tmp/cir-ops"
"$target/release/examples/emit_bench" "$units" "$depth" --mlir > "$tmp/w.mlir" 2> "$tmp/mlir-ops"
cir_ops=$(cat "$tmp/cir-ops")
mlir_ops=$(cat "$tmp/mlir-ops")

# best CPU and wall seconds of $runs runs of "$@" (output discarded)
best() {
  local best_cpu=999999 best_wall=999999 out
  for _ in $(seq "$runs"); do
    out=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null; } 2>&1 | tail -1)
    read -r wall user sys <<< "$out"
    best_cpu=$(echo "$user + $sys" | bc -l | awk -v b="$best_cpu" '{ print ($1 < b) ? $1 : b }')
    best_wall=$(awk -v w="$wall" -v b="$best_wall" 'BEGIN { print (w < b) ? w : b }')
  done
  echo "$best_cpu $best_wall"
}

# Both must succeed before they are timed.
"$target/release/ehir" opt -p flatten-cfg "$tmp/w.cir" -o "$tmp/out.cir"
grep -q 'cir.try_call' "$tmp/out.cir"
"$mlir_opt" --convert-scf-to-cf "$tmp/w.mlir" -o "$tmp/out.mlir"
grep -q 'cf.cond_br' "$tmp/out.mlir"

read -r ehir_cpu ehir_wall <<< "$(best "$target/release/ehir" opt -p flatten-cfg "$tmp/w.cir" -o /dev/null)"
read -r mlir_cpu mlir_wall <<< "$(best "$mlir_opt" --convert-scf-to-cf "$tmp/w.mlir" -o /dev/null)"

per_op() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.2f", t * 1e6 / n }'; }
printf 'workload: %d units, %d deep; CIR %d ops, MLIR %d ops\n' "$units" "$depth" "$cir_ops" "$mlir_ops"
printf 'ehir opt -p flatten-cfg         cpu %.3f s (%s us/op)  wall %.3f s\n' \
  "$ehir_cpu" "$(per_op "$ehir_cpu" "$cir_ops")" "$ehir_wall"
printf 'mlir-opt-19 --convert-scf-to-cf cpu %.3f s (%s us/op)  wall %.3f s\n' \
  "$mlir_cpu" "$(per_op "$mlir_cpu" "$mlir_ops")" "$mlir_wall"
awk -v a="$mlir_cpu" -v na="$mlir_ops" -v b="$ehir_cpu" -v nb="$cir_ops" -v wa="$mlir_wall" -v wb="$ehir_wall" \
  'BEGIN { printf "per-op ratio (mlir-opt / ehir): %.1fx cpu, %.1fx wall\n", (a / na) / (b / nb), (wa / na) / (wb / nb) }'
