#!/usr/bin/env bash
# The replayed-backlog benchmark of BENCHMARKS.md: how fast the stream worker
# drains a beacon log that fell behind (an hour of beacons at the live rate),
# and what that does to the bid path meanwhile.
#
#   1. Fill: the bidder runs with its stream worker off
#      (beacon_log.stream.in_process false), so every beacon it acknowledges
#      stays in the embedded log. One WINDOW of live traffic measures the
#      live beacon rate (notices acknowledged per second); then rtb-load
#      fires the win and billing notices of every bid until the log holds
#      BACKLOG records.
#   2. Drain: the bidder restarts on the same store and log with its worker
#      on, and serves live traffic (LIVE_RATE bid requests/s, notices for
#      WIN_RATE of the bids) in back-to-back WINDOW-second rtb-load runs while
#      the worker applies the backlog. /metrics is read every second: the
#      log's lag in bytes (the embedded log does not count records) and the
#      records applied.
#   3. After: the same live traffic for AFTER windows once the lag is gone:
#      the bid path's p99 without a backlog, in the same process.
#
# BACKLOG defaults to an hour of the live beacon rate so measured. The
# summary (JSON on stdout) gives the drain time, the records applied per
# second during it and that rate as a multiple of the live beacon rate (10x
# or more drains an hour's backlog in 6 minutes or less), and the p99 of
# each drain window beside the p99 after it.
#
# The bidder runs the example configuration on an embedded store in a fresh
# temp dir, seeded by rtb-seed-profiles; everything listens on 127.0.0.1.
# STORE=hbase puts the tables on the HBase of RTB_HBASE_THRIFT (the log stays
# embedded): a fresh cluster per run (deploy/hbase/hbase.sh stop, start,
# wait), since rtb-load's ids repeat from run to run and a second run's
# beacons would all be duplicates.
#
# Environment (defaults in brackets):
#   BUILD_DIR   build directory [build]
#   LIVE_RATE   bid requests/s while draining [1000]
#   WIN_RATE    share of bids whose notices rtb-load fires while draining [0.3]
#   BACKLOG     records to fill the log with [an hour of live beacons]
#   FILL_RATE   bid requests/s of the fill, every bid's notices fired [4000]
#   WINDOW      seconds per rtb-load run while draining [10]
#   AFTER       windows measured after the drain [3]
#   MAX_DRAIN   seconds after which the drain is reported unfinished [3600]
#   APPLY_THREADS  beacon_log.stream.apply_threads of the drain [the example config's]
#   NICE        beacon_log.stream.nice of the drain [the example config's]
#   THREADS     the bidder's I/O threads [2]
#   DEVICES / HIT_SHARE  device population and profile hit share [100000 / 0.5]
#   ZIPF        Zipf exponent of device popularity (rtb-load --zipf) [1.1]
#   STORE       embedded or hbase [embedded]
#   REQUESTS    bid requests, as for run-bid-benchmark.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=loadtest/bidder_for_load.sh
source loadtest/bidder_for_load.sh
BUILD_DIR=${BUILD_DIR:-build}
LIVE_RATE=${LIVE_RATE:-1000}
WIN_RATE=${WIN_RATE:-0.3}
FILL_RATE=${FILL_RATE:-4000}
WINDOW=${WINDOW:-10}
AFTER=${AFTER:-3}
MAX_DRAIN=${MAX_DRAIN:-3600}
THREADS=${THREADS:-2}
DEVICES=${DEVICES:-100000}
HIT_SHARE=${HIT_SHARE:-0.5}
ZIPF=${ZIPF:-1.1}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=${REQUESTS:-$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json}

for tool in jq curl; do
  command -v "$tool" >/dev/null || { echo "run-backlog-benchmark: $tool is needed (deploy/install-deps.sh)" >&2; exit 1; }
done
((${BACKLOG:-1} > 0 && WINDOW >= 2 && AFTER >= 1)) || { echo "run-backlog-benchmark: need BACKLOG > 0, WINDOW >= 2, AFTER >= 1" >&2; exit 1; }
cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load rtb-seed-profiles >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-backlog-benchmark.XXXXXX")
BIDDER_PID=
SAMPLER_PID=
cleanup() {
  [[ -n $SAMPLER_PID ]] && kill "$SAMPLER_PID" 2>/dev/null || true
  stop_bidder
  rm -rf "$WORK"
}
trap cleanup EXIT

