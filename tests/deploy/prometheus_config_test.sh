#!/usr/bin/env bash
# The shipped Prometheus configuration (deploy/prometheus/prometheus.yml)
# passes `promtool check config` without a warning, which also parses every
# file-based discovery file it names (a missing file is only a warning to
# promtool, and a failure here), and discovers each process of a fleet
# (rtb-bidder, rtb-stream, rtb-pacer, rtb-storage-server) from a file of
# deploy/prometheus/targets/ whose example targets use the processes'
# default metrics ports. That a real Prometheus reads the files and labels
# each target with a stable instance is prometheus_scrape_test.sh's part.
#   prometheus_config_test.sh <source dir>
set -euo pipefail

SRC=${1:?usage: prometheus_config_test.sh <source dir>}
DIR=$SRC/deploy/prometheus
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v promtool >/dev/null || fail "promtool is not installed (deploy/install-deps.sh installs prometheus)"

out=$(cd "$DIR" && promtool check config prometheus.yml 2>&1) || { echo "$out" >&2; fail "promtool check config"; }
echo "$out"
if grep -qiE 'warning|failed' <<< "$out"; then
  fail "promtool check config warned about prometheus.yml"
fi

passed=0
# The job, its targets file, and a port its example targets must use (the
# process's default --metrics-address port, or the bidders' instance ports).
while read -r job port; do
  # The job's block: from its job_name to the next one.
  block=$(awk -v job="$job" '
    /^  - job_name:/ { inside = ($3 == job) }
    inside' "$DIR/prometheus.yml")
  [[ -n "$block" ]] || fail "prometheus.yml has no job $job"
  grep -q 'static_configs' <<< "$block" && fail "job $job lists static targets: use its targets file"
  grep -qE "^ +- files: \[targets/$job\.yml\]$" <<< "$block" ||
    fail "job $job is not discovered from targets/$job.yml"
  targets=$DIR/targets/$job.yml
  [[ -f "$targets" ]] || fail "$targets is missing"
  grep -qE "^- targets: \[\"127\.0\.0\.1:$port\"\]" "$targets" ||
    fail "$targets has no example target on 127.0.0.1:$port"
  grep -qE '^    instance: [A-Za-z0-9._/-]+$' "$targets" || fail "$targets labels no instance"
  echo "ok $job: targets/$job.yml"
  passed=$((passed + 1))
done <<'JOBS'
rtb-bidder 8081
rtb-stream 9471
rtb-pacer 9465
rtb-storage-server 9466
JOBS
echo "prometheus_config: $passed passed, 0 failed"
