#!/usr/bin/env bash
# The connection-flood benchmark of BENCHMARKS.md: what hostile connections
# cost the real traffic's tail. The bidder (the example configuration on a
# fresh embedded store, its default server limits) takes an open-loop bid
# load from rtb-load, three ways in turn, ROUNDS times:
#   - baseline: the load alone;
#   - slowloris: the load while rtb-flood keeps SLOW connections sending a
#     request header a byte every 100 ms (reopening each one the server
#     closes);
#   - silent: the load while rtb-flood opens SILENT_RATE silent connections
#     per second for SILENT_SECONDS (20,000 in 2 s by default).
# Everything listens on 127.0.0.1, and the flood comes from 127.0.0.10 up.
# One JSON line per run on stdout, then a summary: the median p99 of each
# way and its ratio to the baseline's (target: slowloris within 1.5x), and
# the median CPU time the bidder spent in each way's runs (what serving the
# flood cost it, apart from how the cores were shared), in all and on its
# I/O threads (the part of that cost that lands where bids are answered).
#
# Environment (defaults in brackets):
#   BUILD_DIR       build directory [build]
#   RATE            bid requests/s of rtb-load [2000]
#   DURATION        seconds per run, warm-up included [10]
#   WARMUP          seconds not measured at the start of each run [2]
#   CONNECTIONS     keep-alive connections of rtb-load [16]
#   ROUNDS          rounds of the three runs [3]
#   SLOW            slowloris connections [1000]
#   SILENT_RATE     silent connections opened per second [10000]
#   SILENT_SECONDS  seconds of silent connections [2]
#   FLOOD_NICE      nice value of rtb-flood [19]
#   FLOOD_IDLE      1: rtb-flood under SCHED_IDLE instead of a nice value, so
#                   it never delays the bidder or rtb-load for a time slice [0]
#   SERVER_OVERRIDES  a jq filter applied to the bidder's configuration, e.g.
#                   '.server.first_byte_timeout_ms = 60000' [none]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
RATE=${RATE:-2000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONNECTIONS=${CONNECTIONS:-16}
ROUNDS=${ROUNDS:-3}
SLOW=${SLOW:-1000}
SILENT_RATE=${SILENT_RATE:-10000}
SILENT_SECONDS=${SILENT_SECONDS:-2}
SERVER_OVERRIDES=${SERVER_OVERRIDES:-.}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json

command -v jq >/dev/null || { echo "run-flood-benchmark: jq is needed (deploy/install-deps.sh)" >&2; exit 1; }

cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load rtb-flood >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-flood-benchmark.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

jq --arg path "$WORK/store" \
  ".storage.embedded.path = \$path | .server.port = 0 | $SERVER_OVERRIDES" \
  config/bidder.example.json >"$WORK/bidder.json"
export RTB_DEVICE_KEY_SECRET RTB_BEACON_SECRET
RTB_DEVICE_KEY_SECRET=$(openssl rand -hex 32)
RTB_BEACON_SECRET=$(openssl rand -hex 32)

"$BUILD_DIR/bidder/rtb-bidder" --config "$WORK/bidder.json" --port-file "$WORK/bidder.port" \
  2>"$WORK/bidder.log" &
PIDS+=($!)
BIDDER_PID=$!
for ((i = 0; i < 300; i++)); do [[ -s $WORK/bidder.port ]] && break; sleep 0.1; done
PORT=$(cat "$WORK/bidder.port")
for ((i = 0; i < 100; i++)); do
  curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break
  sleep 0.1
done

# The flood stands for clients on other machines: at the lowest CPU
# priority it takes what the bidder and rtb-load leave, so the figure is what
# serving the flood costs the bidder rather than what generating it costs
# the shared cores (FLOOD_NICE=0 runs it at normal priority).
# FLOOD_IDLE=1 goes further: a SCHED_IDLE task runs only on a core nothing
# else wants, and yields it at once when the bidder or rtb-load wakes.
if [[ ${FLOOD_IDLE:-0} == 1 ]]; then
  FLOOD="chrt --idle 0 $BUILD_DIR/loadtest/rtb-flood"
else
  FLOOD="nice -n ${FLOOD_NICE:-19} $BUILD_DIR/loadtest/rtb-flood"
fi

# User + system clock ticks in a /proc stat file (a process's or a thread's).
stat_ticks() {
  sed 's/.*) //' "$1" | awk '{ print $12 + $13 }'
}

# The bidder's CPU time so far (user + system, every thread), milliseconds.
bidder_cpu_ms() {
  echo $(($(stat_ticks "/proc/$BIDDER_PID/stat") * 1000 / $(getconf CLK_TCK)))
}

# The same for the I/O threads alone (rtb-io-N: those that serve the bid
# requests, not the intake that holds connections until their first
# request): how much of the flood's cost lands where the bids are answered.
io_threads_cpu_ms() {
  local task ticks=0
  for task in "/proc/$BIDDER_PID"/task/*; do
    [[ $(cat "$task/comm" 2>/dev/null) == rtb-io-* ]] || continue
    ticks=$((ticks + $(stat_ticks "$task/stat")))
  done
  echo $((ticks * 1000 / $(getconf CLK_TCK)))
}

closes() {
  curl -sf "http://127.0.0.1:$PORT/metrics" |
    awk '$1 ~ /^bidder_http_closed_connections_total/ { split($1, a, "\""); out = out a[2] "=" $2 " " }
         $1 ~ /^bidder_http_rejected_connections_total/ { split($1, a, "\""); out = out "refused_" a[2] "=" $2 " " }
         END { print out }'
}

load() {
  "$BUILD_DIR/loadtest/rtb-load" --port "$PORT" --rate "$RATE" --duration "$DURATION" \
    --warmup "$WARMUP" --connections "$CONNECTIONS" --requests "$REQUESTS"
}

# Runs the load with `flood` (none, slowloris, silent) alongside; prints
# the load's report with the flood's and the server's counts added.
run() {
  local way=$1 flood_out=$WORK/flood.json flood_pid=
  : >"$flood_out"
  case $way in
    slowloris)
      $FLOOD --port "$PORT" --mode slowloris --connections "$SLOW" \
        --duration "$DURATION" >"$flood_out" &
      flood_pid=$! ;;
    silent)
      # The silent connections start after the warm-up, inside the measured time.
      (sleep "$WARMUP"; $FLOOD --port "$PORT" --mode silent \
        --rate "$SILENT_RATE" --duration "$SILENT_SECONDS" >"$flood_out") &
      flood_pid=$! ;;
  esac
  local report cpu_before cpu_after io_before io_after
  cpu_before=$(bidder_cpu_ms)
  io_before=$(io_threads_cpu_ms)
  report=$(load)
  [[ -n $flood_pid ]] && wait "$flood_pid"
  cpu_after=$(bidder_cpu_ms)
  io_after=$(io_threads_cpu_ms)
  jq -c --arg way "$way" --arg closes "$(closes)" --arg load "$(cut -d' ' -f1 /proc/loadavg)" \
    --argjson cpu_ms $((cpu_after - cpu_before)) --argjson io_ms $((io_after - io_before)) \
    --slurpfile flood <(cat "$flood_out"; [[ -s $flood_out ]] || echo null) \
    '{way: $way, p50_us: .latency_us.p50, p99_us: .latency_us.p99, p999_us: .latency_us.p999,
      throughput_rps: .throughput_rps, errors: .errors, unanswered: .unanswered,
      bidder_cpu_ms: $cpu_ms, io_threads_cpu_ms: $io_ms, flood: $flood[0], server_closes_so_far: $closes, load_average: $load}' <<<"$report"
}

# One unreported run: caches and the JIT-free warm-up of the store settle.
load >/dev/null

declare -A P99S=([baseline]="" [slowloris]="" [silent]="")
declare -A CPUS=([baseline]="" [slowloris]="" [silent]="")
declare -A IO_CPUS=([baseline]="" [slowloris]="" [silent]="")
for ((round = 0; round < ROUNDS; round++)); do
  for way in baseline slowloris silent; do
    line=$(run "$way")
    echo "$line"
    P99S[$way]+="$(jq -r .p99_us <<<"$line") "
    CPUS[$way]+="$(jq -r .bidder_cpu_ms <<<"$line") "
    IO_CPUS[$way]+="$(jq -r .io_threads_cpu_ms <<<"$line") "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(median <<<"${P99S[baseline]}")
slow=$(median <<<"${P99S[slowloris]}")
silent=$(median <<<"${P99S[silent]}")
jq -cn --argjson base "$base" --argjson slow "$slow" --argjson silent "$silent" \
  --argjson base_cpu "$(median <<<"${CPUS[baseline]}")" \
  --argjson slow_cpu "$(median <<<"${CPUS[slowloris]}")" \
  --argjson silent_cpu "$(median <<<"${CPUS[silent]}")" \
  --argjson base_io "$(median <<<"${IO_CPUS[baseline]}")" \
  --argjson slow_io "$(median <<<"${IO_CPUS[slowloris]}")" \
  --argjson silent_io "$(median <<<"${IO_CPUS[silent]}")" \
  --argjson rate "$RATE" --argjson rounds "$ROUNDS" --argjson slow_connections "$SLOW" \
  --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
  '{summary: "median p99 of the bid load, microseconds", rate: $rate, rounds: $rounds,
    baseline_p99_us: $base, slowloris_p99_us: $slow, silent_p99_us: $silent,
    slowloris_connections: $slow_connections,
    slowloris_ratio: ($slow / $base * 100 | round / 100),
    silent_ratio: ($silent / $base * 100 | round / 100),
    bidder_cpu_ms: {baseline: $base_cpu, slowloris: $slow_cpu, silent: $silent_cpu},
    io_threads_cpu_ms: {baseline: $base_io, slowloris: $slow_io, silent: $silent_io},
    load_average: $load}'