jq --arg path "$WORK/store" --argjson threads "$THREADS" \
  '.storage.embedded.path = $path | .server.port = 0 | .server.io_threads = $threads' \
  config/bidder.example.json >"$WORK/bidder.json"
jq --argjson lanes "${APPLY_THREADS:-null}" --argjson nice "${NICE:-null}" '
  if $lanes != null then .beacon_log.stream.apply_threads = $lanes else . end
  | if $nice != null then .beacon_log.stream.nice = $nice else . end' "$WORK/bidder.json" >"$WORK/stream.json"
mv "$WORK/stream.json" "$WORK/bidder.json"
if [[ ${STORE:-embedded} == hbase ]]; then
  [[ -n ${RTB_HBASE_THRIFT:-} ]] || { echo "run-backlog-benchmark: STORE=hbase needs RTB_HBASE_THRIFT" >&2; exit 1; }
  jq --arg thrift "$RTB_HBASE_THRIFT" '.storage.backend = "hbase" | .storage.hbase.endpoints = [$thrift]' \
    "$WORK/bidder.json" >"$WORK/hbase.json"
  mv "$WORK/hbase.json" "$WORK/bidder.json"
fi
jq '.beacon_log.stream.in_process = false' "$WORK/bidder.json" >"$WORK/fill.json"
fresh_secrets
seed_profiles "$WORK/bidder.json"

# rtb-load at `rate` for `seconds` with `win_rate`; its JSON report in `out`.
load() {  # rate, seconds, win rate, out
  "$BUILD_DIR/loadtest/rtb-load" --port "$PORT" --rate "$1" --duration "$2" --warmup 0 \
    --requests "$REQUESTS" --devices "$DEVICES" --zipf "$ZIPF" --win-rate "$3" --notice-connections 16 \
    --notice-queue 20000 >"$4"
}

# 1. Fill. Every notice answered 2xx (a win notice's markup or 204, a
# billing notice's 204) is a record in the log.
answered() {  # rtb-load report
  jq '[.notices.status | to_entries[] | select(.key | startswith("2")) | .value] | add // 0' "$1"
}
start_bidder "$WORK/fill.json" run-backlog-benchmark
load "$LIVE_RATE" "$WINDOW" "$WIN_RATE" "$WORK/fill-run.json"
logged=$(answered "$WORK/fill-run.json")
live_beacons_per_s=$(awk -v n="$logged" -v w="$WINDOW" 'BEGIN { printf "%.1f", n / w }')
BACKLOG=${BACKLOG:-$(awk -v r="$live_beacons_per_s" 'BEGIN { printf "%d", r * 3600 }')}
echo "run-backlog-benchmark: live beacons $live_beacons_per_s/s; filling the log with $BACKLOG records at $FILL_RATE bids/s" >&2
fill_start=$(date +%s.%N)
while ((logged < BACKLOG)); do
  load "$FILL_RATE" 10 1 "$WORK/fill-run.json"
  added=$(answered "$WORK/fill-run.json")
  ((added > 0)) || { echo "run-backlog-benchmark: no notice acknowledged: $(jq -c .notices "$WORK/fill-run.json")" >&2; exit 1; }
  logged=$((logged + added))
  echo "run-backlog-benchmark: $logged records logged" >&2
