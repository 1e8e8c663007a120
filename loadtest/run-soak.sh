#!/usr/bin/env bash
# The soak run of BENCHMARKS.md: the bidder under a steady open-loop load with
# win and billing notices for a long time (default 30 minutes), sampled every
# INTERVAL seconds: the load's p50/p99, errors and unanswered requests, the
# bidder's late answers and beacon outcomes from /metrics, its resident
# memory (VmRSS), where that memory is (the store's caches and memtables,
# and the C allocator's in-use and free bytes, from /metrics) and the size of
# its store on disk. What it shows: memory that stops growing after the
# warm-up, or grows only as far as the caches' bounds (the summary gives the
# growth of RSS less the store's memory apart), no growth of errors or late
# answers, and a store that grows with the data written (bytes per recorded
# impression steady), not faster.
#
# The bidder runs the example configuration on an embedded store in a fresh
# temp dir, seeded by rtb-seed-profiles; rtb-load runs back to back for
# INTERVAL seconds each (so every interval has its own latency figures).
# Everything listens on 127.0.0.1. Writes OUT_DIR/soak.csv, OUT_DIR/soak.png
# (latency and RSS over time, when gnuplot is installed: deploy/install-deps.sh)
# and prints a JSON summary on stdout.
#
# Environment (defaults in brackets):
#   BUILD_DIR   build directory [build]
#   DURATION    seconds of load [1800]
#   INTERVAL    seconds per sample [30]
#   WARMUP      seconds before the RSS baseline [300]
#   MEDIAN_SAMPLES  samples at each end of the measured window whose RSS
#               medians are compared [10]
#   PEAK        the measured peak, requests/s (BENCHMARKS.md) [20000]
#   RATE        offered rate [70 % of PEAK]
#   THREADS     the bidder's I/O threads [2]
#   WIN_RATE    share of bids whose win and billing notices are fired [0.3]
#   DEVICES / HIT_SHARE  device population and profile hit share [100000 / 0.5]
#   OUT_DIR     where the CSV and the plot go [BUILD_DIR/soak]
#   REQUESTS    bid requests, as for run-bid-benchmark.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=loadtest/bidder_for_load.sh
source loadtest/bidder_for_load.sh
BUILD_DIR=${BUILD_DIR:-build}
DURATION=${DURATION:-1800}
INTERVAL=${INTERVAL:-30}
WARMUP=${WARMUP:-300}
MEDIAN_SAMPLES=${MEDIAN_SAMPLES:-10}
PEAK=${PEAK:-20000}
RATE=${RATE:-$((PEAK * 7 / 10))}
THREADS=${THREADS:-2}
WIN_RATE=${WIN_RATE:-0.3}
DEVICES=${DEVICES:-100000}
HIT_SHARE=${HIT_SHARE:-0.5}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/soak}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=${REQUESTS:-$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json}

for tool in jq curl; do
  command -v "$tool" >/dev/null || { echo "run-soak: $tool is needed (deploy/install-deps.sh)" >&2; exit 1; }
