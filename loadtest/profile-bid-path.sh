#!/usr/bin/env bash
# Where the bidder's CPU goes per bid request, by stage: the bidder on one
# core (pinned, one I/O thread, the example config on a seeded embedded
# store, 50 % profile hits) under an open-loop load from another core, sampled
# with `perf record` (software cpu-clock, every thread, kernel included) over
# the measured window, its CPU time read from /proc over the same window.
# Each sampled function is put in one stage by its name:
#
#   kernel    system calls and the network stack (epoll, read, write, TCP)
#   http      Asio, Beast, the session, router, body inflater
#   parse     simdjson and the OpenRTB reader
#   lookup    the profile Get: the store, its row cache, RocksDB, the Profile
#   auction   campaign index, targeting, currencies, frequency caps, pacing
#   signing   beacon URLs: HMAC-SHA256, SHA-256
#   response  the bid response writer and the handler's own code
#   metrics   prometheus-cpp counters and histograms
#   locks     mutexes (abseil's, with its deadlock detection, and pthread's)
#   memory    malloc, free, operator new/delete, memcpy/memmove/memcmp
#   other     everything else (listed by function in the report)
#
# Prints one JSON object: rate, requests answered, CPU µs per request, and
# per stage its share of the samples and µs per request, and the row cache's
# hits and misses over the measured window. Needs perf (Debian
# linux-perf) and root or a perf_event_paranoid that allows it.
#
# Environment (defaults in brackets):
#   BUILD_DIR  build directory [build]
#   RATE       offered rate, requests/s [10000]
#   DURATION   seconds of load, warm-up included [12]
#   WARMUP     seconds not measured [2]
#   SERVER_CPU / LOAD_CPU  the CPUs of the bidder and the generator [0 / 1]
#   DEVICES / HIT_SHARE    device population and profile hit share [100000 / 0.5]
#   SETTLE     seconds of unmeasured load before the run, for the caches to
#              fill; the row cache's hits and misses over the measured
#              window are reported (row_cache) [4]
#   CONFIG_JQ  a jq filter applied to the bidder's configuration, e.g.
#              '.storage.embedded.row_cache_mib = 256' [.]
#   TOP        functions listed under "other" [15]
#   PERF_DATA  where to keep perf's recording for `perf report -i` [unset: not kept]
#   CALL_GRAPH 1 to record call graphs (perf -g; heavier) [0]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
RATE=${RATE:-10000}
DURATION=${DURATION:-12}
WARMUP=${WARMUP:-2}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
DEVICES=${DEVICES:-100000}
HIT_SHARE=${HIT_SHARE:-0.5}
TOP=${TOP:-15}
SETTLE=${SETTLE:-4}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=${REQUESTS:-$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json}

for tool in perf jq taskset; do
  command -v "$tool" >/dev/null || { echo "profile-bid-path: $tool is needed" >&2; exit 1; }
