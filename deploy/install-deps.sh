#!/usr/bin/env bash
# Installs every Debian package rtb-bidder needs to build, test and run.
# Safe to run any number of times: apt-get skips what is already present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev
  nlohmann-json3-dev
  libsimdjson-dev
  libthrift-dev thrift-compiler
  prometheus-cpp-dev
  libabsl-dev
  librocksdb-dev
  libssl-dev libsodium-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  curl jq procps openssl
  tzdata  # campaign time zones: absl::LoadTimeZone reads /usr/share/zoneinfo
  openjdk-17-jdk-headless maven
  prometheus
)

if [[ $(id -u) -ne 0 ]]; then
  SUDO=sudo
else
  SUDO=
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != *"install ok installed"* ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
