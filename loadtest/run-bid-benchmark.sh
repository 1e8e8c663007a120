#!/usr/bin/env bash
# The bid-path benchmark of BENCHMARKS.md: the bidder's throughput at a p99
# under a limit with a chosen share of profile hits (default 50 %), next to
# yardsticks on the same machine in the same run: bare-responder (a bare Beast
# server answering 204) and, in the one-core mode, nginx answering
# `return 204`. Rates are swept upwards and the servers take turns at each
# rate, so a burst of noise from other work on the machine hits all of them; a
# server's sweep stops at its first rate that fails the loosest limit (p99 too
# high, errors, unanswered requests, or under 95 % of the offered rate
# completed) twice in a row: a failed run is repeated once, since one burst of
# other work on a shared machine can spoil a 10 s run.
#
# Two modes:
#   default   every server with THREADS I/O threads, unpinned, next to the
#             load generator: the two-thread figure.
#   ONE_CORE=1  each server pinned to CPU SERVER_CPU with one I/O thread (nginx:
#             one worker), the generator pinned to CPU LOAD_CPU; per run, each
#             server's CPU time per answered request, read from /proc over
#             the measured window (user + system, every thread of the
#             process; nginx: master and worker).
#
# The bidder runs the example configuration on an embedded store in a fresh
# temp dir, seeded by rtb-seed-profiles for the device population rtb-load
# draws from. Everything listens on 127.0.0.1. One JSON line per run on
# stdout, then a summary line: per server the highest rate whose every run up
# to it passed each p99 limit, and in the one-core mode its CPU per request
# at the rates every server completed.
#
# Environment (defaults in brackets):
#   BUILD_DIR     build directory [build]
#   ONE_CORE      1 for the one-core mode [0]
#   SERVER_CPU    CPU the servers are pinned to in the one-core mode [0]
#   LOAD_CPU      CPU the load generator is pinned to in the one-core mode [1]
#   RATES         offered rates, requests/s, ascending
#                 [4000 8000 12000 16000 20000 24000 28000 32000]
#   DURATION      seconds per run, warm-up included [10]
#   WARMUP        seconds not measured at the start of each run [2]
#   CONNECTIONS   keep-alive connections of rtb-load [64]
#   THREADS       I/O threads of the servers in the default mode [number of cores]
#   DEVICES       device population [100000]
#   HIT_SHARE     share of requests whose device has a profile [0.5]
#   WIN_RATE      share of bids whose win and billing notices rtb-load fires
#                 at the server (rtb-load --win-rate): the beacon path's cost
#                 in the CPU per request [0: none]
#   P99_LIMITS_US p99 limits reported, microseconds, ascending [1000 5000]
#   NGINX         1 to run nginx in the default mode too [0; always in ONE_CORE]
#   BASELINE_BIDDER  another rtb-bidder binary (e.g. built from an earlier
#                 commit) to run as one more server on a copy of the same seeded
#                 store, taking its turn at each rate: the A/B figure of a change
#                 [unset: not run]
#   BASELINE_JQ   a jq filter applied to the baseline's copy of the configuration,
#                 for sections an older binary does not know, e.g. 'del(.privacy)' [.]
#   REQUESTS      bid requests rtb-load sends, comma-separated files or directories
#                 [three of tests/fixtures/openrtb/requests: site-banner-mrec,
#                 app-banner-leaderboard, site-pmp-deals]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
ONE_CORE=${ONE_CORE:-0}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
RATES=${RATES:-"4000 8000 12000 16000 20000 24000 28000 32000"}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-$(nproc)}
DEVICES=${DEVICES:-100000}
HIT_SHARE=${HIT_SHARE:-0.5}
WIN_RATE=${WIN_RATE:-0}
P99_LIMITS_US=${P99_LIMITS_US:-"1000 5000"}
FIXTURES=$ROOT/tests/fixtures/openrtb/requests
REQUESTS=${REQUESTS:-$FIXTURES/site-banner-mrec.json,$FIXTURES/app-banner-leaderboard.json,$FIXTURES/site-pmp-deals.json}
LOOSEST_LIMIT=${P99_LIMITS_US##* }
RUN_NGINX=${NGINX:-0}

PIN_SERVER=()
PIN_LOAD=()
if [[ $ONE_CORE == 1 ]]; then
  THREADS=1
  RUN_NGINX=1
  command -v taskset >/dev/null || { echo "run-bid-benchmark: taskset is needed (util-linux)" >&2; exit 1; }
  PIN_SERVER=(taskset -c "$SERVER_CPU")
  PIN_LOAD=(taskset -c "$LOAD_CPU")
fi
command -v jq >/dev/null || { echo "run-bid-benchmark: jq is needed (deploy/install-deps.sh)" >&2; exit 1; }
if [[ $RUN_NGINX == 1 ]]; then
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] ||
    { echo "run-bid-benchmark: nginx is needed (deploy/install-deps.sh)" >&2; exit 1; }
