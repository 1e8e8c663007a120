// The notices an exchange fires about a bid: win (nurl), billing (burl), the
// impression pixel, loss (lurl). The exchange's billing notice (one of the
// first three, server.exchanges[].billing_notice) records the impression, in
// the order bidder/beacons/beacon_handler.h gives; the other two record only
// their own event.
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "bidder/beacons/internal/beacon_context.h"
#include "bidder/bid/frequency_cap.h"
#include "bidder/events/impressions.h"
#include "pacing/pacer.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::bidder::beacons {
namespace {

using events::EventType;

constexpr double kMaxPlausibleCpm = 1000;

// A transparent 1x1 GIF.
constexpr unsigned char kPixel[] = {
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b};

const char* MarkupContentType(config::CreativeFormat format) {
  switch (format) {
    case config::CreativeFormat::kVideo:
    case config::CreativeFormat::kAudio:
      return "application/xml";
    case config::CreativeFormat::kNative:
      return "application/json";
    case config::CreativeFormat::kBanner:
      break;
  }
  return "text/html; charset=utf-8";
}

// A price macro as the exchange sent it, as CPM in its currency: a plain
// number, or for an exchange that encrypts prices, micro-units encrypted
// with its keys (a plain number is then not accepted). nullopt when it is
// neither; `undecryptable` tells a price that failed to decrypt.
std::optional<double> PriceOf(BeaconContext& context, const VerifiedBeacon& b,
                              std::string_view text, bool* undecryptable) {
  *undecryptable = false;
  const ExchangeRules& rules = context.Exchange(b.exchange);
  if (rules.prices.has_value()) {
    absl::StatusOr<int64_t> micros = rules.prices->DecryptMicros(text);
    if (!micros.ok()) {
      *undecryptable = true;
      return std::nullopt;
    }
    return static_cast<double>(*micros) / 1e6;
  }
  double price = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), price);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return price;
}

// Checks the exchange's clearing price; the CPM in the bid currency that
// the impression is recorded at.
double ChargedCpm(BeaconContext& context, Endpoint endpoint, const VerifiedBeacon& b) {
  const double bid_cpm = static_cast<double>(b.bid_price_micros) / 1e6;
  if (b.price_text.empty()) return bid_cpm;  // not substituted: our bid is the bound
  bool undecryptable = false;
  std::optional<double> price = PriceOf(context, b, b.price_text, &undecryptable);
  if (undecryptable) {
    context.CountPriceRejected(endpoint, PriceRejection::kUndecryptable);
    return bid_cpm;
  }
  if (price.has_value() && !b.clearing_currency.empty() && b.clearing_currency != b.bid_currency) {
    price = context.currencies().Convert(*price, b.clearing_currency, b.bid_currency);
  }
  // A tiny tolerance for exchanges that round the price they echo.
  if (!price.has_value() || !std::isfinite(*price) || *price < 0 ||
      *price > bid_cpm * (1 + 1e-9) + 1e-6 || *price > kMaxPlausibleCpm) {
    context.CountPriceRejected(endpoint, PriceRejection::kImplausible);
    return bid_cpm;
  }
  return *price;
}

// Whether `endpoint` is the notice `rules` bill on.
bool Bills(const ExchangeRules& rules, Endpoint endpoint) {
  switch (rules.billing_notice) {
    case config::BillingNotice::kBurl:
      return endpoint == Endpoint::kBilling;
    case config::BillingNotice::kNurl:
      return endpoint == Endpoint::kWin;
    case config::BillingNotice::kPixel:
      return endpoint == Endpoint::kImpression;
  }
  return false;
}

std::string_view SourceOf(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kWin:
      return "win";
    case Endpoint::kBilling:
      return "billing";
    default:
      return "pixel";
  }
}

// The spend of one impression at the charged CPM, micro-units of the
// campaign's currency (CPM is per thousand impressions).
int64_t SpendMicros(BeaconContext& context, Endpoint endpoint, const VerifiedBeacon& b,
                    const CampaignEntry& campaign) {
  const std::optional<double> campaign_cpm = context.currencies().Convert(
      ChargedCpm(context, endpoint, b), b.bid_currency, campaign.config->currency);
  return campaign_cpm.has_value() ? std::llround(*campaign_cpm * 1e6 / 1000) : 0;
}

