// What a user does after seeing an ad: the click (a 302 to the creative's
// landing URL, recorded once per impression) and the conversion, attributed
// through the signed click token to the clicked impression.
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "bidder/beacons/internal/beacon_context.h"
#include "bidder/events/impressions.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::bidder::beacons {
namespace {

using events::EventType;

constexpr std::string_view kClickTokenParam = "rtb_click";

// The landing URL with the click token added as a query parameter, before
// any fragment.
std::string LandingWithToken(std::string_view landing, std::string_view token) {
  const size_t hash = landing.find('#');
  const std::string_view base = landing.substr(0, hash);
  const std::string_view fragment = hash == std::string_view::npos ? "" : landing.substr(hash);
  std::string out(base);
  out += base.find('?') == std::string_view::npos ? '?' : '&';
  out += kClickTokenParam;
  out += '=';
  out += token;
  out += fragment;
  return out;
}

// A once-only event of an impression (its first click, a conversion of one
// order) as claimed in the impression row: `column` holds the time of the
// beacon that claimed it, which is the event's time on every replay, and
// `column` + kImpressionRecordedSuffix is written once the event is recorded.
// Claiming comes first so that concurrent beacons record one event; a claim
// whose event was not recorded (the store failed in between, or the process
// died) is finished by the next beacon of the same event instead of being
// answered as a duplicate for good.
struct Claim {
  int64_t event_ms = 0;
  bool recorded = false;  // the event is recorded: nothing to do
};

std::string RecordedColumn(std::string_view column) {
  return std::string(column) + std::string(events::kImpressionRecordedSuffix);
}

// What `row` says of the claim on `column`; nullopt when there is none.
std::optional<Claim> ClaimIn(const storage::RowResult& row, std::string_view column) {
  const std::optional<int64_t> claimed = row.Counter(storage::kImpressionFamily, column);
  if (!claimed.has_value()) return std::nullopt;
  Claim claim;
  claim.event_ms = *claimed;
  claim.recorded = row.Value(storage::kImpressionFamily, RecordedColumn(column)).has_value();
  return claim;
}

// The claim on `column`: the one `row` shows, else a new one at `now` (an
// 8-byte time put if the column is absent), else the one a concurrent beacon
// made in between.
absl::StatusOr<Claim> ClaimOnce(BeaconContext& context, const std::string& impression_id,
                                const storage::RowResult& row, const std::string& column,
                                int64_t now) {
  if (std::optional<Claim> existing = ClaimIn(row, column)) return *existing;
  storage::CheckAndMutate claim;
  claim.row = impression_id;
  claim.family = std::string(storage::kImpressionFamily);
  claim.qualifier = column;
  claim.value = std::nullopt;
  storage::Put put;
  put.row = impression_id;
  put.values.push_back({claim.family, claim.qualifier, storage::EncodeCounter(now), std::nullopt});
  put.durability = storage::Durability::kSyncWal;
  claim.puts.push_back(std::move(put));
  absl::StatusOr<bool> won =
      context.deps().store->CheckAndMutate(storage::kImpressionsTable, claim);
  if (!won.ok()) return won.status();
  if (*won) return Claim{now, /*recorded=*/false};
  absl::StatusOr<std::optional<storage::RowResult>> reread = context.FindImpression(impression_id);
  if (!reread.ok()) return reread.status();
  std::optional<Claim> theirs = reread->has_value() ? ClaimIn(**reread, column) : std::nullopt;
  if (!theirs.has_value()) return absl::InternalError("claim lost to a claim that is not there");
  return *theirs;
}

// Marks the claim on `column` recorded. A failure here only costs a replay
// of the (idempotent) record on the next beacon of the event.
void MarkRecorded(BeaconContext& context, const std::string& impression_id,
                  const std::string& column) {
  storage::Put put;
  put.row = impression_id;
  put.values.push_back(
      {std::string(storage::kImpressionFamily), RecordedColumn(column), "", std::nullopt});
  put.durability = storage::Durability::kAsyncWal;
  context.deps().store->Put(storage::kImpressionsTable, put).IgnoreError();
}

}  // namespace

std::variant<Conversion, Answer> ReadConversion(BeaconContext& context, std::string_view query) {
  absl::StatusOr<std::optional<std::string>> token = QueryParam(query, "click");
  if (!token.ok()) return Answer{Status(400, token.status()), Outcome::kInvalid};
  if (!token->has_value()) return Answer{Status(400, "parameter click missing"), Outcome::kInvalid};
  absl::StatusOr<std::string> impression_id = context.signer().VerifyClickToken(**token);
  if (!impression_id.ok()) {
    const bool forged = impression_id.status().code() == absl::StatusCode::kUnauthenticated;
    return Answer{Status(forged ? 403 : 400, impression_id.status()),
                  forged ? Outcome::kForged : Outcome::kInvalid};
  }
  absl::StatusOr<std::optional<std::string>> order = QueryParam(query, "oid");
  absl::StatusOr<std::optional<std::string>> value = QueryParam(query, "value");
  absl::StatusOr<std::optional<std::string>> currency = QueryParam(query, "cur");
  for (const auto* p : {&order, &value, &currency}) {
    if (!p->ok()) return Answer{Status(400, p->status()), Outcome::kInvalid};
  }
  Conversion conversion;
  if (value->has_value() && (!absl::SimpleAtod(**value, &conversion.value) ||
                             !std::isfinite(conversion.value) || conversion.value < 0)) {
    return Answer{Status(400, "parameter value: not a non-negative number"), Outcome::kInvalid};
  }
  if (order->has_value() && (*order)->size() > 128) {
    return Answer{Status(400, "parameter oid: longer than 128 bytes"), Outcome::kInvalid};
  }
  conversion.impression_id = *std::move(impression_id);
  conversion.order_id = order->value_or("");
  conversion.currency = currency->value_or("");
  return conversion;
}

