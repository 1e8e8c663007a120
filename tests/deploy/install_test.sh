#!/usr/bin/env bash
# `cmake --install` puts every process, the password tool, the systemd units
# and templates, the example configs, the Prometheus files, the Kubernetes
# manifests and the docs in place, and the installed units pass
# `systemd-analyze verify` against the installed binaries (their /usr/local
# paths rewritten to the test's prefix). A template (name@.service) is
# verified as an instance, name@a.service, as systemd would run it: %i
# expanded. The bidder units' TimeoutStopSec covers the example configs'
# drain and last spend flush.
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
         lib/systemd/system/rtb-bidder@.service lib/systemd/system/rtb-stream@.service \
         share/rtb-bidder/config/bidder.example.json share/rtb-bidder/config/bidder.hbase.example.json \
         share/rtb-bidder/prometheus/prometheus.yml share/rtb-bidder/prometheus/rtb-bidder.rules.yml \
         share/rtb-bidder/prometheus/targets/rtb-bidder.yml share/rtb-bidder/prometheus/targets/rtb-stream.yml \
         share/rtb-bidder/prometheus/targets/rtb-pacer.yml \
         share/rtb-bidder/prometheus/targets/rtb-storage-server.yml \
         share/rtb-bidder/kubernetes/kustomization.yaml share/doc/rtb-bidder/docs/running-a-fleet.md \
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
  # A template's file is never run itself: systemd runs instances of it.
  # Verified under an instance's name, it is what `systemctl start
  # rtb-bidder@a` loads.
  [[ "$name" == *@.service ]] && name=${name%@.service}@a.service
  sed "s|/usr/local/|$PREFIX/|g" "$unit" > "$PREFIX/verify/$name"
  out=$(systemd-analyze verify "$PREFIX/verify/$name" 2>&1) || fail "$name: $out"
  [[ -z "$out" ]] || fail "$name: systemd-analyze verify: $out"
  echo "verified $name"
done

# Each instance runs from its own config and state; no stream instance is
# numbered by hand (it leases its worker id).
UNITS=$PREFIX/lib/systemd/system
for template in rtb-bidder@.service rtb-stream@.service; do
  grep -q '^ExecStart=.* --config /etc/rtb-bidder/%i\.json' "$UNITS/$template" ||
    fail "$template: ExecStart does not read /etc/rtb-bidder/%i.json"
  grep -q '^StateDirectory=rtb-bidder/%i$' "$UNITS/$template" ||
    fail "$template: no StateDirectory of its instance"
done
if grep -q '^ExecStart=.*--worker-id' "$UNITS/rtb-stream@.service"; then
  fail "rtb-stream@.service passes --worker-id: its instances lease theirs"
fi

# SIGTERM drains for server.graceful_shutdown_timeout_ms, then pacing's last
# spend flush waits for the store for up to storage.hbase.call_timeout_ms:
# systemd's stop timeout must outlast both, or it kills the flush.
command -v jq >/dev/null || fail "jq is not installed (deploy/install-deps.sh installs it)"
for config in "$PREFIX"/share/rtb-bidder/config/*.json; do
  drain_ms=$(jq '(.server.graceful_shutdown_timeout_ms // 5000) + (.storage.hbase.call_timeout_ms // 5000)' "$config")
  for unit in rtb-bidder.service rtb-bidder@.service; do
    stop_s=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)$/\1/p' "$UNITS/$unit")
    [[ -n "$stop_s" ]] || fail "$unit: no TimeoutStopSec in seconds"
    ((stop_s * 1000 > drain_ms)) ||
      fail "$unit: TimeoutStopSec=$stop_s s does not outlast $(basename "$config")'s drain and flush ($drain_ms ms)"
  done
done
echo "PASS"
