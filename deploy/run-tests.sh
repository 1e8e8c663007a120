#!/usr/bin/env bash
# Installs dependencies, builds everything, starts the services the tests
# need (HBase with its Thrift2 gateway, a Kafka broker), runs every test, and
# stops the services again. This is what CI runs (.ci/run).
#
# Environment:
#   BUILD_DIR        build directory (default: build)
#   BUILD_TYPE       CMake build type (default: Release)
#   RTB_WITH_HBASE   0 leaves HBase out: the tests labelled "hbase" are not
#                    run (default 1; CI=true always runs them).
#   RTB_WITH_KAFKA   0 leaves Kafka out: the tests labelled "kafka" are not
#                    run (default 1; CI=true always runs them). The broker is
#                    deploy/kafka/kafka.sh's (its RTB_KAFKA_* settings apply).
#   JOBS             parallel build jobs (default: 2)
#   RTB_ARTIFACTS_DIR  where the console's browser test (label "browser")
#                    saves its screenshots and the bidder's log (default:
#                    $BUILD_DIR/tests/console/artifacts)
#   RTB_FUZZ         0 skips the fuzzing stage (default 1): a Fuzz build
#                    (clang-14) in FUZZ_BUILD_DIR (default build-fuzz) whose
#                    libFuzzer targets each run RTB_FUZZ_SECONDS (default 60),
#                    JOBS at a time; a crashing input is copied into
#                    tests/fuzz/corpus/<target>/, where every later build's
#                    corpus replay test fails on it until the bug is fixed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
JOBS=${JOBS:-2}

bash deploy/install-deps.sh

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE"
cmake --build "$BUILD_DIR" -j"$JOBS"

SERVICES_STARTED=()
stop_services() {
  local rc=$?
  for ((i=${#SERVICES_STARTED[@]}-1; i>=0; i--)); do
    ${SERVICES_STARTED[$i]} || true
  done
  exit $rc
}
trap stop_services EXIT

WITH_HBASE=${RTB_WITH_HBASE:-1}
WITH_KAFKA=${RTB_WITH_KAFKA:-1}
if [[ "${CI:-}" == "true" ]]; then
  WITH_HBASE=1
  WITH_KAFKA=1
fi
EXCLUDED_LABELS=()
# Both start before either is waited for: the broker is up in seconds while
# HBase boots.
if [[ "$WITH_HBASE" == "1" ]]; then
  SERVICES_STARTED+=("deploy/hbase/hbase.sh stop")
  deploy/hbase/hbase.sh start
else
  EXCLUDED_LABELS+=(hbase)
fi
if [[ "$WITH_KAFKA" == "1" ]]; then
  SERVICES_STARTED+=("deploy/kafka/kafka.sh stop")
  deploy/kafka/kafka.sh start
else
  EXCLUDED_LABELS+=(kafka)
fi
if [[ "$WITH_HBASE" == "1" ]]; then
  deploy/hbase/hbase.sh wait
  export RTB_HBASE_THRIFT="127.0.0.1:${RTB_HBASE_THRIFT_PORT:-9090}"
fi
if [[ "$WITH_KAFKA" == "1" ]]; then
  deploy/kafka/kafka.sh wait
  export RTB_KAFKA_BROKERS="127.0.0.1:${RTB_KAFKA_PORT:-9092}"
fi
CTEST_EXCLUDE=()
if ((${#EXCLUDED_LABELS[@]} > 0)); then
  CTEST_EXCLUDE=(-LE "$(IFS='|'; echo "${EXCLUDED_LABELS[*]}")")
fi

ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 900 -j"$JOBS" "${CTEST_EXCLUDE[@]}"

if [[ ${RTB_FUZZ:-1} == 1 ]]; then
  FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
  cmake -S . -B "$FUZZ_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
  cmake --build "$FUZZ_BUILD_DIR" --target fuzzers -j"$JOBS"
  fuzz_status=0
  RTB_FUZZ_SECONDS=${RTB_FUZZ_SECONDS:-60} RTB_FUZZ_SAVE_CRASHES=1 \
    ctest --test-dir "$FUZZ_BUILD_DIR" -L fuzz --output-on-failure -j"$JOBS" || fuzz_status=$?
  tests/fuzz/fuzz_report.sh "$FUZZ_BUILD_DIR"
  exit $fuzz_status
fi
