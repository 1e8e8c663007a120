// What every beacon endpoint shares: its outcome and answer types, the
// handler's dependencies and configuration, the campaigns by id, the metrics,
// and the steps more than one endpoint takes (recording an event, finding an
// impression row, the attribution window). The endpoints themselves are in
// notice_beacons.cc (win, billing, impression pixel, loss) and
// engagement_beacons.cc (click, conversion).
//
// Thread-safety: a BeaconContext is built once; afterwards its methods are
// called from every beacon worker thread at once and touch only immutable
// state, metric handles and the (thread-safe) store.
#ifndef RTB_BIDDER_BEACONS_INTERNAL_BEACON_CONTEXT_H_
#define RTB_BIDDER_BEACONS_INTERNAL_BEACON_CONTEXT_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bidder/beacons/beacon_handler.h"
#include "bidder/beacons/internal/price_decryption.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/currency.h"
#include "bidder/events/events.h"
#include "nlohmann/json.hpp"
#include "pricing/feedback.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"

namespace rtb::bidder::beacons {

enum class Endpoint { kWin, kBilling, kImpression, kLoss, kClick, kConversion, kCount };
inline constexpr std::array<std::string_view, static_cast<size_t>(Endpoint::kCount)>
    kEndpointNames = {"win", "billing", "impression", "loss", "click", "conversion"};

enum class Outcome {
  kRecorded,           // first time: written
  kDuplicate,          // a replay: nothing changed
  kForged,             // signature missing or wrong
  kInvalid,            // malformed parameters
  kUnknownCampaign,    // signed, but the campaign or creative is no longer configured
  kUnknownImpression,  // click or conversion of an impression we have no row for
  kExpired,            // outside the attribution window
  kErased,             // the device is erased: no device data written
  kTest,               // test=1: nothing billable recorded
  kNotMeasured,        // the request did not allow measurement: no event
  kUnbilled,           // a notice that is not the exchange's billing notice: its event only
  kOverloaded,         // too many beacons in flight: 503
  kLogFull,            // the beacon log is full (the stream worker is behind): 503
  kError,              // the beacon log failed: 503, the exchange retries
  kCount
};
inline constexpr std::array<std::string_view, static_cast<size_t>(Outcome::kCount)> kOutcomeNames =
    {"recorded",           "duplicate",  "forged",   "invalid", "unknown_campaign",
     "unknown_impression", "expired",    "erased",   "test",    "not_measured",
     "unbilled",           "overloaded", "log_full", "error"};

struct Answer {
  HttpResponse response;
  Outcome outcome = Outcome::kRecorded;
};

// Why a clearing price was not used (bidder_beacon_price_rejected_total
// {reason}): the impression is then recorded at our bid price.
enum class PriceRejection { kImplausible, kUndecryptable, kCount };
inline constexpr std::array<std::string_view, static_cast<size_t>(PriceRejection::kCount)>
    kPriceRejectionNames = {"implausible", "undecryptable"};

// What one exchange's notices mean: which one bills, and how its prices
// come.
struct ExchangeRules {
  config::BillingNotice billing_notice = config::BillingNotice::kBurl;
  // The base of the URLs in markup a win notice serves (https when the
  // exchange has an https base: ExchangeBeaconBases::for_markup).
  std::string markup_base_url;
  std::optional<PriceDecrypter> prices;  // set when the exchange encrypts them
};

// A status-only answer, with `reason` as a text body when given.
HttpResponse Status(unsigned status, std::string_view reason = {});
HttpResponse Status(unsigned status, const absl::Status& why);

// A configured campaign as the beacons read it.
struct CampaignEntry {
  size_t index = 0;  // the campaign's position (pacing, metrics)
  std::shared_ptr<const config::CampaignConfig> config;
  absl::TimeZone zone;
  absl::flat_hash_map<std::string, const config::CreativeConfig*> creatives;
  // bidder_wins_total and bidder_spend_micros_total by exchange position.
  std::vector<prometheus::Counter*> wins;
  std::vector<prometheus::Counter*> spend_micros;
};

// 16 bytes of SHA-256 over length-prefixed fields: event and impression ids.
std::string Sha256Id(std::initializer_list<std::string_view> fields);
// The id of the event `kind` of an impression (and `extra`, e.g. an order id).
std::string EventId(std::string_view impression_id, std::string_view kind,
                    std::string_view extra = {});
// Decoded value of `name` in a query string; nullopt when absent. A
// malformed escape is an error.
absl::StatusOr<std::optional<std::string>> QueryParam(std::string_view query,
                                                      std::string_view name);

// Events left for later: those no write after them in their beacon's
// application checks (its replay check is the event's own marker). A lane
// of the stream worker gathers them and records them together when it
// flushes (EventStore::RecordBatch), before the log position is committed.
using LaterEvents = std::vector<events::Event>;

class BeaconContext {
 public:
  // `exchanges` by name (see ExchangeRules::Of).
  BeaconContext(BeaconHandler::Dependencies deps, BeaconHandlerOptions options,
                CurrencyTable currencies,
                absl::flat_hash_map<std::string, ExchangeRules> exchanges);