// The Increment nonce of an impression's frequency-cap count.
uint64_t Nonce(std::string_view impression_id) {
  const uint64_t nonce = storage::ReadBigEndian(impression_id.substr(0, 8));
  return nonce == 0 ? 1 : nonce;
}

// The device a beacon names, and whether it is under erasure.
struct Device {
  std::string key;  // raw 16 bytes; empty for an untracked bid
  bool erased = false;

  // Whether the device's own data (key, index entry, cap count) is written.
  bool tracked() const { return !key.empty() && !erased; }
};

// Whether the device's device_impressions entry and cap count are written:
// a tracked device, and a request that allowed counting.
bool CountsFrequencyCap(const Device& device, const VerifiedBeacon& b) {
  return device.tracked() && b.permissions.count_frequency_cap;
}

absl::StatusOr<Device> DeviceOf(BeaconContext& context, const VerifiedBeacon& b) {
  Device device;
  std::optional<std::string> key = storage::FromHex(b.device_key);
  if (!key.has_value() || key->size() != events::kUserKeyBytes) return device;
  device.key = *std::move(key);
  absl::StatusOr<bool> erased = context.deps().events->IsErased(device.key);
  if (!erased.ok()) return erased.status();
  device.erased = *erased;
  return device;
}

// Adds the impression to the frequency-cap count `count_column` of `row`
// (the device key, or a cap-only key), once per impression id even when the
// notice is retried after a crash (see "Frequency caps after a crash" in
// beacon_handler.h).
absl::Status IncrementFrequencyCap(BeaconContext& context, const std::string& row,
                                   const std::string& count_column,
                                   std::string_view impression_id) {
  storage::Store& store = *context.deps().store;
  const std::string marker_column = FrequencyCapMarkerQualifier(impression_id);
  storage::Increment cap;
  cap.row = row;
  // The count and the impression's marker move together (one row, one
  // atomic Increment): the marker says how many times this impression was
  // added.
  cap.columns.push_back({std::string(storage::kProfileFrequencyCapFamily), count_column, 1});
  cap.columns.push_back({std::string(storage::kProfileFrequencyCapFamily), marker_column, 1});
  cap.ttl_ms = context.options().frequency_cap_ttl_ms;
  cap.durability = storage::Durability::kAsyncWal;
  cap.nonce = Nonce(impression_id);
  absl::StatusOr<storage::RowResult> counted = store.Increment(storage::kProfilesTable, cap);
  if (!counted.ok()) return counted.status();
  const int64_t times =
      counted->Counter(storage::kProfileFrequencyCapFamily, marker_column).value_or(1);
  if (times <= 1) return absl::OkStatus();
  // The impression was already counted (a retry after a crash, which the
  // store's nonce memory did not outlive, or a backend without nonces): the
  // caller whose Increment made it the n-th (n > 1) takes its own one back,
  // so each retry undoes exactly itself.
  storage::Increment undo;
  undo.row = row;
  undo.columns.push_back({std::string(storage::kProfileFrequencyCapFamily), count_column, -1});
  undo.ttl_ms = cap.ttl_ms;
  undo.durability = storage::Durability::kAsyncWal;
  undo.nonce = Nonce(impression_id) ^ (static_cast<uint64_t>(times) << 56) ^ 0x5bd1e995u;
  return store.Increment(storage::kProfilesTable, undo).status();
}

