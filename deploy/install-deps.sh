#!/usr/bin/env bash
# Installs every Debian package rtb-bidder needs to build, test and run.
# Safe to run any number of times: apt-get skips what is already present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  clang-format  # tests/repository checks the formatting
  clang-14 libclang-rt-14-dev  # the Fuzz build type: libFuzzer, ASan, UBSan (tests/fuzz)
  libboost1.81-dev
  nlohmann-json3-dev
  libsimdjson-dev
  libthrift-dev thrift-compiler
  prometheus-cpp-dev
  libabsl-dev
  librocksdb-dev
  librdkafka-dev  # the beacon log's Kafka backend (beaconlog/kafka_log.h)
  libssl-dev libsodium-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  curl jq procps openssl
  tzdata  # campaign time zones: absl::LoadTimeZone reads /usr/share/zoneinfo
  openjdk-17-jdk-headless maven
  prometheus
  nginx  # the one-core bid benchmark's yardstick (loadtest/run-bid-benchmark.sh)
  gnuplot-nox  # the soak run's plot (loadtest/run-soak.sh)
  systemd  # systemd-analyze verifies the units of deploy/systemd/
  python3-venv  # the environment kubernetes-validate is installed in (below)
  chromium fonts-dejavu-core nodejs  # the console's browser test (tests/console)
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
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The browser test's npm packages, exactly as its lock file pins them, from
# the cache in ~/.npm when it has them (no browser download: the test uses
# Debian's Chromium). Debian's npm only when the installed nodejs has none.
if ! command -v npm >/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm
fi
(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/console" &&
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefer-offline --no-audit --no-fund --loglevel=error)

# rtblint, the OpenRTB linter the tests check every recorded answer with
# (tests/bidder/bid/rtblint_answers_test.sh), pinned, from crates.io. cargo
# keeps the build: a run that finds this version installed does nothing.
RTBLINT_VERSION=0.14.6
[[ -f $HOME/.cargo/env ]] && source "$HOME/.cargo/env"
if [[ "$(rtblint --version 2>/dev/null)" != "rtblint $RTBLINT_VERSION" ]]; then
  if ! command -v cargo >/dev/null; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends cargo
  fi
  cargo install rtblint --version "$RTBLINT_VERSION" --locked --quiet
fi

# kubernetes-validate, which checks deploy/kubernetes/ against the Kubernetes
# API's schemas (tests/deploy/kubernetes_manifests_test.sh), pinned, from
# PyPI, in a virtual environment of its own under the user's cache (outside
# the work tree and the system's Python; the test looks there, or
# RTB_TOOLS_VENV). A run that finds this version there does nothing.
KUBERNETES_VALIDATE_VERSION=1.37.0
TOOLS_VENV=${RTB_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rtb-bidder/venv}
if [[ "$("$TOOLS_VENV/bin/kubernetes-validate" --version 2>/dev/null)" != "$KUBERNETES_VALIDATE_VERSION" ]]; then
  # Debian's Python, whose venv module python3-venv provides.
  /usr/bin/python3 -m venv "$TOOLS_VENV"
  "$TOOLS_VENV/bin/pip" install --quiet --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
fi
