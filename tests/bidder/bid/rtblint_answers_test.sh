#!/usr/bin/env bash
# Every bid answer of the request corpus, checked by rtblint (an OpenRTB
# linter of others, pinned in deploy/install-deps.sh) against the request it
# answers:
#   - the example config's answers (its exchange speaks OpenRTB 2.5) as 2.5;
#   - the answers of that exchange configured strict_openrtb_2_5 as 2.5;
#   - the answers of that exchange configured 2.6 with an https beacon base
#     (Prebid Server's shape) as 2.6-202505;
#   - the answers of the permissive campaigns (a creative for every kind of
#     impression: audio and native too) as 2.5 and as 2.6-202505.
#
# The one finding allowed, and only in the 2.5 runs but the strict one:
# bid.mtype, bid.dur and bid.cattax "not available" or "not defined" in
# OpenRTB 2.5, where the same value is repeated in bid.ext. The bidder
# writes them at their 2.6 places in every answer on purpose (docs/bidding-and-exchanges.md, "OpenRTB 2.6 bid
# members"): a 2.6 reader drops or misreads a bid without them, and a 2.5
# reader ignores them; strict_openrtb_2_5 is for the 2.5 readers that do
# not. Any other error fails the test.
#
# Usage: rtblint_answers_test.sh <bidder_bid_tests binary> <request corpus dir>
set -euo pipefail
TESTS=$1
REQUESTS=$2
[[ -f $HOME/.cargo/env ]] && source "$HOME/.cargo/env"
RTBLINT=$(command -v rtblint || true)
if [[ -z $RTBLINT ]]; then
  echo "rtblint is not installed: run deploy/install-deps.sh" >&2
  exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

RTB_ANSWERS_DIR=$WORK/answers "$TESTS" --gtest_filter='ExchangeServerChecksTest.*' >"$WORK/gtest.log" 2>&1 ||
  { tail -40 "$WORK/gtest.log"; exit 1; }

checked=0
failed=0
lint() {  # version folder answer
  local version=$1 folder=$2 answer=$3 name report errors
  name=$(basename "$answer")
  report=$("$RTBLINT" validate --type response --version "$version" \
    --request "$REQUESTS/$name" --format json "$answer" || true)
  errors=$(jq -r --arg folder "$folder" '
    .issues[] | select(.severity == "error")
    | select((($folder | startswith("openrtb-2.5")) and ($folder | contains("strict") | not)
              and (.id == "openrtb.field.not_yet_available" or .id == "openrtb.field.undefined")
              and (.path | test("^seatbid\\[[0-9]+\\]\\.bid\\[[0-9]+\\]\\.(mtype|dur|cattax)$")))
             | not)
    | "\(.path): \(.message) (\(.id))"' <<<"$report")
  # Where they are allowed, each of them is repeated in bid.ext for 2.5 readers.
  if [[ $folder == openrtb-2.5 || $folder == openrtb-2.5-permissive ]]; then
    errors+=$(jq -r '.seatbid[].bid[] | . as $bid
      | ("mtype", "dur", "cattax")
      | select($bid[.] != null and $bid.ext[.] != $bid[.])
      | "bid \($bid.id): \(.) is not repeated in bid.ext"' "$answer")
  fi
  checked=$((checked + 1))
  if [[ -n $errors ]]; then
    failed=$((failed + 1))
    echo "FAIL $folder/$name ($version):"
    sed 's/^/  /' <<<"$errors"
  fi
}
for answer in "$WORK"/answers/openrtb-2.5/*.json; do lint 2.5 openrtb-2.5 "$answer"; done
for answer in "$WORK"/answers/openrtb-2.5-strict/*.json; do lint 2.5 openrtb-2.5-strict "$answer"; done
for answer in "$WORK"/answers/openrtb-2.6/*.json; do lint 2.6-202505 openrtb-2.6 "$answer"; done
for answer in "$WORK"/answers/openrtb-2.5-permissive/*.json; do lint 2.5 openrtb-2.5-permissive "$answer"; done
for answer in "$WORK"/answers/openrtb-2.6-permissive/*.json; do lint 2.6-202505 openrtb-2.6-permissive "$answer"; done
if ((checked < 75)); then
  echo "only $checked answers checked: the corpus's bids went missing" >&2
  exit 1
fi
echo "rtblint: $((checked - failed)) passed, $failed failed"
((failed == 0))