done
fill_seconds=$(awk -v s="$fill_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
stop_bidder
log_bytes=$(du -sb "$WORK/store-beacon-log" | cut -f1)

# 2. Drain, sampled every second by a background reader of /metrics.
start_bidder "$WORK/bidder.json" run-backlog-benchmark
metric() {  # text, series prefix: the sum of the matching samples
  awk -v series="$2" 'index($1, series) == 1 { sum += $2; found = 1 } END { if (found) printf "%.0f\n", sum; else print "" }' <<<"$1"
}
sample() {
  local start text
  start=$(date +%s.%N)
  while sleep 1; do
    text=$(curl -sf "http://127.0.0.1:$PORT/metrics") || continue
    echo "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'),$(metric "$text" bidder_beacon_log_lag_bytes),$(metric "$text" 'bidder_beacon_stream_records_total{')"
  done
}
sample >"$WORK/samples.csv" &
SAMPLER_PID=$!

# Lag is published once a second by the worker: drained once a sample after
# the first window shows no more than a second of live beacons left, in
# bytes at the fill's bytes per record.
live_bytes=$(awk -v r="$live_beacons_per_s" -v b="$log_bytes" -v n="$logged" \
  'BEGIN { printf "%d", (r + 1) * b / n }')
drained() {
  awk -F, -v live="$live_bytes" -v window="$WINDOW" '$1 >= window && $2 != "" && $2 <= live { found = 1 } END { exit !found }' "$WORK/samples.csv"
}
echo "run-backlog-benchmark: draining under $LIVE_RATE bids/s, win rate $WIN_RATE" >&2
windows=0
: >"$WORK/drain.jsonl"
while ! drained; do
  ((windows * WINDOW < MAX_DRAIN)) || break
  load "$LIVE_RATE" "$WINDOW" "$WIN_RATE" "$WORK/window.json"
  jq -c '{p50_us: .latency_us.p50, p99_us: .latency_us.p99, errors, unanswered, notices: .notices.sent}' "$WORK/window.json" >>"$WORK/drain.jsonl"
  windows=$((windows + 1))
  echo "run-backlog-benchmark: window $windows: $(tail -1 "$WORK/drain.jsonl"), lag $(tail -1 "$WORK/samples.csv" | cut -d, -f2) bytes" >&2
done
drained && finished=true || finished=false

# 3. After the drain.
: >"$WORK/after.jsonl"
for ((i = 0; i < AFTER; i++)); do
  load "$LIVE_RATE" "$WINDOW" "$WIN_RATE" "$WORK/window.json"
  jq -c '{p50_us: .latency_us.p50, p99_us: .latency_us.p99, errors, unanswered, notices: .notices.sent}' "$WORK/window.json" >>"$WORK/after.jsonl"
done
kill "$SAMPLER_PID" 2>/dev/null || true
SAMPLER_PID=

# The drain ends at the first sample (after the first window) whose lag is
# within a second of live beacons; its rate counts every record applied
# from the start to then, backlog and live beacons alike.
jq -nc --slurpfile drain "$WORK/drain.jsonl" --slurpfile after "$WORK/after.jsonl" \
  --rawfile samples "$WORK/samples.csv" --argjson backlog "$BACKLOG" --argjson logged "$logged" \
  --argjson fill_s "$fill_seconds" --argjson log_bytes "$log_bytes" --argjson window "$WINDOW" \
  --argjson live_rate "$LIVE_RATE" --argjson win_rate "$WIN_RATE" --argjson live "$live_bytes" \
  --argjson live_measured "$live_beacons_per_s" \
  --argjson lanes "$(jq '.beacon_log.stream.apply_threads // 4' "$WORK/bidder.json")" \
  --argjson nice "$(jq '.beacon_log.stream.nice // 10' "$WORK/bidder.json")" \
  --arg store "${STORE:-embedded}" \
  --argjson finished "$finished" '
  ($samples | split("\n") | map(select(length > 0) | split(",")) |
   map(select(.[1] != "" and .[2] != "") | map(tonumber))) as $rows |
  ($rows | map(select(.[0] >= $window and .[1] <= $live)) | first) as $done |
  ($rows | first) as $start |
  (if $done then ($done[2] - $start[2]) / ($done[0] - $start[0]) else null end) as $rate |
  {summary: "backlog", store: $store, finished: $finished, apply_threads: $lanes, nice: $nice, backlog_records: $logged, backlog_target: $backlog,
   log_bytes: $log_bytes, fill_s: $fill_s,
   live: {bid_rate: $live_rate, win_rate: $win_rate, beacons_per_s: $live_measured},
   drain_s: (if $done then $done[0] else null end),
   drain_records_per_s: (if $rate then ($rate | round) else null end),
   drain_over_live: (if $rate and $live_measured > 0 then ($rate / $live_measured * 10 | round / 10) else null end),
   hour_of_live_drains_in_s: (if $rate and $live_measured > 0 then ($live_measured * 3600 / $rate | round) else null end),
   p99_us: {draining: ($drain | map(.p99_us)), after: ($after | map(.p99_us))},
   errors: {draining: ($drain | map(.errors) | add), after: ($after | map(.errors) | add)},
   unanswered: {draining: ($drain | map(.unanswered) | add), after: ($after | map(.unanswered) | add)}}'
