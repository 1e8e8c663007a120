#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time and summarizes it: what ctest
# runs for each test labelled `fuzz` in a Fuzz build (tests/fuzz/CMakeLists.txt).
#
#   run_fuzzer.sh FUZZER SECONDS WORK_DIR [SEED_DIR|-dict=FILE ...]
#
# RTB_FUZZ_SECONDS, when set, overrides SECONDS (longer runs). New inputs go
# to WORK_DIR/corpus, which later runs start from; the seed directories are
# read only. A crash, leak, timeout or sanitizer report fails the run and
# leaves the input in WORK_DIR/artifacts/; with RTB_FUZZ_SAVE_CRASHES=1 (CI)
# it is also copied to tests/fuzz/corpus/<target>/crash-<sha1>, where the
# GoogleTest corpus replay of every build runs it (and fails until the bug
# is fixed): commit it with the fix, as the regression input. The last line is the summary, also written to WORK_DIR/summary.txt:
#   <target> runs <n> exec/s <n> cov <n> ft <n> corpus <n> new <n> rss_mb <n> seconds <n>
set -euo pipefail
fuzzer=$1
seconds=${RTB_FUZZ_SECONDS:-$2}
work=$3
shift 3
name=$(basename "$fuzzer")
name=${name%_fuzzer}
mkdir -p "$work/corpus" "$work/artifacts"
args=()
seeds=()
for a in "$@"; do
  if [[ $a == -* ]]; then args+=("$a"); else seeds+=("$a"); fi
done

status=0
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 -rss_limit_mb=2560 \
  -artifact_prefix="$work/artifacts/" "${args[@]}" "$work/corpus" "${seeds[@]}" \
  >"$work/log" 2>&1 || status=$?

stat() { sed -n "s/^stat::$1: *\\([0-9]*\\).*/\\1/p" "$work/log" | tail -1; }
last_cov=$(grep -E '^#[0-9]+.*cov: ' "$work/log" | tail -1 || true)
field() { sed -n "s/.* $1: \\([0-9]*\\).*/\\1/p" <<<"$last_cov"; }
corpus_units=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last_cov")
summary="$name runs $(stat number_of_executed_units) exec/s $(stat average_exec_per_sec)"
summary+=" cov $(field cov) ft $(field ft) corpus ${corpus_units:-0} new $(stat new_units_added)"
summary+=" rss_mb $(stat peak_rss_mb) seconds $seconds"
echo "$summary" >"$work/summary.txt"

if [[ $status -ne 0 ]]; then
  tail -60 "$work/log"
  echo "fuzz $name: FAILED (exit $status); inputs in $work/artifacts/:"
  ls -1 "$work/artifacts/"
  echo "Reproduce with: $fuzzer <input>. Once fixed, add the input to tests/fuzz/corpus/$name/."
  if [[ ${RTB_FUZZ_SAVE_CRASHES:-0} == 1 ]]; then
    regression_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/corpus/$name
    mkdir -p "$regression_dir"
    for input in "$work"/artifacts/*; do
      [[ -f $input ]] || continue
      copy=$regression_dir/crash-$(sha1sum "$input" | cut -c1-40)
      cp "$input" "$copy"
      echo "fuzz $name: regression input $copy"
    done
  fi
  exit 1
fi
echo "$summary"
