#!/usr/bin/env bash
# The Kubernetes manifests of deploy/kubernetes/ are valid API objects and
# agree with what they ship:
#   - kubernetes-validate (PyPI, pinned in deploy/install-deps.sh) checks
#     every manifest strictly (an unknown field is an error) against the
#     schemas of Kubernetes 1.30, the oldest release the manifests need (the
#     bidder's preStop sleep action), and 1.37, the newest the tool knows.
#     A kind or apiVersion it has no schema for is only a warning to the
#     tool, and a failure here;
#   - kubernetes_manifests_check.py checks what the schemas cannot: the
#     probes' paths and port, a termination grace that covers the
#     configuration's drain and last spend flush, pacing.worker_id "auto",
#     no secret value anywhere, secrets reaching every process that loads
#     the config, no registry host in an image, the pacer single and
#     Recreate, the store's volume claim, Services that select pods.
#   kubernetes_manifests_test.sh <source dir>
set -euo pipefail

SRC=${1:?usage: kubernetes_manifests_test.sh <source dir>}
DIR=$SRC/deploy/kubernetes
fail() { echo "FAIL: $*" >&2; exit 1; }

# Where deploy/install-deps.sh puts it; a kubernetes-validate on PATH
# otherwise.
VENV=${RTB_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rtb-bidder/venv}
if [[ -x "$VENV/bin/kubernetes-validate" ]]; then
  VALIDATE=$VENV/bin/kubernetes-validate
else
  VALIDATE=$(command -v kubernetes-validate) ||
    fail "kubernetes-validate is not installed (deploy/install-deps.sh installs it in $VENV)"
fi
# The Python beside the tool has PyYAML: the tool needs it too.
PYTHON=$(dirname "$VALIDATE")/python3
[[ -x "$PYTHON" ]] || PYTHON=python3
echo "using $VALIDATE $("$VALIDATE" --version)"

manifests=()
for f in "$DIR"/*.yaml; do
  [[ "$(basename "$f")" == kustomization.yaml ]] || manifests+=("$f")
done
((${#manifests[@]} > 0)) || fail "no manifests in $DIR"

status=0
out=$("$VALIDATE" --strict -k 1.30.0 -k 1.37.0 "${manifests[@]}" 2>&1) || status=$?
echo "$out"
((status == 0)) || fail "kubernetes-validate refused a manifest (exit $status)"
if grep -qE '^(WARN|ERROR|FATAL)' <<< "$out"; then
  fail "kubernetes-validate could not validate every resource"
fi
for f in "${manifests[@]}"; do
  grep -qF "INFO $f passed" <<< "$out" || fail "kubernetes-validate validated nothing in $f"
done

"$PYTHON" "$SRC/tests/deploy/kubernetes_manifests_check.py" "$DIR"
