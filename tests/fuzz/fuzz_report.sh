#!/usr/bin/env bash
# Prints the last run of every fuzz target in a Fuzz build as a Markdown
# table (the summaries run_fuzzer.sh writes):
#   tests/fuzz/fuzz_report.sh [BUILD_DIR]   (default build-fuzz)
set -euo pipefail
build=${1:-build-fuzz}
echo "| target | seconds | runs | exec/s | cov (edges) | ft (features) | corpus | new inputs | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for summary in "$build"/tests/fuzz/*/summary.txt; do
  [[ -f $summary ]] || continue
  read -r name _ runs _ rate _ cov _ ft _ corpus _ new _ rss _ seconds <"$summary"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$name" "$seconds" "$runs" "$rate" "$cov" "$ft" "$corpus" "$new" "$rss"
done