fi
NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)

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

# The server's log, shown when it did not come up.
wait_for_port_file() {
  local file=$1 log=${2:-} i
  for ((i = 0; i < 300; i++)); do
    [[ -s $file ]] && { cat "$file"; return 0; }
    sleep 0.1
  done
  echo "run-bid-benchmark: no port in $file after 30 s" >&2
  [[ -n $log && -f $log ]] && tail -5 "$log" >&2
  return 1
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

declare -A PORT PID
SERVERS=()

"${PIN_SERVER[@]}" "$BUILD_DIR/loadtest/bare-responder" --threads "$THREADS" --port 0 \
  --port-file "$WORK/bare.port" &
PID[bare]=$!
PIDS+=($!)
SERVERS+=(bare)

if [[ $RUN_NGINX == 1 ]]; then
  PORT[nginx]=$(free_port)
  mkdir -p "$WORK/nginx"
  cat >"$WORK/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_body_temp_path $WORK/nginx/body;
  server {
    listen 127.0.0.1:${PORT[nginx]} reuseport;
    location / { return 204; }
  }
}
EOF
  "${PIN_SERVER[@]}" "$NGINX_BIN" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
  PID[nginx]=$!
  PIDS+=($!)
  SERVERS+=(nginx)
fi

if [[ -n ${BASELINE_BIDDER:-} ]]; then
  jq --arg path "$WORK/store-baseline" ".storage.embedded.path = \$path | ${BASELINE_JQ:-.}" \
    "$WORK/bidder.json" \
    >"$WORK/baseline.json"
  # An older build may keep its store in an older format: its own seeder,
  # beside it in its build tree, writes the same device population. The copy
  # is taken before the bidder opens the store and rewrites its manifest.
  BASELINE_SEEDER=$(dirname "$BASELINE_BIDDER")/../loadtest/rtb-seed-profiles
  if [[ -x $BASELINE_SEEDER ]]; then
    "$BASELINE_SEEDER" --config "$WORK/baseline.json" --devices "$DEVICES" \
      --hit-share "$HIT_SHARE" >&2
  else
    cp -r "$WORK/store" "$WORK/store-baseline"
  fi
fi
"${PIN_SERVER[@]}" "$BUILD_DIR/bidder/rtb-bidder" --config "$WORK/bidder.json" \
  --port-file "$WORK/bidder.port" 2>"$WORK/bidder.log" &
PID[bidder]=$!
PIDS+=($!)
SERVERS+=(bidder)
if [[ -n ${BASELINE_BIDDER:-} ]]; then
  "${PIN_SERVER[@]}" "$BASELINE_BIDDER" --config "$WORK/baseline.json" \
    --port-file "$WORK/baseline.port" 2>"$WORK/baseline.log" &
  PID[baseline]=$!
  PIDS+=($!)
  SERVERS+=(baseline)
