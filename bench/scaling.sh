#!/usr/bin/env bash
# Scaling of every stage (parse, verify, print, the passes, emit-llvm, the tables, the
# interpreter at every phase) as the nesting depth (cleanup scopes, trys: 1k to 100k) or
# the number of functions (10k to 300k) doubles: best-of-R time, the stage's peak heap and
# the process's peak RSS, each with its ratio per doubling (linear: 2.0; target <= 2.3).
#   bash bench/scaling.sh [--runs R] [--kinds deep-cleanups,deep-trys,functions]
#                         [--stages parse,itanium,...] [--sizes KIND=N,N,...]
# Wall times on a shared machine are noisy: use R >= 3, or callgrind on one stage.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p ehir --example scaling
exec "${CARGO_TARGET_DIR:-target}/release/examples/scaling" "$@"
