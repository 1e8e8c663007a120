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

// Puts an 8-byte time into `column` of the impression row if that column is
// absent: false when an earlier beacon took it.
absl::StatusOr<bool> ClaimColumn(BeaconContext& context, const std::string& impression_id,
                                 std::string column, int64_t now) {
  storage::CheckAndMutate claim;
  claim.row = impression_id;
  claim.family = std::string(storage::kImpressionFamily);
  claim.qualifier = std::move(column);
  claim.value = std::nullopt;
  storage::Put put;
  put.row = impression_id;
  put.values.push_back({claim.family, claim.qualifier, storage::EncodeCounter(now), std::nullopt});
  put.durability = storage::Durability::kSyncWal;
  claim.puts.push_back(std::move(put));
  return context.deps().store->CheckAndMutate(storage::kImpressionsTable, claim);
}

// The parameters of a conversion beacon, checked.
struct Conversion {
  std::string impression_id;
  std::string order_id;
  double value = 0;
  std::string currency;
};

// An answer instead of the conversion when the query is not one.
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

}  // namespace

Answer HandleClick(BeaconContext& context, const VerifiedBeacon& b,
                   const config::CreativeConfig& creative, const std::string& impression_id) {
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
  if (b.test) return {std::move(redirect), Outcome::kTest};
  if (!b.permissions.measure) return {std::move(redirect), Outcome::kNotMeasured};

  absl::StatusOr<std::optional<storage::RowResult>> impression =
      context.FindImpression(impression_id);
  if (!impression.ok()) return {std::move(redirect), Outcome::kError};
  if (!impression->has_value()) return {std::move(redirect), Outcome::kUnknownImpression};
  const int64_t now = context.NowMillis();
  const int64_t shown_ms = (*impression)
                               ->Counter(storage::kImpressionFamily, events::kImpressionTimeColumn)
                               .value_or(now);
  if (!context.WithinAttributionWindow(shown_ms, now)) {
    return {std::move(redirect), Outcome::kExpired};
  }

  // The first click is the one conversions are attributed through.
  absl::StatusOr<bool> first_click =
      ClaimColumn(context, impression_id, std::string(events::kImpressionFirstClickColumn), now);
  if (!first_click.ok()) return {std::move(redirect), Outcome::kError};
  if (!*first_click) return {std::move(redirect), Outcome::kDuplicate};

  nlohmann::json body = BeaconContext::BeaconJson(b, impression_id);
  body["impression_ms"] = shown_ms;
  body["click_delay_ms"] = now - shown_ms;
  absl::StatusOr<Outcome> recorded =
      context.RecordEvent(b, impression_id, EventType::kClick, now, body);
  if (!recorded.ok()) return {std::move(redirect), Outcome::kError};
  context.CountPricingEngagement(b.campaign_id, pricing::Engagement::kClick, now,
                                 EventId(impression_id, "click"));
  return {std::move(redirect), *recorded};
}

Answer HandleConversion(BeaconContext& context, std::string_view query) {
  std::variant<Conversion, Answer> read = ReadConversion(context, query);
  if (Answer* refused = std::get_if<Answer>(&read)) return std::move(*refused);
  const Conversion& c = std::get<Conversion>(read);

  absl::StatusOr<std::optional<storage::RowResult>> impression =
      context.FindImpression(c.impression_id);
  if (!impression.ok()) return {Status(500, impression.status()), Outcome::kError};
  if (!impression->has_value()) return {Status(204), Outcome::kUnknownImpression};
  const storage::RowResult& row = **impression;
  const std::string_view family = storage::kImpressionFamily;
  const int64_t now = context.NowMillis();
  const int64_t shown_ms = row.Counter(family, events::kImpressionTimeColumn).value_or(now);
  if (!context.WithinAttributionWindow(shown_ms, now)) return {Status(204), Outcome::kExpired};
  const std::optional<int64_t> clicked_ms =
      row.Counter(family, events::kImpressionFirstClickColumn);

  VerifiedBeacon b;
  b.campaign_id = std::string(row.Value(family, events::kImpressionCampaignColumn).value_or(""));
  b.creative_id = std::string(row.Value(family, events::kImpressionCreativeColumn).value_or(""));
  b.exchange = std::string(row.Value(family, events::kImpressionExchangeColumn).value_or(""));
  b.device_key = std::string(row.Value(family, events::kImpressionDeviceKeyColumn).value_or(""));
  nlohmann::json body = {{"impression_id", storage::Hex(c.impression_id)},
                         {"exchange", b.exchange},
                         {"campaign", b.campaign_id},
                         {"creative", b.creative_id},
                         {"impression_ms", shown_ms},
                         {"impression_delay_ms", now - shown_ms},
                         {"order_id", c.order_id},
                         {"value", c.value},
                         {"currency", c.currency}};
  if (clicked_ms.has_value()) {
    body["click_ms"] = *clicked_ms;
    body["click_delay_ms"] = now - *clicked_ms;
  }
  // One conversion per order id (or per click without one): the first
  // claims a column of the impression row, replays find it taken.
  absl::StatusOr<bool> first =
      ClaimColumn(context, c.impression_id,
                  std::string(events::kImpressionConversionColumnPrefix) +
                      storage::Hex(EventId(c.impression_id, "conversion", c.order_id)),
                  now);
  if (!first.ok()) return {Status(500, first.status()), Outcome::kError};
  if (!*first) return {Status(204), Outcome::kDuplicate};
  absl::StatusOr<Outcome> recorded =
      context.RecordEvent(b, c.impression_id, EventType::kConversion, now, body, c.order_id);
  if (!recorded.ok()) return {Status(500, recorded.status()), Outcome::kError};
  context.CountPricingEngagement(b.campaign_id, pricing::Engagement::kConversion, now,
                                 EventId(c.impression_id, "conversion", c.order_id));
  return {Status(204), *recorded};
}

}  // namespace rtb::bidder::beacons