  // The rules of every configured exchange; InvalidArgument when its price
  // keys do not decode.
  static absl::StatusOr<absl::flat_hash_map<std::string, ExchangeRules>> RulesOf(
      const config::BidderConfig& config);

  const BeaconHandler::Dependencies& deps() const { return deps_; }
  const BeaconHandlerOptions& options() const { return options_; }
  const CurrencyTable& currencies() const { return currencies_; }
  const BeaconSigner& signer() const { return signer_; }
  // Null when `campaign_id` is not known. Holding the pointer keeps the
  // entry (and the campaign set it belongs to) alive across SetCampaigns.
  std::shared_ptr<const CampaignEntry> FindCampaign(std::string_view campaign_id) const;
  // Replaces the campaigns beacons are accepted for: every campaign ever
  // known to the worker, paused and archived included (their bids may
  // still win), campaigns_by_position[i] at position i. Declares their
  // series. Call from one thread at a time.
  void SetCampaigns(
      const std::vector<std::shared_ptr<const config::CampaignConfig>>& campaigns_by_position);
  // The rules of `exchange`; defaults (billing notice burl, plain prices) for
  // one no longer configured.
  const ExchangeRules& Exchange(std::string_view exchange) const;
  int64_t NowMillis() const { return deps_.wall_clock->NowMillis(); }

  void Count(Endpoint endpoint, Outcome outcome);
  void ObserveLatency(Endpoint endpoint, double seconds);
  void CountPriceRejected(Endpoint endpoint, PriceRejection reason);
  // bidder_wins_total and bidder_spend_micros_total of one claimed impression.
  void CountWin(const VerifiedBeacon& b, const CampaignEntry& campaign, int64_t spend_micros);
  // A first-price notice and an engagement, for pricing (best effort; no-ops
  // without deps().pricing or, for notices, without a pricing bucket).
  void CountPricingNotice(const VerifiedBeacon& b, bool won, std::string_view impression_id);
  void CountPricingEngagement(std::string_view campaign_id, pricing::Engagement kind,
                              int64_t event_ms, std::string_view event_id);

  // An event of this beacon, unless its bid's request did not allow
  // measurement (kNotMeasured then) or its device is erased (kErased).
  // `event_time_ms` must be the same on every replay of the beacon (it is
  // part of the timeline key): the signed bid time for notices, the time
  // the first click or conversion claimed for those. With `later`, the
  // event is added to it instead of recorded now (LaterEvents).
  absl::StatusOr<Outcome> RecordEvent(const VerifiedBeacon& b, std::string_view impression_id,
                                      events::EventType type, int64_t event_time_ms,
                                      const nlohmann::json& body, std::string_view extra = {},
                                      LaterEvents* later = nullptr);
  // The event body fields every beacon event carries.
  static nlohmann::json BeaconJson(const VerifiedBeacon& b, std::string_view impression_id);
  // The signed bid time, the same on every replay of a notice (`now` for a
  // beacon without one).
  static int64_t NoticeTime(const VerifiedBeacon& b, int64_t now);
  // The impression row, or nullopt when there is none (never written, or
  // past the attribution window and expired).
  absl::StatusOr<std::optional<storage::RowResult>> FindImpression(
      std::string_view impression_id) const;
  bool WithinAttributionWindow(int64_t impression_ms, int64_t now) const;
  // Where this bidder's beacons are served, for markup filled on a win of
  // `exchange`.
  std::string BaseUrl(std::string_view exchange) const;