fi

PORT[bare]=$(wait_for_port_file "$WORK/bare.port")
PORT[bidder]=$(wait_for_port_file "$WORK/bidder.port" "$WORK/bidder.log")
[[ -n ${BASELINE_BIDDER:-} ]] && PORT[baseline]=$(wait_for_port_file "$WORK/baseline.port" "$WORK/baseline.log")
for server in "${SERVERS[@]}"; do
  [[ $server == bare ]] && continue
  path=/readyz
  [[ $server == nginx ]] && path=/
  for ((i = 0; i < 100; i++)); do
    curl -s -o /dev/null "http://127.0.0.1:${PORT[$server]}$path" && break
    sleep 0.1
  done
  curl -s -o /dev/null "http://127.0.0.1:${PORT[$server]}$path" ||
    { echo "run-bid-benchmark: $server not answering" >&2; exit 1; }
done
curl -sf "http://127.0.0.1:${PORT[bidder]}/readyz" >/dev/null ||
  { echo "run-bid-benchmark: bidder not ready; log: $(tail -3 "$WORK/bidder.log")" >&2; exit 1; }

lookups() {
  curl -sf "http://127.0.0.1:${PORT[bidder]}/metrics" |
    awk -v o="$1" '$1 ~ "^bidder_profile_lookups_total\\{outcome=\"" o "\"" { s += $2 } END { printf "%d", s }'
}