HttpResponse ClickResponse(BeaconContext& context, const VerifiedBeacon& b,
                           const config::CreativeConfig& creative,
                           const std::string& impression_id) {
  // The redirect goes where the config says, whatever is recorded. Without
  // measurement it carries no click token, so no conversion is attributed.
  HttpResponse redirect;
  redirect.status = 302;
  redirect.headers.emplace_back(
      "Location",
      b.permissions.measure
          ? LandingWithToken(creative.landing_url, context.signer().ClickToken(impression_id))
          : creative.landing_url);
  redirect.headers.emplace_back("Cache-Control", "no-store");
  return redirect;
}

absl::StatusOr<Outcome> ApplyClick(BeaconContext& context, const VerifiedBeacon& b,
                                   const std::string& impression_id, int64_t now) {
  if (!b.permissions.measure) return Outcome::kNotMeasured;
  absl::StatusOr<std::optional<storage::RowResult>> impression =
      context.FindImpression(impression_id);
  if (!impression.ok()) return impression.status();
  if (!impression->has_value()) return Outcome::kUnknownImpression;
  const int64_t shown_ms = (*impression)
                               ->Counter(storage::kImpressionFamily, events::kImpressionTimeColumn)
                               .value_or(now);
  if (!context.WithinAttributionWindow(shown_ms, now)) return Outcome::kExpired;

  // The first click is the one conversions are attributed through.
  const std::string column(events::kImpressionFirstClickColumn);
  absl::StatusOr<Claim> claim = ClaimOnce(context, impression_id, **impression, column, now);
  if (!claim.ok()) return claim.status();
  if (claim->recorded) return Outcome::kDuplicate;

  nlohmann::json body = BeaconContext::BeaconJson(b, impression_id);
  body["impression_ms"] = shown_ms;
  body["click_delay_ms"] = claim->event_ms - shown_ms;
  absl::StatusOr<Outcome> recorded =
      context.RecordEvent(b, impression_id, EventType::kClick, claim->event_ms, body);
  if (!recorded.ok()) return recorded.status();
  context.CountPricingEngagement(b.campaign_id, pricing::Engagement::kClick, claim->event_ms,
                                 EventId(impression_id, "click"));
  MarkRecorded(context, impression_id, column);
  return *recorded;
}

absl::StatusOr<Outcome> ApplyConversion(BeaconContext& context, const Conversion& c, int64_t now) {
  absl::StatusOr<std::optional<storage::RowResult>> impression =
      context.FindImpression(c.impression_id);
  if (!impression.ok()) return impression.status();
  if (!impression->has_value()) return Outcome::kUnknownImpression;
  const storage::RowResult& row = **impression;
  const std::string_view family = storage::kImpressionFamily;
  const int64_t shown_ms = row.Counter(family, events::kImpressionTimeColumn).value_or(now);
  if (!context.WithinAttributionWindow(shown_ms, now)) return Outcome::kExpired;
  const std::optional<int64_t> clicked_ms =
      row.Counter(family, events::kImpressionFirstClickColumn);

  VerifiedBeacon b;
  b.campaign_id = std::string(row.Value(family, events::kImpressionCampaignColumn).value_or(""));
  b.creative_id = std::string(row.Value(family, events::kImpressionCreativeColumn).value_or(""));
  b.exchange = std::string(row.Value(family, events::kImpressionExchangeColumn).value_or(""));
  b.device_key = std::string(row.Value(family, events::kImpressionDeviceKeyColumn).value_or(""));
  // One conversion per order id (or per click without one): the first
  // claims a column of the impression row, and its time is the event's.
  const std::string column = std::string(events::kImpressionConversionColumnPrefix) +
                             storage::Hex(EventId(c.impression_id, "conversion", c.order_id));
  absl::StatusOr<Claim> claim = ClaimOnce(context, c.impression_id, row, column, now);
  if (!claim.ok()) return claim.status();
  if (claim->recorded) return Outcome::kDuplicate;
  const int64_t event_ms = claim->event_ms;
  nlohmann::json body = {{"impression_id", storage::Hex(c.impression_id)},
                         {"exchange", b.exchange},
                         {"campaign", b.campaign_id},
                         {"creative", b.creative_id},
                         {"impression_ms", shown_ms},
                         {"impression_delay_ms", event_ms - shown_ms},
                         {"order_id", c.order_id},
                         {"value", c.value},
                         {"currency", c.currency}};
  if (clicked_ms.has_value()) {
    body["click_ms"] = *clicked_ms;
    body["click_delay_ms"] = event_ms - *clicked_ms;
  }
  absl::StatusOr<Outcome> recorded =
      context.RecordEvent(b, c.impression_id, EventType::kConversion, event_ms, body, c.order_id);
  if (!recorded.ok()) return recorded.status();
  context.CountPricingEngagement(b.campaign_id, pricing::Engagement::kConversion, event_ms,
                                 EventId(c.impression_id, "conversion", c.order_id));
  MarkRecorded(context, c.impression_id, column);
  return *recorded;
}

}  // namespace rtb::bidder::beacons
