#!/usr/bin/env bash
# Samples a gauge/counter mix from /proc once a second and prints it as a
# telemetry fixture for the bytes-per-point benchmark of
# loadtest/bench/telemetry_bench.cc:
#   loadtest/record-proc-fixture.sh SAMPLES > fixture.txt
# Format: '#' comment lines; one "series <name>..." line; then one line per
# sample, "<unix seconds> <value>...", a value per series in that order.
set -euo pipefail

samples=${1:?usage: record-proc-fixture.sh SAMPLES}
[[ $samples =~ ^[0-9]+$ && $samples -gt 0 ]] || { echo "SAMPLES must be a positive integer" >&2; exit 2; }

# One sample as "name value" lines, in a fixed order.
sample() {
  awk '
    FILENAME == "/proc/stat" && $1 == "cpu" {
      split("user nice system idle iowait irq softirq", names, " ")
      for (k = 1; k <= 7; k++) print "proc.stat.cpu." names[k], $(k + 1)
    }
    FILENAME == "/proc/stat" && ($1 == "ctxt" || $1 == "processes" || $1 == "procs_running") {
      print "proc.stat." $1, $2
    }
    FILENAME == "/proc/meminfo" {
      key = $1; sub(":", "", key)
      if (key ~ /^(MemFree|MemAvailable|Buffers|Cached|Active|Inactive|Dirty|Committed_AS)$/)
        print "proc.meminfo." key, $2
    }
    FILENAME == "/proc/loadavg" {
      print "proc.loadavg.1m", $1; print "proc.loadavg.5m", $2; print "proc.loadavg.15m", $3
    }' /proc/stat /proc/meminfo /proc/loadavg
}

echo "# sampled from /proc every 1 s, $samples samples"
echo "series $(sample | awk '{ printf "%s%s", sep, $1; sep = " " }')"
for ((i = 0; i < samples; i++)); do
  echo "$(date +%s) $(sample | awk '{ printf "%s%s", sep, $2; sep = " " }')"
  # Sleep to the next whole second so the interval stays regular.
  sleep "$(awk -v ns="$(date +%N)" 'BEGIN { printf "%.3f", 1 - ns / 1e9 }')"
done
