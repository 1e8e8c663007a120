#!/usr/bin/env bash
# The bid-path benchmark of BENCHMARKS.md: the bidder's throughput at a p99
# under a limit (default 5 ms) with a chosen share of profile hits (default
# 50 %), next to bare-responder (a bare Beast server answering 204) on the
# same machine in the same run. Rates are swept upwards and the two servers
# take turns at each rate, so a burst of noise from other work on the machine
# hits both; a server's sweep stops at its first rate that fails the limit
# (p99 too high, errors, unanswered requests, or under 95 % of the offered
# rate completed) twice in a row: a failed run is repeated once, since one
# burst of other work on a shared machine can spoil a 10 s run.
#
# The bidder runs the example configuration on an embedded store in a fresh
# temp dir, seeded by rtb-seed-profiles for the device population rtb-load
# draws from. Everything listens on 127.0.0.1. One JSON line per run on
# stdout, then a summary line.
#
# Environment (defaults in brackets):
#   BUILD_DIR     build directory [build]
#   RATES         offered rates, requests/s, ascending [4000 8000 12000 16000 20000 24000 28000 32000]
#   DURATION      seconds per run, warm-up included [10]
#   WARMUP        seconds not measured at the start of each run [2]
#   CONNECTIONS   keep-alive connections of rtb-load [64]
#   THREADS       I/O threads of both servers [number of cores]
#   DEVICES       device population [100000]
#   HIT_SHARE     share of requests whose device has a profile [0.5]
#   P99_LIMIT_US  p99 latency limit, microseconds [5000]
#   BASELINE_BIDDER  another rtb-bidder binary (e.g. built from an earlier
#                 commit) to run as a third server on a copy of the same seeded
#                 store, taking its turn at each rate: the A/B figure of a change
#                 [unset: not run]
#   REQUESTS      bid requests rtb-load sends, comma-separated files or directories
#                 [three of tests/fixtures/openrtb/requests: site-banner-mrec,
#                 app-banner-leaderboard, site-pmp-deals]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
RATES=${RATES:-"4000 8000 12000 16000 20000 24000 28000 32000"}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-$(nproc)}
DEVICES=${DEVICES:-100000}
HIT_SHARE=${HIT_SHARE:-0.5}
P99_LIMIT_US=${P99_LIMIT_US:-5000}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=${REQUESTS:-$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json}

command -v jq >/dev/null || { echo "run-bid-benchmark: jq is needed (deploy/install-deps.sh)" >&2; exit 1; }

cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load bare-responder rtb-seed-profiles >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-bid-benchmark.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# The example configuration with its store in the temp dir, an ephemeral
# port and the I/O thread count of the run.
jq --arg path "$WORK/store" --argjson threads "$THREADS" \
  '.storage.embedded.path = $path | .server.port = 0 | .server.io_threads = $threads' \
  config/bidder.example.json >"$WORK/bidder.json"
export RTB_DEVICE_KEY_SECRET RTB_BEACON_SECRET
RTB_DEVICE_KEY_SECRET=$(openssl rand -hex 32)
RTB_BEACON_SECRET=$(openssl rand -hex 32)

echo "run-bid-benchmark: seeding profiles ($DEVICES devices, hit share $HIT_SHARE)" >&2
"$BUILD_DIR/loadtest/rtb-seed-profiles" --config "$WORK/bidder.json" --devices "$DEVICES" \
  --hit-share "$HIT_SHARE" >&2

wait_for_port_file() {
  local file=$1 i
  for ((i = 0; i < 300; i++)); do
    [[ -s $file ]] && { cat "$file"; return 0; }
    sleep 0.1
  done
  echo "run-bid-benchmark: no port in $file after 30 s" >&2
  return 1
}

"$BUILD_DIR/bidder/rtb-bidder" --config "$WORK/bidder.json" --port-file "$WORK/bidder.port" \
  2>"$WORK/bidder.log" &
PIDS+=($!)
SERVERS=(bare bidder)
if [[ -n ${BASELINE_BIDDER:-} ]]; then
  cp -r "$WORK/store" "$WORK/store-baseline"
  jq --arg path "$WORK/store-baseline" '.storage.embedded.path = $path' "$WORK/bidder.json" \
    >"$WORK/baseline.json"
  "$BASELINE_BIDDER" --config "$WORK/baseline.json" --port-file "$WORK/baseline.port" \
    2>"$WORK/baseline.log" &
  PIDS+=($!)
  SERVERS+=(baseline)
