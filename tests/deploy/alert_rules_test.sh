#!/usr/bin/env bash
# The alerting rules are proven, not only loaded: promtool's unit tests
# (deploy/prometheus/rtb-bidder.rules.test.yml) pass, every alert of
# rtb-bidder.rules.yml has a test that makes it fire and one that sees it
# resolve, and a runbook entry in docs/deployment-and-monitoring.md.
#
# Usage: alert_rules_test.sh <source dir>
set -euo pipefail
SRC=$1
RULES=$SRC/deploy/prometheus/rtb-bidder.rules.yml
TESTS=$SRC/deploy/prometheus/rtb-bidder.rules.test.yml
RUNBOOK=$SRC/docs/deployment-and-monitoring.md
command -v promtool >/dev/null || { echo "promtool missing: run deploy/install-deps.sh" >&2; exit 1; }

(cd "$(dirname "$TESTS")" && promtool test rules "$(basename "$TESTS")")

passed=0
failed=0
for alert in $(sed -n 's/^ *- alert: *\([A-Za-z0-9_]*\).*/\1/p' "$RULES"); do
  problems=()
  # The alert's evaluations in the test file: lines naming it, then whether
  # they expect alerts (fires) or none (resolves).
  fires=$(grep -cE "alertname: $alert\$" "$TESTS" || true)
  resolves=$(grep -cE "alertname: $alert, exp_alerts: \[\]" "$TESTS" || true)
  ((fires > 0)) || problems+=("no test makes it fire")
  ((resolves > 0)) || problems+=("no test sees it resolve")
  grep -qE "^#+ .*\`$alert\`" "$RUNBOOK" || problems+=("no runbook entry in $RUNBOOK")
  if ((${#problems[@]} == 0)); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $alert: ${problems[*]}"
  fi
done
echo "alert_rules: $passed passed, $failed failed"
((failed == 0 && passed > 0))
