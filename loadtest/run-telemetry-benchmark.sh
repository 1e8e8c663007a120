#!/usr/bin/env bash
# Records the bidder's own telemetry series from a load-test run, for the
# bytes-per-point benchmark of BENCHMARKS.md (BM_BytesPerPoint_Fixture in
# loadtest/bench/telemetry_bench.cc reads the fixture this writes).
#
# The bidder runs the example configuration on an embedded store in a fresh
# temp dir (profiles seeded by rtb-seed-profiles), writing its series every
# 10 s; rtb-load sends bid requests at a steady rate and fires the win and
# billing notices of a share of the bids, so requests, bids, wins, spend,
# pacing and latency series all move. At the end every series the bidder
# wrote is read back through its OpenTSDB /api/query (raw points) and written
# as a fixture, and the packer's own gauges are read from /metrics. By
# default the load lasts until 10 minutes past the end of the first whole
# clock hour of the run (70 to 130 minutes), so that hour's bucket is full,
# closed and packed (5-minute grace, a pack every 5 minutes) and the packer's
# bytes per point is that of whole hours. Everything listens on 127.0.0.1. A
# JSON summary goes to stdout.
#
# Environment (defaults in brackets):
#   BUILD_DIR   build directory [build]
#   DURATION    seconds of load [to 10 min past the first whole hour's end]
#   RATE        bid requests/s [200]
#   WIN_RATE    share of bids whose notices are fired [0.2]
#   DEVICES     device population [100000]
#   HIT_SHARE   share of requests whose device has a profile [0.5]
#   FIXTURE     where the series go [tests/bidder/telemetry/fixtures/bidder_10s.txt]
#   REQUESTS    bid requests rtb-load sends, comma-separated files or directories
#               [three of tests/fixtures/openrtb/requests: site-banner-mrec,
#               app-banner-leaderboard, site-pmp-deals]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=loadtest/bidder_for_load.sh
source loadtest/bidder_for_load.sh
BUILD_DIR=${BUILD_DIR:-build}
now=$(date +%s)
DURATION=${DURATION:-$((now - now % 3600 + 2 * 3600 + 600 - now))}
RATE=${RATE:-200}
WIN_RATE=${WIN_RATE:-0.2}
DEVICES=${DEVICES:-100000}
HIT_SHARE=${HIT_SHARE:-0.5}
FIXTURE=${FIXTURE:-$ROOT/tests/bidder/telemetry/fixtures/bidder_10s.txt}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=${REQUESTS:-$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json}

command -v jq >/dev/null || { echo "run-telemetry-benchmark: jq is needed (deploy/install-deps.sh)" >&2; exit 1; }

cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load rtb-seed-profiles >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-telemetry-benchmark.XXXXXX")
BIDDER_PID=
cleanup() {
  [[ -n $BIDDER_PID ]] && { kill -TERM "$BIDDER_PID" 2>/dev/null || true; wait "$BIDDER_PID" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT

# The OpenTSDB reads are opened to loopback callers for the export; nothing
# else listens on this address.
jq --arg path "$WORK/store" \
  '.storage.embedded.path = $path | .server.port = 0 | .telemetry.write_interval_s = 10 |
   .telemetry.query_requires_login = false' \
  config/bidder.example.json >"$WORK/bidder.json"
fresh_secrets
seed_profiles "$WORK/bidder.json"
start_bidder "$WORK/bidder.json" run-telemetry-benchmark
BASE=http://127.0.0.1:$PORT

START=$(date +%s)
echo "run-telemetry-benchmark: $DURATION s at $RATE requests/s, win rate $WIN_RATE, from $(date -u -d "@$START" +%H:%M:%S) UTC" >&2
"$BUILD_DIR/loadtest/rtb-load" --port "$PORT" --rate "$RATE" --duration "$DURATION" --warmup 1 \
  --connections 16 --requests "$REQUESTS" --devices "$DEVICES" --win-rate "$WIN_RATE" >"$WORK/load.json"
sleep 12  # the last sample after the load
END=$(date +%s)

packer_gauge() {
  curl -sf "$BASE/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}
BYTES_PER_POINT=$(packer_gauge bidder_telemetry_packed_bytes_per_point)
OLDEST_UNPACKED=$(packer_gauge bidder_telemetry_oldest_unpacked_bucket_age_seconds)

query() {  # metric, tags (JSON object) -> the /api/query answer for raw points
  curl -sf "$BASE/api/query" -H 'Content-Type: application/json' -d "$(jq -cn --arg m "$1" --argjson tags "$2" \
    --argjson s "$START" --argjson e "$END" '{start: $s, end: $e, queries: [{aggregator: "sum", metric: $m, tags: $tags}]}')"
}
METRICS=$(curl -sf "$BASE/api/suggest" -H 'Content-Type: application/json' -d '{"type":"metrics","max":1000}' | jq -r '.[]')
: >"$WORK/series.json"
for metric in $METRICS; do
  # One query to learn the tag keys, one grouping by every key: a group per series.
  keys=$(query "$metric" '{}' | jq -c '[.[0].tags // {} | keys[]] + (.[0].aggregateTags // []) | map({(.): "*"}) | add // {}')
  query "$metric" "$keys" | jq -c '.[] | {name: (.metric + "{" + (.tags | to_entries | map("\(.key)=\(.value)") | join(",")) + "}"), dps}' \
    >>"$WORK/series.json"
done
mkdir -p "$(dirname "$FIXTURE")"
{
  echo "# the bidder's own series written every 10 s during a $DURATION-s rtb-load run at $RATE requests/s,"
  echo "# win rate $WIN_RATE (loadtest/run-telemetry-benchmark.sh); '-' = no point"
  jq -rs '(map(.name) | "series " + join(" ")),
          (. as $all | [.[].dps | keys[]] | unique | sort_by(tonumber)[] as $t |
           $t + " " + ([$all[] | .dps[$t] | if . == null then "-" else tostring end] | join(" ")))' "$WORK/series.json"
} >"$FIXTURE"

jq -cn --slurpfile load "$WORK/load.json" --argjson series "$(wc -l <"$WORK/series.json")" \
  --argjson samples "$(($(grep -vc '^#' "$FIXTURE") - 1))" --arg bpp "${BYTES_PER_POINT:-}" --arg oldest "${OLDEST_UNPACKED:-}" \
  --arg fixture "${FIXTURE#"$ROOT"/}" --argjson duration "$DURATION" --argjson rate "$RATE" \
  '{summary: "bidder telemetry during a load run", duration_s: $duration, rate: $rate,
    throughput_rps: $load[0].throughput_rps, notices: $load[0].notices, latency_us: $load[0].latency_us,
    series: $series, samples: $samples, fixture: $fixture,
    packer_bytes_per_point: (if $bpp == "" then null else ($bpp | tonumber) end),
    oldest_unpacked_bucket_age_s: (if $oldest == "" then null else ($oldest | tonumber) end)}'