fi
"$BUILD_DIR/loadtest/bare-responder" --threads "$THREADS" --port 0 --port-file "$WORK/bare.port" &
PIDS+=($!)
declare -A PORT
PORT[bidder]=$(wait_for_port_file "$WORK/bidder.port")
PORT[bare]=$(wait_for_port_file "$WORK/bare.port")
BIDDER_PORT=${PORT[bidder]}
[[ -n ${BASELINE_BIDDER:-} ]] && PORT[baseline]=$(wait_for_port_file "$WORK/baseline.port")
for server in bidder ${BASELINE_BIDDER:+baseline}; do
  for ((i = 0; i < 100; i++)); do
    curl -sf "http://127.0.0.1:${PORT[$server]}/readyz" >/dev/null && break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:${PORT[$server]}/readyz" >/dev/null ||
    { echo "run-bid-benchmark: $server not ready; log: $(tail -3 "$WORK/$server.log")" >&2; exit 1; }
done

lookups() {
  curl -sf "http://127.0.0.1:$BIDDER_PORT/metrics" |
    awk -v o="$1" '$1 ~ "^bidder_profile_lookups_total\\{outcome=\"" o "\"" { s += $2 } END { printf "%d", s }'
}

# Runs one load at `rate` against `port`; prints the report with a `server`
# and a `passed` field added.
run_one() {
  local server=$1 port=$2 rate=$3
  "$BUILD_DIR/loadtest/rtb-load" --port "$port" --rate "$rate" --duration "$DURATION" \
    --warmup "$WARMUP" --connections "$CONNECTIONS" --requests "$REQUESTS" \
    --devices "$DEVICES" |
    jq -c --arg server "$server" --argjson limit "$P99_LIMIT_US" \
      --arg load "$(cut -d' ' -f1 /proc/loadavg)" \
      '. + {server: $server, load_average: $load, passed: (.latency_us.p99 < $limit and .errors == 0 and
             .unanswered == 0 and .throughput_rps >= 0.95 * .offered_rate)}'
}

# One unreported run per server first: the bidder's caches (row cache,
# block cache) and the seeding's compactions settle before anything counts.
first_rate=${RATES%% *}
for server in "${SERVERS[@]}"; do run_one "$server" "${PORT[$server]}" "$first_rate" >/dev/null; done

declare -A BEST=([bare]=0 [bidder]=0 [baseline]=0) ALIVE=([bare]=1 [bidder]=1 [baseline]=1)
HITS_BEFORE=$(lookups hit)
MISSES_BEFORE=$(lookups miss)
TIMEOUTS_BEFORE=$(lookups timeout)
for rate in $RATES; do
  for server in "${SERVERS[@]}"; do
    [[ ${ALIVE[$server]} == 1 ]] || continue
    port=${PORT[$server]}
    report=$(run_one "$server" "$port" "$rate")
    echo "$report"
    if [[ $(jq -r .passed <<<"$report") != true ]]; then
      report=$(run_one "$server" "$port" "$rate")
      echo "$report"
    fi
    if [[ $(jq -r .passed <<<"$report") == true ]]; then
      BEST[$server]=$(jq -r .throughput_rps <<<"$report")
    else
      ALIVE[$server]=0
    fi
  done
  [[ ${ALIVE[bare]} == 1 || ${ALIVE[bidder]} == 1 || (-n ${BASELINE_BIDDER:-} && ${ALIVE[baseline]} == 1) ]] || break
done
HITS=$(($(lookups hit) - HITS_BEFORE))
MISSES=$(($(lookups miss) - MISSES_BEFORE))
TIMEOUTS=$(($(lookups timeout) - TIMEOUTS_BEFORE))

BASELINE_RPS=null
[[ -n ${BASELINE_BIDDER:-} ]] && BASELINE_RPS=${BEST[baseline]}
jq -cn --argjson bare "${BEST[bare]}" --argjson bidder "${BEST[bidder]}" --argjson baseline "$BASELINE_RPS" \
  --argjson hits "$HITS" --argjson misses "$MISSES" --argjson timeouts "$TIMEOUTS" --argjson limit "$P99_LIMIT_US" \
  --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" --argjson threads "$THREADS" \
  '{summary: "max throughput with every run up to it passing", p99_limit_us: $limit,
    io_threads: $threads, bare_rps: $bare, bidder_rps: $bidder,
    ratio: (if $bare > 0 then ($bidder / $bare * 1000 | round / 1000) else null end),
    baseline_rps: $baseline,
    bidder_vs_baseline: (if $baseline != null and $baseline > 0 then ($bidder / $baseline * 1000 | round / 1000) else null end),
    profile_lookup_timeouts: $timeouts,
    profile_hit_share: (if $hits + $misses > 0 then ($hits / ($hits + $misses) * 1000 | round / 1000) else null end),
    load_average: $load}'
