#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for a bounded time each:
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]      (default: 60 seconds, all targets)
# Installs cargo-fuzz from crates.io when it is missing, seeds each corpus from the
# repository's tests (CIR files for the CIR targets, Clang's JSON AST dumps of the C++
# programs for `clang_ast`, a few seeds for `differential`), prints each target's
# execution count and exits 1 when a
# target found a crash (the reproducer is under fuzz/artifacts/TARGET/).
# FUZZ_SEED=N and FUZZ_RUNS=N make a run reproducible (libFuzzer's -seed and -runs: the
# same inputs in the same order, stopping after N runs or the time budget, whichever
# comes first); CI uses them so that a change, not luck, decides its outcome.
# SANITIZER=address (default: none, which runs about twice as many inputs; the code under
# test is safe Rust) picks cargo-fuzz's sanitizer. RUSTC_BOOTSTRAP=1 lets a stable
# toolchain accept the flags cargo-fuzz passes.
set -euo pipefail
cd "$(dirname "$0")"
budget=${1:-60}
shift || true
case $budget in
  '' | *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]" >&2; exit 2 ;;
esac
sanitizer=${SANITIZER:-none}
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

# seed_corpus TARGET: copies the repository's inputs for TARGET into corpus/TARGET/
# (file names flattened from their paths, so reruns do not duplicate them).
seed_corpus() {
  local dir=corpus/$1 pattern='*.cir' f
  mkdir -p "$dir"
  case $1 in
    clang_ast)
      # Clang's AST of each C++ program, for the Windows target (ehir's small headers keep
      # a dump near 100 KB; libstdc++'s make it megabytes), dumped once by the front end's
      # own command line; the target never runs Clang.
      (cd .. && cargo run -q -p ehir-clang --example dump_ast -- --abi msvc --std c++14 \
        "fuzz/$dir" tests/cxx/*.cpp examples/*.cpp tests/filetests/cxx/*.cpp 2>&1 | tail -1
        cargo run -q -p ehir-clang --example dump_ast -- --abi msvc --std c++17 \
          "fuzz/$dir" tests/cxx-corpus/*.cpp 2>&1 | tail -1)
      return
      ;;
    differential)
      # 8 bytes of seed, then the depth, statements, functions and budget knobs.
      for s in 0 1 2 3 4 5 6 7; do
        printf "\\x0$s\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x0$s\\x03\\x02\\x20" >"$dir/seed-$s"
      done
      return
      ;;
  esac
  while IFS= read -r -d '' f; do
    cp -n "$f" "$dir/$(echo "${f#../}" | tr '/' '_')"
  done < <(find ../tests ../crates -name "$pattern" -size -64k -print0)
}

cargo fuzz build --sanitizer "$sanitizer"
status=0
for t in "${targets[@]}"; do
  seed_corpus "$t"
  log=$(mktemp)
  dict=()
  if [ -f "$t.dict" ]; then
    dict=(-dict="$t.dict")
  fi
  if cargo fuzz run --sanitizer "$sanitizer" "$t" -- -max_total_time="$budget" "${dict[@]}" \
      -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
      ${FUZZ_SEED:+-seed="$FUZZ_SEED"} ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} >"$log" 2>&1; then
    result=ok
  else
    result=CRASH
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  printf '%-24s %s  executions: %s  (%s s)\n' "$t" "$result" "$execs" "$budget"
  if [ "$result" = CRASH ]; then
    grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -5 >&2
  fi
  rm -f "$log"
done
exit $status