done
cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load rtb-seed-profiles >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-profile.XXXXXX")
BIDDER=0
cleanup() {
  [[ $BIDDER != 0 ]] && { kill -TERM "$BIDDER" 2>/dev/null || true; wait "$BIDDER" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT

jq --arg path "$WORK/store" \
  ".storage.embedded.path = \$path | .server.port = 0 | .server.io_threads = 1 | ${CONFIG_JQ:-.}" \
  config/bidder.example.json >"$WORK/bidder.json"
export RTB_DEVICE_KEY_SECRET RTB_BEACON_SECRET
RTB_DEVICE_KEY_SECRET=$(openssl rand -hex 32)
RTB_BEACON_SECRET=$(openssl rand -hex 32)
"$BUILD_DIR/loadtest/rtb-seed-profiles" --config "$WORK/bidder.json" --devices "$DEVICES" \
  --hit-share "$HIT_SHARE" >&2

taskset -c "$SERVER_CPU" "$BUILD_DIR/bidder/rtb-bidder" --config "$WORK/bidder.json" \
  --port-file "$WORK/port" 2>"$WORK/bidder.log" &
BIDDER=$!
for ((i = 0; i < 300; i++)); do [[ -s $WORK/port ]] && break; sleep 0.1; done
PORT=$(cat "$WORK/port")
for ((i = 0; i < 100; i++)); do
  curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break
  sleep 0.1
done

load() {
  taskset -c "$LOAD_CPU" "$BUILD_DIR/loadtest/rtb-load" --port "$PORT" --rate "$1" --duration "$2" \
    --warmup "$3" --requests "$REQUESTS" --devices "$DEVICES"
}
cpu_ticks() { sed 's/.*) //' "/proc/$BIDDER/stat" | awk '{ print $12 + $13 }'; }
# The row cache's hit and miss counts so far, as a JSON object.
row_cache_reads() {
  curl -sf "http://127.0.0.1:$PORT/metrics" |
    awk -F'[{}" ]+' '$1 == "bidder_store_row_cache_reads_total" { v[$3] = $4 }
      END { printf "{\"hits\":%d,\"misses\":%d}\n", v["hit"], v["miss"] }'
}

load "$RATE" "$SETTLE" 1 >/dev/null  # caches settle
load "$RATE" "$DURATION" "$WARMUP" >"$WORK/load.json" &
LOAD=$!
sleep "$WARMUP"
before=$(cpu_ticks)
reads_before=$(row_cache_reads)
PERF_FLAGS=(-q -e cpu-clock -F 4999)
[[ ${CALL_GRAPH:-0} == 1 ]] && PERF_FLAGS+=(--call-graph dwarf,16384 -F 999)
perf record "${PERF_FLAGS[@]}" -p "$BIDDER" -o "$WORK/perf.data" -- \
  sleep "$((DURATION - WARMUP))" 2>/dev/null
after=$(cpu_ticks)
reads_after=$(row_cache_reads)
wait "$LOAD"
[[ -n ${PERF_DATA:-} ]] && cp "$WORK/perf.data" "$PERF_DATA"

perf report -i "$WORK/perf.data" --stdio --no-children --sort sym 2>/dev/null |
  awk '/^ *[0-9.]+%/ { pct = $1; sub(/%/, "", pct); $1 = ""; sub(/^ +/, ""); print pct "\t" $0 }' \
  >"$WORK/symbols.tsv"

awk -F'\t' -v top="$TOP" '
  function stage(s) {
    if (s ~ /^\[k\]/) return "kernel"
    s = substr(s, 5)
    if (s ~ /prometheus/) return "metrics"
    if (s ~ /synchronization_internal|absl::.*Mutex|pthread_mutex|__lll_lock|futex/) return "locks"
    if (s ~ /(^|[^a-z])(malloc|free|_int_malloc|_int_free|cfree|operator new|operator delete|memcpy|memmove|memset|memcmp|__memcpy|__memmove|__memset|__memcmp|tcache|unlink_chunk)/) return "memory"
    if (s ~ /HmacSha256|BeaconSigner|SHA256|sha256|Sha256|BeaconUrl|AppendUrls|AppendSharedQuery|AppendField/) return "signing"
    if (s ~ /simdjson|openrtb::.*(Parse|Reader|Read)|BidRequestParser|ValidateBidRequest|FindQuoteOrBackslash|SkipChecked/) return "parse"
    if (s ~ /rocksdb|rtb::storage|Profile::|RowCache|CellList|FamilyCells/) return "lookup"
    if (s ~ /Auction|CampaignIndex|CampaignSet|Targeting|CheckCampaign|CheckCreative|CurrencyTable|FrequencyCap|PacingSnapshot|Pacer|RequestFacts|ImpressionRound/) return "auction"
    if (s ~ /boost::beast|boost::asio|internal::Session|HttpSession|Router|BodyInflater|ServerCore|HttpServer|inflate|epoll_wait|__libc_(read|write|recv|send)/) return "http"
    if (s ~ /BidHandler|WriteBidResponse|BidResponse|AppendJson|openrtb::/) return "response"
    return "other"
  }
  { st = stage($2); share[st] += $1; total += $1
    if (st == "other") { others[++n] = $1 "\t" substr($2, 5) } }
  END {
    printf "{"
    sep = ""
    split("kernel http parse lookup auction signing response metrics locks memory other", order, " ")
    for (i = 1; i <= 11; ++i) { printf "%s\"%s\":%.2f", sep, order[i], share[order[i]]; sep = "," }
    printf ",\"_total\":%.2f,\"_other_top\":[", total
    for (i = 1; i <= n && i <= top; ++i) {
      split(others[i], f, "\t"); gsub(/"/, "", f[2])
      printf "%s{\"pct\":%s,\"sym\":\"%s\"}", (i > 1 ? "," : ""), f[1], f[2]
    }
    printf "]}\n"
  }' "$WORK/symbols.tsv" >"$WORK/stages.json"

jq -c --argjson ticks "$((after - before))" --argjson hz "$(getconf CLK_TCK)" \
  --slurpfile stages "$WORK/stages.json" \
  --argjson rb "$reads_before" --argjson ra "$reads_after" '
  (if .completed > 0 then $ticks / $hz * 1e6 / .completed else 0 end) as $cpu |
  $stages[0] as $s |
  {offered_rate, answered: .completed, p99_us: .latency_us.p99,
   cpu_us_per_request: ($cpu * 10 | round / 10),
   stages: ([ "kernel","http","parse","lookup","auction","signing","response","metrics","locks","memory","other" ]
     | map({key: ., value: {share_pct: ($s[.] * 10 | round / 10),
                             us_per_request: (if $s._total > 0 then ($s[.] / $s._total * $cpu * 100 | round / 100) else null end)}})
     | from_entries),
   row_cache: {hits: ($ra.hits - $rb.hits), misses: ($ra.misses - $rb.misses),
     misses_per_request: (if .completed > 0 then (($ra.misses - $rb.misses) / .completed * 1000 | round / 1000) else null end)},
   other_top: $s._other_top}' "$WORK/load.json"
