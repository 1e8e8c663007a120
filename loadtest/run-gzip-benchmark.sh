#!/usr/bin/env bash
# What a gzip bid answer costs and saves: writes the bid answers the request
# corpus gets (tests/fixtures/openrtb/requests, through the exchange-server
# checks of tests/bidder/bid/exchange_server_checks_test.cc), then times
# their compression at levels 1, 6 and 9 (loadtest/bench/gzip_bench.cc).
#
# Environment: BUILD_DIR (default build), REPETITIONS (default 5).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
REPETITIONS=${REPETITIONS:-5}
cmake --build "$BUILD_DIR" --target bidder_bid_tests gzip_bench >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
RTB_ANSWERS_DIR=$WORK/answers "$BUILD_DIR/tests/bidder/bid/bidder_bid_tests" \
  --gtest_filter='ExchangeServerChecksTest.*' >"$WORK/gtest.log" 2>&1 ||
  { tail -20 "$WORK/gtest.log"; exit 1; }
echo "answers: $(find "$WORK/answers" -name '*.json' | wc -l), $(cat "$WORK"/answers/*/*.json | wc -c) bytes"
RTB_ANSWERS_DIR=$WORK/answers "$BUILD_DIR/loadtest/bench/gzip_bench" \
  --benchmark_repetitions="$REPETITIONS" --benchmark_report_aggregates_only=true
