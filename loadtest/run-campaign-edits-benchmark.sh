#!/usr/bin/env bash
# Campaign edits under load (BENCHMARKS.md, "Campaigns changed live"): the
# bidder under an open-loop load at a fixed rate (default 8,000 req/s, half
# of the two-thread peak in BENCHMARKS.md), once without edits and once while
# an operator makes EDITS campaign edits in a row through the admin API
# (merge patches of one campaign's daily budget, each read-modify-write on
# the version it read), alternating PAIRS times in one sitting so noise from
# other work on the machine hits both. Each edit makes the bidder rebuild its
# campaign index and swap it in while requests are in flight.
#
# One JSON line per run on stdout (rtb-load's, plus "edits", "edit_errors"
# and "late": bid answers that were ready after their deadline, from
# bidder_bid_requests_total{outcome="late"}), then a summary line.
#
# Environment (defaults in brackets):
#   BUILD_DIR    build directory [build]
#   RATE         offered rate, requests/s [8000]
#   DURATION     seconds per run, warm-up included [30]
#   WARMUP       seconds not measured at the start of each run [2]
#   EDITS        campaign edits made during an edit run [1000]
#   PAIRS        (without, with) pairs of runs [2]
#   CONNECTIONS  keep-alive connections of rtb-load [64]
#   THREADS      I/O threads of the bidder [number of cores]
#   DEVICES      device population [100000]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
RATE=${RATE:-8000}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-2}
EDITS=${EDITS:-1000}
PAIRS=${PAIRS:-2}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-$(nproc)}
DEVICES=${DEVICES:-100000}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json
OPERATOR=bench@example.test

command -v jq >/dev/null || { echo "run-campaign-edits-benchmark: jq is needed" >&2; exit 1; }
cmake --build "$BUILD_DIR" --target rtb-bidder rtb-load rtb-seed-profiles rtb-passwd >&2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-campaign-edits.XXXXXX")
BIDDER_PID=
cleanup() {
  [[ -n $BIDDER_PID ]] && { kill -TERM "$BIDDER_PID" 2>/dev/null || true; wait "$BIDDER_PID" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT

PASSWORD=$(openssl rand -hex 16)
HASH=$(printf '%s\n' "$PASSWORD" | "$BUILD_DIR/bidder/sessions/rtb-passwd")
jq --arg path "$WORK/store" --argjson threads "$THREADS" --arg user "$OPERATOR" --arg hash "$HASH" \
  '.storage.embedded.path = $path | .server.port = 0 | .server.io_threads = $threads
   | .sessions.operators = [{"user": $user, "password_hash": $hash}]
   | .sessions.cookie_secure = false' \
  config/bidder.example.json >"$WORK/bidder.json"
export RTB_DEVICE_KEY_SECRET RTB_BEACON_SECRET
RTB_DEVICE_KEY_SECRET=$(openssl rand -hex 32)
RTB_BEACON_SECRET=$(openssl rand -hex 32)
"$BUILD_DIR/loadtest/rtb-seed-profiles" --config "$WORK/bidder.json" --devices "$DEVICES" >&2

"$BUILD_DIR/bidder/rtb-bidder" --config "$WORK/bidder.json" --port-file "$WORK/bidder.port" \
  2>"$WORK/bidder.log" &
BIDDER_PID=$!
for ((i = 0; i < 300; i++)); do [[ -s $WORK/bidder.port ]] && break; sleep 0.1; done
[[ -s $WORK/bidder.port ]] || { tail -5 "$WORK/bidder.log" >&2; exit 1; }
PORT=$(cat "$WORK/bidder.port")
BASE=http://127.0.0.1:$PORT
for ((i = 0; i < 100; i++)); do curl -sf -o /dev/null "$BASE/readyz" && break; sleep 0.1; done

CSRF=$(curl -sf -c "$WORK/jar" -H 'Content-Type: application/json' \
  -d "$(jq -n --arg u "$OPERATOR" --arg p "$PASSWORD" '{user: $u, password: $p}')" \
  "$BASE/api/login" | jq -r .csrf_token)
CAMPAIGN=$(curl -sf -b "$WORK/jar" "$BASE/api/campaigns?state=active" | jq -r '.campaigns[0].id')
[[ -n $CAMPAIGN && $CAMPAIGN != null ]] || { echo "no active campaign to edit" >&2; exit 1; }

late_answers() {
  curl -sf "$BASE/metrics" |
    awk '/^bidder_bid_requests_total\{/ && /outcome="late"/ { sum += $NF } END { print sum + 0 }'
}

# EDITS merge patches in a row over one keep-alive connection (one client
# process, so the client's own CPU stays small beside the bidder's), each on
# the version the previous one returned. Prints the number that failed.
edit_campaign() {
  python3 - "$PORT" "$CAMPAIGN" "$EDITS" "$WORK/jar" "$CSRF" <<'PY'
import http.client, json, sys
port, campaign, edits, jar, csrf = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
cookie = ""
for line in open(jar):
    fields = line.rstrip("\n").split("\t")
    if len(fields) == 7:
        cookie = fields[5] + "=" + fields[6]
headers = {"Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"}
connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
def call(method, path, body=None):
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"null")
status, record = call("GET", "/api/campaigns/" + campaign)
version = record["version"]
errors = 0
for i in range(edits):
    budget = 100000000 + (i % 2) * 1000000
    status, answer = call("PATCH", "/api/campaigns/%s?version=%d" % (campaign, version),
                          json.dumps({"daily_budget_micros": budget}))
    if status == 200:
        version = answer["version"]
    else:
        errors += 1
        version = call("GET", "/api/campaigns/" + campaign)[1]["version"]
print(errors)
PY
}

run() {
  local edits=$1 late_before late_after edit_errors=0 edit_pid=
  late_before=$(late_answers)
  "$BUILD_DIR/loadtest/rtb-load" --port "$PORT" --rate "$RATE" --duration "$DURATION" \
    --warmup "$WARMUP" --connections "$CONNECTIONS" --requests "$REQUESTS" \
    --devices "$DEVICES" >"$WORK/run.json" &
  local load=$!
  if [[ $edits -gt 0 ]]; then
    sleep "$WARMUP"
    EDITS=$edits edit_campaign >"$WORK/edit_errors" &
    edit_pid=$!
  fi
  wait "$load"
  if [[ -n $edit_pid ]]; then
    wait "$edit_pid"
    edit_errors=$(cat "$WORK/edit_errors")
  fi
  late_after=$(late_answers)
  jq -c --argjson edits "$edits" --argjson edit_errors "$edit_errors" \
    --argjson late "$((late_after - late_before))" \
    '. + {edits: $edits, edit_errors: $edit_errors, late: $late}' "$WORK/run.json" |
    tee -a "$WORK/runs.jsonl"
}

for ((pair = 0; pair < PAIRS; pair++)); do
  run 0
  run "$EDITS"
done
builds=$(curl -sf "$BASE/metrics" | awk '/^bidder_campaign_index_builds_total / { print $2 }')
jq -s -c --argjson rate "$RATE" --arg builds "$builds" '{
  rate: $rate,
  index_builds: ($builds | tonumber? // null),
  without_edits_p99_us: [.[] | select(.edits == 0) | .latency_us.p99],
  with_edits_p99_us: [.[] | select(.edits > 0) | .latency_us.p99],
  errors: ([.[] | .errors + .unanswered] | add),
  edit_errors: ([.[] | .edit_errors] | add),
  late: ([.[] | .late] | add)
}' "$WORK/runs.jsonl"
