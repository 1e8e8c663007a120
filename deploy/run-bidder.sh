#!/usr/bin/env bash
# README's first command: installs the Debian packages, builds the bidder
# (Release, Ninja) and runs it in the foreground on the embedded store with
# config/bidder.example.json. Ctrl-C (SIGINT) or SIGTERM drains and stops it.
#
# Environment:
#   BUILD_DIR              build directory (default: build)
#   JOBS                   parallel build jobs (default: 2)
#   RTB_CONFIG             configuration file (default: config/bidder.example.json)
#   RTB_DEVICE_KEY_SECRET  device key HMAC secret; a throw-away one is generated
#   RTB_BEACON_SECRET      beacon URL secret; a throw-away one is generated
# Arguments after the script name are passed to rtb-bidder (e.g. --port-file).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
CONFIG=${RTB_CONFIG:-config/bidder.example.json}

bash deploy/install-deps.sh

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" --target rtb-bidder -j"$JOBS"

# The example configuration reads both secrets from the environment. For a
# local run, missing ones are generated here; they are never printed. Profiles
# stored under one device key secret are not found under another.
for var in RTB_DEVICE_KEY_SECRET RTB_BEACON_SECRET; do
  if [[ -z "${!var:-}" ]]; then
    export "$var=$(openssl rand -hex 32)"
    echo "run-bidder: $var was not set; generated a random one for this run" >&2
  fi
done

echo "run-bidder: starting $BUILD_DIR/bidder/rtb-bidder --config $CONFIG" >&2
exec "$BUILD_DIR/bidder/rtb-bidder" --config "$CONFIG" "$@"
