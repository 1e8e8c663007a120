#!/usr/bin/env bash
# Fails when a tracked C++ file is not formatted as .clang-format says, and
# names the files: run `clang-format -i FILE` on them.
set -euo pipefail
cd "$1"
command -v clang-format >/dev/null || { echo "clang-format is missing (deploy/install-deps.sh installs it)" >&2; exit 1; }
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(git ls-files -z '*.cc' '*.h')
[[ ${#files[@]} -gt 100 ]] || { echo "cannot list the tracked C++ files (git ls-files)" >&2; exit 1; }
unformatted=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [[ ${#unformatted[@]} -gt 0 ]]; then
  echo "not formatted by $(clang-format --version | head -1) (run clang-format -i on them):"
  printf '  %s\n' "${unformatted[@]}"
  exit 1
fi
echo "${#files[@]} files formatted"
