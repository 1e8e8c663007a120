#!/usr/bin/env bash
# Instructions per bid request on the in-process bid path (auction_bench's
# BM_Handle* benchmarks), all threads included, from two callgrind runs that
# differ only in their iteration count: (Ir(2n) - Ir(n)) / n leaves out the
# start-up (config, store, seeding). Deterministic, so it is the A/B figure
# on a machine whose timings are noisy. BENCH=http_bench counts the HTTP
# server's round trip instead (user space only: callgrind sees no kernel).
#
#   [BENCH=auction_bench] loadtest/callgrind-bid-path.sh [build dir] [benchmark regex] [n]
#   defaults: build, BM_Handle (BM_ with another BENCH), 200
set -euo pipefail
build=${1:-build}
BENCH=${BENCH:-auction_bench}
if [[ $BENCH == auction_bench ]]; then filter=${2:-BM_Handle}; else filter=${2:-BM_}; fi
n=${3:-200}
bench="$build/loadtest/bench/$BENCH"
[[ -x $bench ]] || { echo "no $bench: cmake --build $build --target $BENCH" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

names=$("$bench" --benchmark_list_tests=true --benchmark_filter="$filter")
instructions() {  # name iterations
  RTB_BENCH_ITERATIONS=$2 valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" \
    "$bench" --benchmark_filter="^$1(/|$)" >"$out/out" 2>"$out/log"
  if grep -q "no_bids=" "$out/out" && ! grep -q "no_bids=0" "$out/out"; then
    echo "$1: not every request was bid on (a deadline missed?)" >&2
    cat "$out/out" >&2
  fi
  local total=0 f ir
  for f in "$out"/cg.*; do
    ir=$(awk '/^summary:/ {print $2}' "$f")
    total=$((total + ir))
    rm -f "$f"
  done
  echo "$total"
}
printf '%-40s %s\n' benchmark "instructions per request"
for name in $names; do
  name=${name%/real_time}
  one=$(instructions "$name" "$n")
  two=$(instructions "$name" $((2 * n)))
  printf '%-40s %d\n' "$name" $(((two - one) / n))
done
