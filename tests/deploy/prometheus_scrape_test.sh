#!/usr/bin/env bash
# A real Prometheus scrapes a real rtb-bidder on loopback:
#   - the exposition passes `promtool check metrics` (names, suffixes, types);
#   - deploy/prometheus/prometheus.yml and the rules pass promtool's checks;
#   - Prometheus, started with that configuration (scraping every second),
#     its rules and its file-based discovery files, discovers every job of
#     the fleet from targets/, each target labelled with an instance name
#     rather than its address; the bidder's targets file, rewritten while
#     Prometheus runs to name the test's bidder, brings that bidder up
#     under its name without a reload; Prometheus stores the bid counters
#     after a few bid requests and evaluates the recording rules over them.
# Every wait is bounded; both processes are stopped on exit.
#   prometheus_scrape_test.sh <rtb-bidder> <source dir>
set -euo pipefail

BIDDER=${1:?usage: prometheus_scrape_test.sh <rtb-bidder> <source dir>}
SRC=${2:?usage: prometheus_scrape_test.sh <rtb-bidder> <source dir>}

fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in prometheus promtool jq curl; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (deploy/install-deps.sh installs it)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtb-prometheus-test.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1; shift
  for ((i = 0; i < seconds * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  return 1
}

# A loopback port nothing listens on, from a range spread by our pid.
free_port() {
  local start=$((20000 + ($$ % 20000)))
  for ((p = start; p < start + 200; p++)); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

echo "== promtool: shipped config and rules"
(cd "$SRC/deploy/prometheus" && promtool check config prometheus.yml)
promtool check rules "$SRC/deploy/prometheus/rtb-bidder.rules.yml"

echo "== start rtb-bidder"
export RTB_DEVICE_KEY_SECRET=prometheus-test-device-key-secret-0123456789
export RTB_BEACON_SECRET=prometheus-test-beacon-secret-abcdefghijklmnop
jq --arg data "$WORK/data" '.server.port = 0 | .storage.embedded.path = $data
    | .storage.embedded.block_cache_mib = 8' \
  "$SRC/config/bidder.example.json" > "$WORK/bidder.json"
"$BIDDER" --config "$WORK/bidder.json" --port-file "$WORK/port" > "$WORK/bidder.log" 2>&1 &
PIDS+=($!)
wait_for 60 test -s "$WORK/port" || { cat "$WORK/bidder.log" >&2; fail "rtb-bidder did not start in 60 s"; }
PORT=$(cat "$WORK/port")
BIDDER_URL="http://127.0.0.1:$PORT"
METRICS_PATH=$(jq -r '.metrics.path // "/metrics"' "$WORK/bidder.json")

echo "== a few bid requests"
for i in $(seq 1 20); do
  body=$(jq -nc --arg id "prom-test-$i" --arg ifa "$(printf '6e1d3c52-0d3f-4f57-9d38-%012d' "$i")" '{id: $id, tmax: 100, at: 1, cur: ["USD"],
    imp: [{id: "1", banner: {w: 300, h: 250}, bidfloor: 0.1}],
    site: {id: "s1", domain: "news.example", page: "https://news.example/a", cat: ["IAB20"]},
    device: {ua: "Mozilla/5.0", ip: "192.0.2.1", devicetype: 2, os: "Linux",
             geo: {country: "USA"}, ifa: $ifa},
    user: {id: "u1"}}')
  curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
       -H 'x-openrtb-version: 2.5' -d "$body" "$BIDDER_URL/openrtb2/bid" >> "$WORK/codes"
done
sort "$WORK/codes" | uniq -c
grep -qE '^(200|204)$' "$WORK/codes" || fail "no bid request was answered 200 or 204"

echo "== promtool: the bidder's exposition"
curl -sf "$BIDDER_URL$METRICS_PATH" > "$WORK/metrics.txt"
promtool check metrics < "$WORK/metrics.txt" || fail "promtool check metrics refused the exposition"

echo "== start prometheus: the shipped configuration and discovery files"
PROM_PORT=$(free_port)
CONF=$WORK/prometheus
mkdir -p "$CONF"
cp -r "$SRC/deploy/prometheus/prometheus.yml" "$SRC/deploy/prometheus/rtb-bidder.rules.yml" \
  "$SRC/deploy/prometheus/targets" "$CONF/"
# Scrapes and rule evaluations every second, so that the waits below are
# seconds, not minutes; everything else as shipped.
sed -i -E 's/^(  (scrape|evaluation)_interval:) .*/\1 1s/' "$CONF/prometheus.yml"
(( $(grep -cE '^  (scrape|evaluation)_interval: 1s$' "$CONF/prometheus.yml") == 2 )) ||
  fail "prometheus.yml has no global scrape_interval and evaluation_interval to shorten"
grep -qE "^    metrics_path: $METRICS_PATH\$" "$CONF/prometheus.yml" ||
  fail "prometheus.yml does not scrape the example config's metrics.path $METRICS_PATH"
promtool check config "$CONF/prometheus.yml"
prometheus --config.file="$CONF/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" > "$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
PROM="http://127.0.0.1:$PROM_PORT"
wait_for 60 curl -sf "$PROM/-/ready" || { tail -20 "$WORK/prometheus.log" >&2; fail "prometheus not ready in 60 s"; }

# The value of an instant query's first sample, or nothing.
query() {
  curl -sf --data-urlencode "query=$1" "$PROM/api/v1/query" | jq -er '.data.result[0].value[1]'
}
# Discovered targets: "<job> <instance> <address>" lines.
targets() {
  curl -sf "$PROM/api/v1/targets?state=active" |
    jq -er '.data.activeTargets[] | "\(.labels.job) \(.labels.instance) \(.discoveredLabels.__address__)"'
}
all_jobs_discovered() {
  local listed job
  listed=$(targets) || return 1
  for job in rtb-bidder rtb-stream rtb-pacer rtb-storage-server; do
    grep -q "^$job " <<< "$listed" || return 1
  done
}
target_up() { [[ "$(query 'up{job="rtb-bidder",instance="test-bidder"}')" == "1" ]]; }
requests_seen() { (( $(query 'sum(bidder_bid_requests_total)' | cut -d. -f1) >= 20 )); }
recording_rule() { query 'sum(exchange:bidder_bid_requests:rate1m)'; }

wait_for 60 all_jobs_discovered || { targets >&2 || true; fail "prometheus did not discover every job from targets/ in 60 s"; }
while read -r job instance address; do
  # A target named by its address would start new series whenever it moves.
  [[ "$instance" != "$address" ]] || fail "$job target $address has no instance label of its own"
  echo "discovered $job $instance at $address"
done < <(targets)

# The test's bidder replaces the example bidders as an operator would: a
# complete file renamed over the old one, read without a reload.
cat > "$CONF/rtb-bidder.yml.new" <<YAML
- targets: ["127.0.0.1:$PORT"]
  labels:
    instance: test-bidder
YAML
mv "$CONF/rtb-bidder.yml.new" "$CONF/targets/rtb-bidder.yml"
wait_for 60 target_up || { targets >&2 || true; fail "the bidder's target is not up in prometheus 60 s after its targets file named it"; }
echo "target up: rtb-bidder test-bidder"
wait_for 60 requests_seen || fail "prometheus did not store the 20 bid requests in 60 s"
echo "bid requests stored: $(query 'sum(bidder_bid_requests_total)')"
wait_for 90 recording_rule || fail "the recording rule gave no value in 90 s"
echo "recording rule evaluated: $(recording_rule)"
rules_health=$(curl -sf "$PROM/api/v1/rules" | jq -r '[.data.groups[].rules[] | .health] | unique | join(",")')
[[ "$rules_health" == "ok" ]] || fail "rule health: $rules_health"
echo "PASS"