// Step 2 for the device: its device -> impression entry and the
// frequency-cap count of the campaign's day.
absl::Status RecordDeviceImpression(BeaconContext& context, const std::string& device_key,
                                    const CampaignEntry& campaign, int64_t now,
                                    std::string_view impression_id) {
  storage::Put index;
  index.row = events::DeviceImpressionRow(device_key, now, impression_id);
  index.values.push_back({std::string(storage::kDeviceImpressionFamily),
                          std::string(events::kDeviceImpressionCampaignColumn), campaign.config->id,
                          std::nullopt});
  index.durability = storage::Durability::kSyncWal;
  if (absl::Status s = context.deps().store->Put(storage::kDeviceImpressionsTable, index);
      !s.ok()) {
    return s;
  }
  if (campaign.config->frequency_cap_per_day <= 0) return absl::OkStatus();
  return IncrementFrequencyCap(
      context, device_key,
      FrequencyCapQualifier(campaign.config->id, absl::FromUnixMillis(now), campaign.zone),
      impression_id);
}

// Step 2 for a bid that names the device by a cap-only key (a US opt-out,
// pf bit 4): the count under that key and nothing else: no
// device_impressions entry, no device key anywhere. The key was made for
// the day of the bid (DeviceKeyHasher::FrequencyCapKey), so the count's
// column is that day's too, whenever the notice arrives. A key that is not
// 16 bytes of hex counts nothing (it was signed, so it is ours; this is a
// guard, not a check).
absl::Status CountCapOnly(BeaconContext& context, const VerifiedBeacon& b,
                          const CampaignEntry& campaign, std::string_view impression_id) {
  if (campaign.config->frequency_cap_per_day <= 0) return absl::OkStatus();
  const std::optional<std::string> key = storage::FromHex(b.frequency_cap_key);
  if (!key.has_value() || key->size() != events::kUserKeyBytes) return absl::OkStatus();
  return IncrementFrequencyCap(
      context, *key,
      FrequencyCapQualifier(campaign.config->id, absl::FromUnixMillis(b.bid_time_ms),
                            campaign.zone),
      impression_id);
}

// Step 3: puts the impression row if it is absent, naming the spend journal
// entry when there is one. False when a concurrent duplicate or a replay
// claimed it first.
absl::StatusOr<bool> ClaimImpression(BeaconContext& context, const VerifiedBeacon& b,
                                     const CampaignEntry& campaign, const Device& device,
                                     int64_t spend_micros, int64_t now,
                                     const std::string& impression_id,
                                     std::string_view journal_key) {
  storage::CheckAndMutate claim;
  claim.row = impression_id;
  claim.family = std::string(storage::kImpressionFamily);
  claim.qualifier = std::string(events::kImpressionCampaignColumn);
  claim.value = std::nullopt;  // the row must not exist yet
  storage::Put row;
  row.row = impression_id;
  auto column = [&](std::string_view q, std::string value) {
    row.values.push_back(
        {std::string(storage::kImpressionFamily), std::string(q), std::move(value), std::nullopt});
  };
  column(events::kImpressionCampaignColumn, campaign.config->id);
  column(events::kImpressionCreativeColumn, b.creative_id);
  column(events::kImpressionExchangeColumn, b.exchange);
  if (device.tracked()) column(events::kImpressionDeviceKeyColumn, b.device_key);
  column(events::kImpressionSpendColumn, storage::EncodeCounter(spend_micros));
  column(events::kImpressionTimeColumn, storage::EncodeCounter(now));
  if (!journal_key.empty()) column(events::kImpressionJournalColumn, std::string(journal_key));
  row.durability = storage::Durability::kSyncWal;
  claim.puts.push_back(std::move(row));
  return context.deps().store->CheckAndMutate(storage::kImpressionsTable, claim);
}

// Records the impression of a billing notice (steps 1-3 of
// beacon_handler.h) at `now`.
absl::StatusOr<Outcome> ApplyClaim(BeaconContext& context, Endpoint endpoint,
                                   const VerifiedBeacon& b, const CampaignEntry& campaign,
                                   const std::string& impression_id, int64_t now);

