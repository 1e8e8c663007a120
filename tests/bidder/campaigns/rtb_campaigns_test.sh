#!/usr/bin/env bash
# rtb-campaigns round-trips the campaigns table as the config's JSON:
# import of the example config's campaigns, export, an edited import (one
# update, one pause), and an invalid file that changes nothing.
#   rtb_campaigns_test.sh <rtb-campaigns binary> <source dir>
set -euo pipefail
bin=$1
src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/rtb-campaigns-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

export RTB_DEVICE_KEY_SECRET=0123456789abcdef0123456789abcdef-device
export RTB_BEACON_SECRET=0123456789abcdef0123456789abcdef-beacon
jq --arg path "$work/store" '.storage.embedded.path = $path' "$src/config/bidder.example.json" \
  >"$work/config.json"

"$bin" --config "$work/config.json" import "$src/config/bidder.example.json" 2>"$work/log" ||
  fail "import: $(cat "$work/log")"
grep -q "5 created, 0 updated, 0 unchanged" "$work/log" || fail "first import: $(cat "$work/log")"

"$bin" --config "$work/config.json" export "$work/export.json" 2>"$work/log" || fail "export"
[[ $(jq '.campaigns | length' "$work/export.json") == 5 ]] || fail "export has not 5 campaigns"
# Equal to the config's campaigns, up to the "enabled" the export adds.
diff <(jq -S '[.campaigns[] | del(.enabled)] | sort_by(.id)' "$work/export.json") \
  <(jq -S '[.campaigns[] | del(.enabled)] | sort_by(.id)' "$src/config/bidder.example.json") ||
  fail "export differs from the config's campaigns"

# Same file again: nothing changes.
"$bin" --config "$work/config.json" import "$work/export.json" 2>"$work/log" || fail "re-import"
grep -q "0 created, 0 updated, 5 unchanged" "$work/log" || fail "re-import: $(cat "$work/log")"

# One new max bid, one paused campaign.
jq '(.campaigns[] | select(.id == "northwind-travel-display") | .max_bid_cpm) = 1.75
    | (.campaigns[] | select(.id == "fabrikam-mobile-apps") | .enabled) = false' \
  "$work/export.json" >"$work/edited.json"
"$bin" --config "$work/config.json" import "$work/edited.json" --operator alice 2>"$work/log" ||
  fail "edited import: $(cat "$work/log")"
grep -q "0 created, 2 updated, 3 unchanged" "$work/log" || fail "edited import: $(cat "$work/log")"
"$bin" --config "$work/config.json" export "$work/after.json" 2>/dev/null
[[ $(jq '.campaigns[] | select(.id == "northwind-travel-display") | .max_bid_cpm' "$work/after.json") == 1.75 ]] ||
  fail "max bid not updated"
[[ $(jq '.campaigns[] | select(.id == "fabrikam-mobile-apps") | .enabled' "$work/after.json") == false ]] ||
  fail "campaign not paused"

# An invalid campaign stops the import before any change, naming the problem.
jq '(.campaigns[0].max_bid_cpm) = 0 | (.campaigns[1].max_bid_cpm) = 9.5' "$work/after.json" \
  >"$work/invalid.json"
if "$bin" --config "$work/config.json" import "$work/invalid.json" 2>"$work/log"; then
  fail "an invalid file was imported"
fi
grep -q "campaigns\[0\]: max_bid_cpm: must be > 0" "$work/log" || fail "no problem named: $(cat "$work/log")"
"$bin" --config "$work/config.json" export "$work/unchanged.json" 2>/dev/null
diff <(jq -S . "$work/after.json") <(jq -S . "$work/unchanged.json") || fail "the invalid import changed something"
echo "rtb-campaigns round trip: ok"