 private:
  struct Metrics {
    std::array<std::array<prometheus::Counter*, static_cast<size_t>(Outcome::kCount)>,
               static_cast<size_t>(Endpoint::kCount)>
        outcomes{};
    std::array<std::array<prometheus::Counter*, static_cast<size_t>(PriceRejection::kCount)>,
               static_cast<size_t>(Endpoint::kCount)>
        price_rejected{};
    std::array<prometheus::Histogram*, static_cast<size_t>(Endpoint::kCount)> latency{};
    // Claimed impressions and their spend (the series are in each
    // CampaignEntry); the families, for an exchange that left the config
    // after it bid.
    absl::flat_hash_map<std::string, size_t> exchange_index;
    prometheus::Family<prometheus::Counter>* wins_family = nullptr;
    prometheus::Family<prometheus::Counter>* spend_family = nullptr;
  };
  // Throws on a metric name clash (prometheus-cpp), a start-up error.
  void DeclareMetrics(prometheus::Registry& registry);

  BeaconHandler::Dependencies deps_;
  BeaconHandlerOptions options_;
  CurrencyTable currencies_;
  BeaconSigner signer_;
  using CampaignMap = absl::flat_hash_map<std::string, CampaignEntry>;
  absl::flat_hash_map<std::string, ExchangeRules> exchanges_;
  Metrics metrics_;
  std::atomic<std::shared_ptr<const CampaignMap>> campaigns_;
};

// The endpoints, in two halves. The response of each is decided from the
// beacon alone, before anything is written (the beacon is answered once its
// record is in the log); the writes are applied later by the stream worker,
// at `now`, the time the beacon was received, the same on every replay of
// its record. An Apply* returns the outcome, or the storage error that makes
// the worker try the record again; every write is idempotent.

// The answer a win notice gets: the markup of a win-notice-delivered
// creative (200), else 204.
HttpResponse WinResponse(BeaconContext& context, const VerifiedBeacon& b,
                         const config::CreativeConfig& creative);
// 204 for the notices, the 1x1 GIF for the pixel.
HttpResponse NoticeResponse(Endpoint endpoint);
// The 302 to the creative's landing URL, with a click token when the bid
// allowed measurement.
HttpResponse ClickResponse(BeaconContext& context, const VerifiedBeacon& b,
                           const config::CreativeConfig& creative,
                           const std::string& impression_id);

// Win, billing and the pixel record the impression when they are the
// exchange's billing notice, their own event otherwise. The events of
// notices that record no impression (a win or a billing notice that does
// not bill, an unbilled pixel, a loss), and the win event of one that does,
// go to `later`: no write after them checks them.
absl::StatusOr<Outcome> ApplyWin(BeaconContext& context, const VerifiedBeacon& b,
                                 const CampaignEntry& campaign, const std::string& impression_id,
                                 int64_t now, LaterEvents& later);
absl::StatusOr<Outcome> ApplyImpression(BeaconContext& context, Endpoint endpoint,
                                        const VerifiedBeacon& b, const CampaignEntry& campaign,
                                        const std::string& impression_id, int64_t now,
                                        LaterEvents& later);
absl::StatusOr<Outcome> ApplyLoss(BeaconContext& context, const VerifiedBeacon& b,
                                  const std::string& impression_id, int64_t now,
                                  LaterEvents& later);
absl::StatusOr<Outcome> ApplyClick(BeaconContext& context, const VerifiedBeacon& b,
                                   const std::string& impression_id, int64_t now);

// The parameters of a conversion beacon, checked.
struct Conversion {
  std::string impression_id;
  std::string order_id;
  double value = 0;
  std::string currency;
};
// The conversion a query names, or the answer refusing it (400, 403).
std::variant<Conversion, Answer> ReadConversion(BeaconContext& context, std::string_view query);
absl::StatusOr<Outcome> ApplyConversion(BeaconContext& context, const Conversion& conversion,
                                        int64_t now);

}  // namespace rtb::bidder::beacons

#endif  // RTB_BIDDER_BEACONS_INTERNAL_BEACON_CONTEXT_H_