// A notice that is not the exchange's billing notice: its own event (the
// billing notice as a billing event, the pixel as an unbilled impression
// event), nothing booked.
absl::StatusOr<Outcome> RecordUnbilled(BeaconContext& context, Endpoint endpoint,
                                       const VerifiedBeacon& b, const std::string& impression_id,
                                       int64_t now, LaterEvents& later) {
  nlohmann::json body = BeaconContext::BeaconJson(b, impression_id);
  body["source"] = SourceOf(endpoint);
  body["billed"] = false;
  body["clearing_price"] = b.price_text;
  body["received_ms"] = now;
  const EventType type =
      endpoint == Endpoint::kBilling ? EventType::kBilling : EventType::kImpression;
  absl::StatusOr<Outcome> recorded = context.RecordEvent(
      b, impression_id, type, BeaconContext::NoticeTime(b, now), body, SourceOf(endpoint), &later);
  if (!recorded.ok()) return recorded.status();
  return *recorded == Outcome::kErased ? Outcome::kErased : Outcome::kUnbilled;
}

}  // namespace

HttpResponse WinResponse(BeaconContext& context, const VerifiedBeacon& b,
                         const config::CreativeConfig& creative) {
  HttpResponse response = Status(204);
  if (creative.nurl_delivery) {
    // The markup this bid did not carry, filled with the same signed ids.
    BeaconParams params = ParamsOf(b);
    std::string click_url;
    std::string impression_url;
    context.signer().AppendUrls(context.BaseUrl(b.exchange), params, nullptr, nullptr, nullptr,
                                &click_url, &impression_url);
    response.status = 200;
    response.content_type = MarkupContentType(creative.format);
    response.body = FillMarkup(creative.adm, click_url, impression_url);
  }
  return response;
}

HttpResponse NoticeResponse(Endpoint endpoint) {
  HttpResponse ok = Status(204);
  if (endpoint == Endpoint::kImpression) {
    ok.status = 200;
    ok.content_type = "image/gif";
    ok.body.assign(reinterpret_cast<const char*>(kPixel), sizeof(kPixel));
    ok.headers.emplace_back("Cache-Control", "no-store");
  }
  return ok;
}

absl::StatusOr<Outcome> ApplyWin(BeaconContext& context, const VerifiedBeacon& b,
                                 const CampaignEntry& campaign, const std::string& impression_id,
                                 int64_t now, LaterEvents& later) {
  nlohmann::json body = BeaconContext::BeaconJson(b, impression_id);
  body["clearing_price"] = b.price_text;
  body["received_ms"] = now;
  absl::StatusOr<Outcome> recorded = context.RecordEvent(
      b, impression_id, EventType::kWin, BeaconContext::NoticeTime(b, now), body, {}, &later);
  if (!recorded.ok()) return recorded.status();
  context.CountPricingNotice(b, /*won=*/true, impression_id);
  if (Bills(context.Exchange(b.exchange), Endpoint::kWin)) {
    return ApplyClaim(context, Endpoint::kWin, b, campaign, impression_id, now);
  }
  return *recorded;
}

absl::StatusOr<Outcome> ApplyLoss(BeaconContext& context, const VerifiedBeacon& b,
                                  const std::string& impression_id, int64_t now,
                                  LaterEvents& later) {
  nlohmann::json body = BeaconContext::BeaconJson(b, impression_id);
  // The reason as OpenRTB's loss reason code when it is one.
  int64_t reason = 0;
  auto [end, ec] =
      std::from_chars(b.loss_reason.data(), b.loss_reason.data() + b.loss_reason.size(), reason);
  if (!b.loss_reason.empty() && ec == std::errc() &&
      end == b.loss_reason.data() + b.loss_reason.size()) {
    body["loss_reason"] = reason;
  } else {
    body["loss_reason"] = b.loss_reason;
  }
  if (!b.min_to_win_text.empty()) {
    bool undecryptable = false;
    const std::optional<double> min_to_win = PriceOf(context, b, b.min_to_win_text, &undecryptable);
    if (min_to_win.has_value() && std::isfinite(*min_to_win) && *min_to_win >= 0) {
      body["min_to_win"] = *min_to_win;
      body["min_to_win_currency"] =
          b.clearing_currency.empty() ? b.bid_currency : b.clearing_currency;
    } else {
      body["min_to_win_text"] = b.min_to_win_text;
    }
  }
  body["clearing_price"] = b.price_text;
  body["received_ms"] = now;
  absl::StatusOr<Outcome> recorded = context.RecordEvent(
      b, impression_id, EventType::kLoss, BeaconContext::NoticeTime(b, now), body, {}, &later);
  if (!recorded.ok()) return recorded.status();
  context.CountPricingNotice(b, /*won=*/false, impression_id);
  return *recorded;
}