done
((INTERVAL >= 5 && DURATION >= INTERVAL && MEDIAN_SAMPLES >= 1)) || { echo "run-soak: need INTERVAL >= 5, DURATION >= INTERVAL and MEDIAN_SAMPLES >= 1" >&2; exit 1; }
cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load rtb-seed-profiles >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-soak.XXXXXX")
BIDDER_PID=
cleanup() {
  [[ -n $BIDDER_PID ]] && { kill -TERM "$BIDDER_PID" 2>/dev/null || true; wait "$BIDDER_PID" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT

jq --arg path "$WORK/store" --argjson threads "$THREADS" \
  '.storage.embedded.path = $path | .server.port = 0 | .server.io_threads = $threads' \
  config/bidder.example.json >"$WORK/bidder.json"
fresh_secrets
seed_profiles "$WORK/bidder.json"

start_bidder "$WORK/bidder.json" run-soak

# Sums of a metric family's samples whose labels match both patterns.
metric_sum() {  # family, label pattern, another label pattern
  awk -v family="$1" -v pattern="$2" -v also="${3:-}" '
    index($1, family "{") == 1 && $1 ~ pattern && $1 ~ also { sum += $2 }
    END { printf "%.0f\n", sum }' "$WORK/metrics.txt"
}
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$BIDDER_PID/status"; }

mkdir -p "$OUT_DIR"
CSV=$OUT_DIR/soak.csv
echo "elapsed_s,offered_rps,completed,errors,unanswered,p50_us,p99_us,late_total,impressions_total,rss_kib,store_bytes,block_cache_bytes,memtable_bytes,row_cache_bytes,table_reader_bytes,heap_in_use_bytes,heap_free_bytes,heap_mmapped_bytes" >"$CSV"
echo "run-soak: $DURATION s at $RATE requests/s ($THREADS I/O threads), win rate $WIN_RATE, a sample every $INTERVAL s" >&2

STORE_AT_START=$(du -sb "$WORK/store" | cut -f1)
for ((elapsed = 0; elapsed < DURATION; elapsed += INTERVAL)); do
  "$BUILD_DIR/loadtest/rtb-load" --port "$PORT" --rate "$RATE" --duration "$INTERVAL" --warmup 0 \
    --requests "$REQUESTS" --devices "$DEVICES" --win-rate "$WIN_RATE" >"$WORK/load.json"
  kill -0 "$BIDDER_PID" 2>/dev/null || { echo "run-soak: the bidder died; log: $(tail -3 "$WORK/bidder.log")" >&2; exit 1; }
  curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/metrics.txt"
  late=$(metric_sum bidder_bid_requests_total 'outcome="late"')
  impressions=$(metric_sum bidder_beacons_total 'kind="billing"' 'outcome="recorded"')
  store=$(du -sb "$WORK/store" | cut -f1)
  memory=$(for series in 'bidder_store_memory_bytes{part="block_cache"}' \
    'bidder_store_memory_bytes{part="memtables"}' 'bidder_store_memory_bytes{part="row_cache"}' \
    'bidder_store_memory_bytes{part="table_readers"}' 'bidder_heap_bytes{state="in_use"}' \
    'bidder_heap_bytes{state="free"}' 'bidder_heap_bytes{state="mmapped"}'; do
    awk -v series="$series" '$1 == series { printf "%.0f", $2; found = 1 } END { if (!found) printf "0" }' "$WORK/metrics.txt"
    echo
  done | paste -sd,)
  jq -r --argjson t "$((elapsed + INTERVAL))" --argjson late "$late" --argjson imp "$impressions" \
    --argjson rss "$(rss_kib)" --argjson store "$store" --argjson memory "[$memory]" \
    '[$t, .offered_rate, .completed, .errors, .unanswered, .latency_us.p50, .latency_us.p99,
      $late, $imp, $rss, $store] + $memory | @csv' "$WORK/load.json" >>"$CSV"
  tail -1 "$CSV" >&2
done

if command -v gnuplot >/dev/null; then
  gnuplot <<EOF
set terminal pngcairo size 1000,700 noenhanced
set output "$OUT_DIR/soak.png"
set datafile separator ","
set key autotitle columnhead
set multiplot layout 2,1 title "rtb-bidder soak: $RATE requests/s, win rate $WIN_RATE"
set xlabel "seconds"
set ylabel "latency (ms)"
plot "$CSV" using 1:(\$7/1000) with lines title "p99", "" using 1:(\$6/1000) with lines title "p50"
set ylabel "memory (MiB)"
set y2label "store on disk (MiB)"
set y2tics
plot "$CSV" using 1:(\$10/1024) with lines title "bidder RSS", \
     "" using 1:((\$12+\$13+\$14+\$15)/1048576) with lines title "store caches and memtables", \
     "" using 1:(\$10/1024-(\$12+\$13+\$14+\$15)/1048576) with lines title "RSS less the store's memory", \
     "" using 1:(\$17/1048576) with lines title "allocator free, held", \
     "" using 1:(\$11/1048576) axes x1y2 with lines title "store on disk"
unset multiplot
EOF
  PLOT=$OUT_DIR/soak.png
else
  echo "run-soak: gnuplot not installed, no plot" >&2
  PLOT=
fi

# RSS growth from the first sample after the warm-up to the last, and the
# same for RSS less the store's caches and memtables (what no configured
# bound limits), with each memory part at both samples in MiB; RSS growth
# between the medians of the first and of the last MEDIAN_SAMPLES samples
# after the warm-up (one sample against one moves by the size of a
# compaction); error,
# late and unanswered counts of the first and last thirds; store bytes per
# recorded impression (growth since the start: the seeded profiles are not
# counted) at the half and at the end.
jq -Rsc --argjson warmup "$WARMUP" --argjson median_samples "$MEDIAN_SAMPLES" --argjson store0 "$STORE_AT_START" --arg plot "$PLOT" --arg csv "$CSV" \
  --argjson rate "$RATE" --argjson duration "$DURATION" '
  split("\n") | .[1:] | map(select(length > 0) | split(",") | map(tonumber)) as $rows |
  ($rows | length) as $n |
  ($rows | map(select(.[0] >= $warmup))) as $measured |
  ($measured | first // $rows[-1]) as $base |
  def median: sort | if length == 0 then null else .[(length / 2 | floor)] end;
  ($measured[:$median_samples] | map(.[9]) | median) as $rss_head |
  ($measured[-$median_samples:] | map(.[9]) | median) as $rss_tail |
  ($rows[: ($n / 3 | floor)]) as $first | ($rows[($n - ($n / 3 | floor)):]) as $last |
  def total(rows; i): rows | map(.[i]) | add // 0;
  def bytes_per_imp(r): if r[8] > 0 then ((r[10] - $store0) / r[8] | round) else null end;
  def other(r): r[9] * 1024 - r[11] - r[12] - r[13] - r[14];
  {summary: "soak", duration_s: $duration, rate: $rate, samples: $n,
   rss_mib: {after_warmup: ($base[9] / 1024 | round), end: ($rows[-1][9] / 1024 | round)},
   rss_growth_pct: (($rows[-1][9] - $base[9]) / $base[9] * 1000 | round / 10),
   rss_median_mib: {first: ($rss_head / 1024 | round), last: ($rss_tail / 1024 | round),
                    samples_each: $median_samples},
   rss_median_growth_pct: (($rss_tail - $rss_head) / $rss_head * 1000 | round / 10),
   rss_less_store_memory_mib: {after_warmup: (other($base) / 1048576 | round),
                               end: (other($rows[-1]) / 1048576 | round)},
   rss_less_store_memory_growth_pct: ((other($rows[-1]) - other($base)) / other($base) * 1000 | round / 10),
   memory_parts_mib: ([["block_cache", 11], ["memtables", 12], ["row_cache", 13], ["table_readers", 14],
                       ["heap_in_use", 15], ["heap_free", 16], ["heap_mmapped", 17]]
                      | map({key: .[0], value: {after_warmup: ($base[.[1]] / 1048576 | round),
                                                end: ($rows[-1][.[1]] / 1048576 | round)}}) | from_entries),
   p99_us: {first_third_max: ($first | map(.[6]) | max), last_third_max: ($last | map(.[6]) | max)},
   errors: {first_third: total($first; 3), last_third: total($last; 3)},
   unanswered: {first_third: total($first; 4), last_third: total($last; 4)},
   late_total: $rows[-1][7], impressions_recorded: $rows[-1][8],
   store_bytes_per_impression: {half: bytes_per_imp($rows[($n / 2 | floor)]), end: bytes_per_imp($rows[-1])},
   csv: $csv, plot: (if $plot == "" then null else $plot end)}' "$CSV"
