#!/usr/bin/env bash
# Peak resident memory and time of the commands that lower a whole module (`emit-llvm`,
# `tables`, `run --phase all`) on `many_functions` modules of growing size (issue 16: 300,000
# functions within 4 GiB, memory proportional to the module), with the ratio per size step.
#   bash bench/cli-memory.sh [N ...]        (default: 10000 20000 40000 80000 160000 300000)
# Needs GNU time (/usr/bin/time). Large sizes take minutes per command.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
[ -x /usr/bin/time ] || { echo "GNU time not found: apt-get install time" >&2; exit 1; }
cargo build -q --release -p ehir --bin ehir
cargo build -q --release -p ehir-testgen --example gen
ehir=$target/release/ehir
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 20000 40000 80000 160000 300000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commands=("emit-llvm --abi itanium -o /dev/null" "tables --abi itanium -o /dev/null" "run --phase all")
declare -A last_rss last_cpu
printf '%-9s %-32s %9s %7s %11s %7s\n' functions command 'cpu s' ratio 'peak RSS' ratio
for n in "${sizes[@]}"; do
  "$target/release/examples/gen" functions "$n" > "$tmp/m.cir"
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # the command's words
    /usr/bin/time -o "$tmp/time" -f '%U %S %M' "$ehir" $c "$tmp/m.cir" > /dev/null 2> "$tmp/err" ||
      { echo "ehir $c failed on $n functions:" >&2; cat "$tmp/err" >&2; exit 1; }
    read -r u s m < "$tmp/time"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    ratio() { [ -n "${2:-}" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo -; }
    printf '%-9d %-32s %9.2f %7s %8.0f MB %7s\n' "$n" "$c" "$cpu" "$(ratio "$cpu" "${last_cpu[$c]:-}")" \
      "$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$(ratio "$m" "${last_rss[$c]:-}")"
    last_cpu[$c]=$cpu
    last_rss[$c]=$m
  done
done
echo 'ratio: to the previous size (linear: the size ratio, 2.0 for a doubling).'
