#!/usr/bin/env bash
# The EH pipeline benchmark of issue 14, side by side in one run: FUNCTIONS functions
# (default 4,000), each a loop whose body is a `cir.cleanup.scope` around six nested
# `cir.if`s with a call and a compare at each level and `cir.try` regions around calls
# (`ehir_testgen::eh_workload`), against `mlir-opt-19 --convert-scf-to-cf
# --mlir-disable-threading` on the same shape in scf (`eh_workload_mlir`). Runs are
# interleaved (ehir flatten, ehir full pipeline, mlir-opt, repeated RUNS times) and the best
# of each is kept. Reports ops/s for
#   (a) parse + verify + flatten-cfg + verify + print   (`ehir opt -j JOBS -p flatten-cfg`)
#   (b) parse + verify + lowering-prepare,flatten-cfg,eh-abi-lowering=itanium + print
# with the ratio to mlir-opt's ops/s, and peak RSS per input op (input text included).
# With PARALLEL_FUNCTIONS=N (e.g. 100000) it also times (b) at `-j 1` and `-j 2` on N
# functions (wall and CPU seconds) and checks that both print the same bytes.
# With CALLGRIND_FUNCTIONS=N (e.g. 1000) it also counts the instructions of (a), (b) and
# mlir-opt on N functions with `valgrind --tool=callgrind` (stable on a loaded machine),
# and of (b) at `-j 2` per thread (the calling thread's share is the serial part).
# Environment: FUNCTIONS (4000), RUNS (5), JOBS (1), PARALLEL_FUNCTIONS (unset),
# CALLGRIND_FUNCTIONS (unset).
# Needs mlir-19-tools (Debian) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
functions=${FUNCTIONS:-4000}
runs=${RUNS:-5}
jobs=${JOBS:-1}
target=${CARGO_TARGET_DIR:-target}
mlir_opt=$(command -v mlir-opt-19 || true)
[ -n "$mlir_opt" ] || { echo "mlir-opt-19 not found: apt-get install mlir-19-tools" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time not found: apt-get install time" >&2; exit 1; }
cargo build -q --release -p ehir --bin ehir
cargo build -q --release -p ehir-passes --example emit_eh_workload
ehir=$target/release/ehir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$target/release/examples/emit_eh_workload" "$functions" > "$tmp/w.cir" 2> "$tmp/cir-ops"
"$target/release/examples/emit_eh_workload" "$functions" --mlir > "$tmp/w.mlir" 2> "$tmp/mlir-ops"
cir_ops=$(cat "$tmp/cir-ops")
mlir_ops=$(cat "$tmp/mlir-ops")
full=lowering-prepare,flatten-cfg,eh-abi-lowering=itanium

# Both must succeed (and do the work) before they are timed.
"$ehir" opt -j "$jobs" -p flatten-cfg "$tmp/w.cir" -o "$tmp/out.cir"
grep -q 'cir.try_call' "$tmp/out.cir"
"$ehir" opt -j "$jobs" -p "$full" "$tmp/w.cir" -o "$tmp/out.cir"
grep -q 'cir.eh.inflight_exception' "$tmp/out.cir"
"$mlir_opt" --convert-scf-to-cf --mlir-disable-threading "$tmp/w.mlir" -o "$tmp/out.mlir"
grep -q 'cf.cond_br' "$tmp/out.mlir"
rm -f "$tmp/out.cir" "$tmp/out.mlir"

# measure NAME CMD...: one run; keeps the best wall and CPU (user+sys) seconds and the
# largest peak RSS (KiB) of NAME.
declare -A wall cpu rss
measure() {
  local name=$1
  shift
  /usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" > /dev/null
  local w u s m
  read -r w u s m < "$tmp/time"
  local c
  c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
  wall[$name]=$(awk -v a="$w" -v b="${wall[$name]:-999999}" 'BEGIN { print (a < b) ? a : b }')
  cpu[$name]=$(awk -v a="$c" -v b="${cpu[$name]:-999999}" 'BEGIN { print (a < b) ? a : b }')
  rss[$name]=$(( m > ${rss[$name]:-0} ? m : ${rss[$name]:-0} ))
}

for _ in $(seq "$runs"); do
  measure flatten "$ehir" opt -j "$jobs" -p flatten-cfg "$tmp/w.cir" -o /dev/null
  measure full "$ehir" opt -j "$jobs" -p "$full" "$tmp/w.cir" -o /dev/null
  measure mlir "$mlir_opt" --convert-scf-to-cf --mlir-disable-threading "$tmp/w.mlir" -o /dev/null
done

mops() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.2f", n / t / 1e6 }'; }
ratio() { awk -v a="$1" -v na="$2" -v b="$3" -v nb="$4" 'BEGIN { printf "%.1f", (na / a) / (nb / b) }'; }
printf 'workload: %d functions; CIR %d ops (%d bytes), MLIR %d ops; best of %d, interleaved; ehir -j %d\n' \
  "$functions" "$cir_ops" "$(stat -c %s "$tmp/w.cir")" "$mlir_ops" "$runs" "$jobs"
printf '%-58s %7s %7s %9s %9s %8s\n' pipeline 'wall s' 'cpu s' 'Mops/s' 'ratio' 'B/op'
row() { # NAME LABEL OPS
  local n=$1
  printf '%-58s %7.3f %7.3f %9s %8sx %8.0f\n' "$2" "${wall[$n]}" "${cpu[$n]}" \
    "$(mops "$3" "${cpu[$n]}")" "$(ratio "${cpu[$n]}" "$3" "${cpu[mlir]}" "$mlir_ops")" \
    "$(awk -v k="${rss[$n]}" -v n="$3" 'BEGIN { print k * 1024 / n }')"
}
row flatten '(a) ehir opt -p flatten-cfg' "$cir_ops"
row full "(b) ehir opt -p $full" "$cir_ops"
row mlir 'mlir-opt-19 --convert-scf-to-cf --mlir-disable-threading' "$mlir_ops"
echo 'Mops/s and ratio from CPU time (user+sys, 10 ms steps); ratio = ops/s over mlir-opt ops/s.'

if [ -n "${PARALLEL_FUNCTIONS:-}" ]; then
  "$target/release/examples/emit_eh_workload" "$PARALLEL_FUNCTIONS" > "$tmp/p.cir" 2> "$tmp/p-ops"
  "$ehir" opt -j 1 -p "$full" "$tmp/p.cir" -o "$tmp/p1.cir"
  "$ehir" opt -j 2 -p "$full" "$tmp/p.cir" -o "$tmp/p2.cir"
  cmp "$tmp/p1.cir" "$tmp/p2.cir"
  rm -f "$tmp/p1.cir" "$tmp/p2.cir"
  for _ in $(seq "$runs"); do
    measure j1 "$ehir" opt -j 1 -p "$full" "$tmp/p.cir" -o /dev/null
    measure j2 "$ehir" opt -j 2 -p "$full" "$tmp/p.cir" -o /dev/null
  done
  printf '%d functions (%d ops), pipeline (b): -j 1 %.3f s wall %.3f s cpu, -j 2 %.3f s wall %.3f s cpu: %.2fx wall, cpu -j 2 / -j 1 %.2f (output identical)\n' \
    "$PARALLEL_FUNCTIONS" "$(cat "$tmp/p-ops")" "${wall[j1]}" "${cpu[j1]}" "${wall[j2]}" "${cpu[j2]}" \
    "$(awk -v a="${wall[j1]}" -v b="${wall[j2]}" 'BEGIN { print a / b }')" \
    "$(awk -v a="${cpu[j1]}" -v b="${cpu[j2]}" 'BEGIN { print b / a }')"
  echo 'wall-clock speed-up: indicative only on a machine shared with other work.'
fi

if [ -n "${CALLGRIND_FUNCTIONS:-}" ]; then
  command -v valgrind > /dev/null || { echo "valgrind not found: apt-get install valgrind" >&2; exit 1; }
  n=$CALLGRIND_FUNCTIONS
  "$target/release/examples/emit_eh_workload" "$n" > "$tmp/c.cir" 2> "$tmp/c-ops"
  "$target/release/examples/emit_eh_workload" "$n" --mlir > "$tmp/c.mlir" 2> "$tmp/c-mlir-ops"
  # instructions NAME CMD...: the instruction count of one run (all threads).
  instructions() {
    local name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$name" "$@" > /dev/null 2> "$tmp/cg.$name.log"
    grep -o 'refs: *[0-9,]*' "$tmp/cg.$name.log" | tr -dc '0-9'
  }
  ia=$(instructions a "$ehir" opt -j 1 -p flatten-cfg "$tmp/c.cir" -o /dev/null)
  ib=$(instructions b "$ehir" opt -j 1 -p "$full" "$tmp/c.cir" -o /dev/null)
  im=$(instructions m "$mlir_opt" --convert-scf-to-cf --mlir-disable-threading "$tmp/c.mlir" -o /dev/null)
  co=$(cat "$tmp/c-ops")
  cm=$(cat "$tmp/c-mlir-ops")
  per() { awk -v i="$1" -v n="$2" 'BEGIN { printf "%.0f", i / n }'; }
  printf 'instructions on %d functions (CIR %d ops, MLIR %d ops):\n' "$n" "$co" "$cm"
  printf '  (a) %d (%s/op)  (b) %d (%s/op)  mlir-opt %d (%s/op)\n' \
    "$ia" "$(per "$ia" "$co")" "$ib" "$(per "$ib" "$co")" "$im" "$(per "$im" "$cm")"
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg.j2" \
    "$ehir" opt -j 2 -p "$full" "$tmp/c.cir" -o /dev/null > /dev/null 2>&1
  printf '  (b) at -j 2, instructions per thread (calling thread first):'
  for f in "$tmp"/cg.j2-*; do
    printf ' %s' "$(grep -m1 '^summary:' "$f" | tr -dc '0-9')"
  done
  echo
fi