absl::StatusOr<Outcome> ApplyImpression(BeaconContext& context, Endpoint endpoint,
                                        const VerifiedBeacon& b, const CampaignEntry& campaign,
                                        const std::string& impression_id, int64_t now,
                                        LaterEvents& later) {
  if (!Bills(context.Exchange(b.exchange), endpoint)) {
    return RecordUnbilled(context, endpoint, b, impression_id, now, later);
  }
  return ApplyClaim(context, endpoint, b, campaign, impression_id, now);
}

namespace {

absl::StatusOr<Outcome> ApplyClaim(BeaconContext& context, Endpoint endpoint,
                                   const VerifiedBeacon& b, const CampaignEntry& campaign,
                                   const std::string& impression_id, int64_t now) {
  // 1. A replay finds the row and changes nothing.
  absl::StatusOr<std::optional<storage::RowResult>> existing =
      context.FindImpression(impression_id);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) return Outcome::kDuplicate;

  const int64_t spend_micros = SpendMicros(context, endpoint, b, campaign);
  absl::StatusOr<Device> device = DeviceOf(context, b);
  if (!device.ok()) return device.status();

  // 2. The event and the device's data, unless the device is erased or the
  // request did not allow them (RecordEvent checks measurement).
  if (!device->erased) {
    nlohmann::json body = BeaconContext::BeaconJson(b, impression_id);
    body["spend_micros"] = spend_micros;
    body["campaign_currency"] = campaign.config->currency;
    body["source"] = SourceOf(endpoint);
    body["received_ms"] = now;
    absl::StatusOr<Outcome> event = context.RecordEvent(b, impression_id, EventType::kImpression,
                                                        BeaconContext::NoticeTime(b, now), body);
    if (!event.ok()) return event.status();
  }
  if (CountsFrequencyCap(*device, b)) {
    if (absl::Status s = RecordDeviceImpression(context, device->key, campaign, now, impression_id);
        !s.ok()) {
      return s;
    }
  } else if (b.permissions.count_frequency_cap && !b.frequency_cap_key.empty()) {
    if (absl::Status s = CountCapOnly(context, b, campaign, impression_id); !s.ok()) return s;
  }

  // 3. The spend journal entry, then the claim naming it: only the claimer
  // counts the win and its spend, and the entry outlives a crash.
  pacing::SpendJournal* journal = spend_micros > 0 ? context.deps().journal : nullptr;
  std::optional<pacing::SpendJournalEntry> entry;
  if (journal != nullptr) {
    absl::StatusOr<pacing::SpendJournalEntry> begun =
        journal->Begin(campaign.index, spend_micros, impression_id, now);
    if (!begun.ok()) return begun.status();
    entry = *std::move(begun);
  }
  absl::StatusOr<bool> claimed = ClaimImpression(context, b, campaign, *device, spend_micros, now,
                                                 impression_id, entry ? entry->key : "");
  if (!claimed.ok()) {
    if (entry) journal->Unsettled(*std::move(entry));
    return claimed.status();
  }
  if (!*claimed) {
    if (entry) journal->Abandon(*entry);
    return Outcome::kDuplicate;
  }
  context.CountWin(b, campaign, spend_micros);
  context.CountPricingEngagement(b.campaign_id, pricing::Engagement::kImpression,
                                 BeaconContext::NoticeTime(b, now), impression_id);
  if (entry) {
    journal->Commit(*entry);
  } else if (context.deps().spend != nullptr && spend_micros > 0) {
    context.deps().spend->Record(campaign.index, spend_micros);
  }
  return device->erased ? Outcome::kErased : Outcome::kRecorded;
}

}  // namespace

}  // namespace rtb::bidder::beacons
