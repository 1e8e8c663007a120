#!/usr/bin/env bash
# `cmake --install` puts every process, the password tool, the systemd units,
# the example configs, the Prometheus files and the docs in place, and the
# installed units pass `systemd-analyze verify` against the installed
# binaries (their /usr/local paths rewritten to the test's prefix).
#   install_test.sh <build dir>
set -euo pipefail

BUILD=${1:?usage: install_test.sh <build dir>}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze is not installed (deploy/install-deps.sh installs systemd)"

PREFIX=$(mktemp -d "${TMPDIR:-/tmp}/rtb-install-test.XXXXXX")
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD" --prefix "$PREFIX" > "$PREFIX.log" 2>&1 || { cat "$PREFIX.log" >&2; fail "cmake --install failed"; }
rm -f "$PREFIX.log"

for f in bin/rtb-bidder bin/rtb-pacer bin/rtb-stream bin/storage-server bin/rtb-passwd; do
  [[ -x "$PREFIX/$f" ]] || fail "$f is not installed or not executable"
done
for f in lib/systemd/system/rtb-bidder.service lib/systemd/system/rtb-pacer.service \
         lib/systemd/system/rtb-stream.service \
         lib/systemd/system/rtb-storage-server.service \
         share/rtb-bidder/config/bidder.example.json share/rtb-bidder/config/bidder.hbase.example.json \
         share/rtb-bidder/prometheus/prometheus.yml share/rtb-bidder/prometheus/rtb-bidder.rules.yml \
         share/doc/rtb-bidder/README.md share/doc/rtb-bidder/BENCHMARKS.md \
         share/doc/rtb-bidder/docs/configuration.md share/doc/rtb-bidder/docs/architecture.svg \
         share/doc/rtb-bidder/docs/benchmarks-history.md; do
  [[ -f "$PREFIX/$f" ]] || fail "$f is not installed"
done

# The installed binaries start far enough to print their usage.
"$PREFIX/bin/rtb-bidder" --help 2>&1 | grep -q "usage: rtb-bidder" || fail "rtb-bidder --help"
"$PREFIX/bin/storage-server" --help 2>&1 | grep -q "usage: storage-server" || fail "storage-server --help"
"$PREFIX/bin/rtb-pacer" --help 2>&1 | grep -q "usage: rtb-pacer" || fail "rtb-pacer --help"
"$PREFIX/bin/rtb-stream" --help 2>&1 | grep -q "usage: rtb-stream" || fail "rtb-stream --help"

mkdir -p "$PREFIX/verify"
for unit in "$PREFIX"/lib/systemd/system/*.service; do
  name=$(basename "$unit")
  grep -q '^ExecStart=/usr/local/bin/' "$unit" || fail "$name: ExecStart does not use /usr/local/bin"
  sed "s|/usr/local/|$PREFIX/|g" "$unit" > "$PREFIX/verify/$name"
  out=$(systemd-analyze verify "$PREFIX/verify/$name" 2>&1) || fail "$name: $out"
  [[ -z "$out" ]] || fail "$name: systemd-analyze verify: $out"
  echo "verified $name"
done
echo "PASS"