# CPU time of `server` so far, clock ticks (user + system of every thread;
# nginx: its master and worker processes).
cpu_ticks() {
  local server=$1 pids pid total=0
  pids=${PID[$server]}
  [[ $server == nginx ]] && pids="$pids $(pgrep -P "${PID[$server]}" | tr '\n' ' ')"
  for pid in $pids; do
    # Fields 14 and 15 of /proc/PID/stat, counted after the command name's ')'.
    total=$((total + $(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')))
  done
  echo "$total"
}
TICKS_PER_SECOND=$(getconf CLK_TCK)

# Ticks the hypervisor ran something else on this machine's CPUs ("steal",
# the 8th value of /proc/stat's cpu line): a run whose p99 jumped while
# steal_ms shows about 100 ms was stalled by the host, not by the server.
steal_ticks() { awk '$1 == "cpu" { print $9 }' /proc/stat; }

# Runs one load at `rate` against `server`; prints the report with `server`,
# `passed` (the loosest limit), `passed_us` (each limit passed), `steal_ms`
# (over the whole run) and, in the one-core mode, `cpu_us_per_request` added.
run_one() {
  local server=$1 rate=$2 before after report cpu=null steal_before
  steal_before=$(steal_ticks)
  "${PIN_LOAD[@]}" "$BUILD_DIR/loadtest/rtb-load" --port "${PORT[$server]}" --rate "$rate" \
    --duration "$DURATION" --warmup "$WARMUP" --connections "$CONNECTIONS" \
    --requests "$REQUESTS" --devices "$DEVICES" --win-rate "$WIN_RATE" >"$WORK/run.json" &
  local load=$!
  if [[ $ONE_CORE == 1 ]]; then
    sleep "$WARMUP"
    before=$(cpu_ticks "$server")
  fi
  wait "$load"
  if [[ $ONE_CORE == 1 ]]; then
    after=$(cpu_ticks "$server")
    cpu=$(jq --argjson ticks $((after - before)) --argjson hz "$TICKS_PER_SECOND" \
      'if .completed > 0 then ($ticks / $hz * 1e6 / .completed * 10 | round / 10) else null end' \
      "$WORK/run.json")
  fi
  local steal_ms=$((($(steal_ticks) - steal_before) * 1000 / TICKS_PER_SECOND))
  jq -c --arg server "$server" --arg limits "$P99_LIMITS_US" --argjson cpu "$cpu" \
    --argjson steal "$steal_ms" --arg load "$(cut -d' ' -f1 /proc/loadavg)" '
    (.errors == 0 and .unanswered == 0 and .throughput_rps >= 0.95 * .offered_rate) as $ok |
    . + {server: $server, load_average: $load, cpu_us_per_request: $cpu, steal_ms: $steal,
         passed_us: [($limits | split(" ") | .[] | tonumber) as $l
                     | select($ok and .latency_us.p99 < $l) | $l]}
    | . + {passed: (.passed_us | index('"$LOOSEST_LIMIT"') != null)}' "$WORK/run.json"
}

# One unreported run per server first: the bidder's caches (row cache,
# block cache) and the seeding's compactions settle before anything counts.
first_rate=${RATES%% *}
for server in "${SERVERS[@]}"; do run_one "$server" "$first_rate" >/dev/null; done

declare -A ALIVE
for server in "${SERVERS[@]}"; do ALIVE[$server]=1; done
HITS_BEFORE=$(lookups hit)
MISSES_BEFORE=$(lookups miss)
TIMEOUTS_BEFORE=$(lookups timeout)
: >"$WORK/reports.jsonl"
for rate in $RATES; do
  any=0
  for server in "${SERVERS[@]}"; do
    [[ ${ALIVE[$server]} == 1 ]] || continue
    any=1
    report=$(run_one "$server" "$rate")
    if [[ $(jq -r .passed <<<"$report") != true ]]; then
      echo "$report"
      report=$(run_one "$server" "$rate")
    fi
    echo "$report"
    echo "$report" >>"$WORK/reports.jsonl"
    [[ $(jq -r .passed <<<"$report") == true ]] || ALIVE[$server]=0
  done
  [[ $any == 1 ]] || break
done
HITS=$(($(lookups hit) - HITS_BEFORE))
MISSES=$(($(lookups miss) - MISSES_BEFORE))
TIMEOUTS=$(($(lookups timeout) - TIMEOUTS_BEFORE))

# Per server and limit: the highest rate with every run up to it passing.
jq -cn --arg limits "$P99_LIMITS_US" --argjson hits "$HITS" --argjson misses "$MISSES" \
  --argjson timeouts "$TIMEOUTS" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
  --argjson threads "$THREADS" --argjson one_core "$ONE_CORE" '
  ($limits | split(" ") | map(tonumber)) as $limits |
  ([$in[] | .server] | unique) as $servers |
  (reduce $servers[] as $s ({};
     .[$s] = (reduce $limits[] as $l ({};
       .["p99_under_" + ($l | tostring) + "us_rps"] =
         ([ $s as $srv | [$in[] | select(.server == $srv)] | sort_by(.offered_rate)
            | foreach .[] as $r ({ok: true, best: 0};
                .ok = (.ok and ($r.passed_us | index($l) != null))
                | if .ok then .best = $r.throughput_rps else . end;
                .best) ] | last // 0))))) as $best |
  ([ $in[] | .offered_rate ] | unique) as $rates |
  ([ $rates[] as $r | select(all($servers[]; . as $s | any($in[]; .server == $s and .offered_rate == $r and .passed))) | $r ]) as $common |
  {summary: "max throughput with every run up to it passing each p99 limit",
   mode: (if $one_core == 1 then "one core" else "unpinned" end), io_threads: $threads,
   p99_limits_us: $limits, servers: $best,
   cpu_us_per_request: (if $one_core == 1 then
     ([ $common[] as $r | {rate: $r} + (reduce $servers[] as $s ({};
        .[$s] = ([ $in[] | select(.server == $s and .offered_rate == $r and .passed) ] | last | .cpu_us_per_request))) ])
     else null end),
   profile_lookup_timeouts: $timeouts,
   profile_hit_share: (if $hits + $misses > 0 then ($hits / ($hits + $misses) * 1000 | round / 1000) else null end),
   load_average: $load}' --argjson in "$(jq -s . "$WORK/reports.jsonl")"
