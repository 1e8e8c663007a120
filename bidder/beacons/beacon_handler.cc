#include "bidder/beacons/beacon_handler.h"

#include <openssl/sha.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/bid/currency.h"
#include "bidder/bid/frequency_cap.h"
#include "bidder/events/events.h"
#include "boost/asio/post.hpp"
#include "boost/asio/thread_pool.hpp"
#include "nlohmann/json.hpp"
#include "pacing/pacer.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::bidder {
namespace {

namespace http = boost::beast::http;
using events::EventType;

// The family and columns of an `impressions` row.
constexpr std::string_view kImpressionFamily = "i";
constexpr std::string_view kCampaignColumn = "c";
constexpr std::string_view kCreativeColumn = "cr";
constexpr std::string_view kDeviceKeyColumn = "dk";
constexpr std::string_view kExchangeColumn = "x";
constexpr std::string_view kSpendColumn = "spend";     // micro-units of the campaign currency
constexpr std::string_view kTimeColumn = "ts";         // impression time, 8-byte ms
constexpr std::string_view kFirstClickColumn = "clk";  // first click time, 8-byte ms
// + hex of the conversion's event id: the time it was first recorded.
constexpr std::string_view kConversionColumnPrefix = "cv.";
// `device_impressions`: row = device key + reverse ms + impression id.
constexpr std::string_view kDeviceImpressionFamily = "x";

constexpr double kMaxPlausibleCpm = 1000;
constexpr std::string_view kClickTokenParam = "rtb_click";

// A transparent 1x1 GIF.
constexpr unsigned char kPixel[] = {
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b};

enum class Endpoint { kWin, kBilling, kImpression, kLoss, kClick, kConversion, kCount };

constexpr std::array<std::string_view, static_cast<size_t>(Endpoint::kCount)> kEndpointNames = {
    "win", "billing", "impression", "loss", "click", "conversion"};

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
  kOverloaded,         // too many beacons in flight: 503
  kError,              // storage failed: 500, the exchange retries
  kCount
};

constexpr std::array<std::string_view, static_cast<size_t>(Outcome::kCount)> kOutcomeNames = {
    "recorded",
    "duplicate",
    "forged",
    "invalid",
    "unknown_campaign",
    "unknown_impression",
    "expired",
    "erased",
    "test",
    "overloaded",
    "error"};

std::string Sha256Prefix16(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), 16);
}

void AppendField(std::string_view value, std::string* out) {
  absl::StrAppend(out, value.size(), ":");
  out->append(value);
  out->push_back('\n');
}

std::string EventId(std::string_view impression_id, std::string_view kind,
                    std::string_view extra = {}) {
  std::string text;
  AppendField("rtb-event-v1", &text);
  AppendField(impression_id, &text);
  AppendField(kind, &text);
  AppendField(extra, &text);
  return Sha256Prefix16(text);
}

std::string EncodeMillis(int64_t ms) { return storage::EncodeCounter(ms); }

// Device key, reverse time, impression id: a device's impressions newest first.
std::string DeviceImpressionRow(std::string_view device_key, int64_t time_ms,
                                std::string_view impression_id) {
  std::string row(device_key);
  row += storage::EncodeCounter(std::numeric_limits<int64_t>::max() - time_ms);
  row.append(impression_id);
  return row;
}

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

// The query of a request target ("" without one).
std::string_view QueryOf(std::string_view target) {
  const size_t q = target.find('?');
  return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

// Decoded value of `name` in `query`; nullopt when absent. A malformed
// escape is an error.
absl::StatusOr<std::optional<std::string>> QueryParam(std::string_view query,
                                                      std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    std::string value;
    if (!PercentDecode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", std::string(name), ": malformed percent escape"));
    }
    return std::optional<std::string>(std::move(value));
  }
  return std::optional<std::string>();
}

struct CampaignEntry {
  size_t index = 0;
  const config::CampaignConfig* config = nullptr;
  absl::TimeZone zone;
  absl::flat_hash_map<std::string, const config::CreativeConfig*> creatives;
};

HttpResponse Status(unsigned status, std::string_view reason = {}) {
  HttpResponse response;
  response.status = status;
  if (!reason.empty()) {
    response.content_type = "text/plain; charset=utf-8";
    response.body = std::string(reason) + "\n";
  }
  return response;
}

HttpResponse Status(unsigned status, const absl::Status& why) {
  return Status(status, std::string_view(why.message().data(), why.message().size()));
}

}  // namespace

class BeaconHandler::Impl {
 public:
  Impl(Dependencies deps, BeaconHandlerOptions options, CurrencyTable currencies,
       std::string path_prefix)
      : deps_(std::move(deps)),
        options_(options),
        currencies_(std::move(currencies)),
        path_prefix_(std::move(path_prefix)),
        signer_(deps_.config->bid.beacon_secret),
        pool_(static_cast<size_t>(options.threads)) {
    const auto& campaigns = deps_.config->campaigns;
    for (size_t i = 0; i < campaigns.size(); ++i) {
      CampaignEntry entry;
      entry.index = i;
      entry.config = &campaigns[i];
      if (!absl::LoadTimeZone(campaigns[i].time_zone, &entry.zone))
        entry.zone = absl::UTCTimeZone();
      for (const config::CreativeConfig& creative : campaigns[i].creatives) {
        entry.creatives[creative.id] = &creative;
      }
      campaigns_.emplace(campaigns[i].id, std::move(entry));
    }
    DeclareMetrics(*deps_.registry);
  }

  ~Impl() { pool_.join(); }

  void Register(HttpServer& server) {
    auto route = [&](std::initializer_list<http::verb> verbs, std::string_view path,
                     Endpoint endpoint) {
      for (http::verb verb : verbs) {
        server.Route(verb, path_prefix_ + std::string(path),
                     [this, endpoint](const HttpRequest& request, Responder respond) {
                       Accept(endpoint, request, std::move(respond));
                     });
      }
    };
    route({http::verb::get, http::verb::post}, BeaconPath(BeaconKind::kWin), Endpoint::kWin);
    route({http::verb::get, http::verb::post}, BeaconPath(BeaconKind::kBilling),
          Endpoint::kBilling);
    route({http::verb::get}, BeaconPath(BeaconKind::kImpression), Endpoint::kImpression);
    route({http::verb::get, http::verb::post}, BeaconPath(BeaconKind::kLoss), Endpoint::kLoss);
    route({http::verb::get}, BeaconPath(BeaconKind::kClick), Endpoint::kClick);
    route({http::verb::get, http::verb::post}, "/conversion", Endpoint::kConversion);
  }

 private:
  struct Metrics {
    std::array<std::array<prometheus::Counter*, static_cast<size_t>(Outcome::kCount)>,
               static_cast<size_t>(Endpoint::kCount)>
        outcomes{};
    std::array<prometheus::Counter*, static_cast<size_t>(Endpoint::kCount)> price_rejected{};
    std::array<prometheus::Histogram*, static_cast<size_t>(Endpoint::kCount)> latency{};
    // Claimed impressions and their spend, [exchange][campaign] in config
    // order; the families, for an exchange that left the config after it bid.
    std::vector<std::vector<prometheus::Counter*>> wins;
    std::vector<std::vector<prometheus::Counter*>> spend_micros;
    absl::flat_hash_map<std::string, size_t> exchange_index;
    prometheus::Family<prometheus::Counter>* wins_family = nullptr;
    prometheus::Family<prometheus::Counter>* spend_family = nullptr;
  };

  struct Answer {
    HttpResponse response;
    Outcome outcome = Outcome::kRecorded;
  };

  void DeclareMetrics(prometheus::Registry& registry) {
    auto& outcomes = prometheus::BuildCounter()
                         .Name("bidder_beacons_total")
                         .Help("Beacons received, by kind and outcome")
                         .Register(registry);
    auto& rejected = prometheus::BuildCounter()
                         .Name("bidder_beacon_price_rejected_total")
                         .Help(
                             "Clearing prices rejected (not a number, negative, above our bid "
                             "or above 1000 CPM); the bid price was recorded instead")
                         .Register(registry);
    auto& latency = prometheus::BuildHistogram()
                        .Name("bidder_beacon_latency_seconds")
                        .Help("Beacon handling time, from arrival to the answer, by kind")
                        .Register(registry);
    const prometheus::Histogram::BucketBoundaries buckets = {
        0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
    for (size_t e = 0; e < kEndpointNames.size(); ++e) {
      const std::string kind(kEndpointNames[e]);
      for (size_t o = 0; o < kOutcomeNames.size(); ++o) {
        metrics_.outcomes[e][o] =
            &outcomes.Add({{"kind", kind}, {"outcome", std::string(kOutcomeNames[o])}});
      }
      metrics_.price_rejected[e] = &rejected.Add({{"kind", kind}});
      metrics_.latency[e] = &latency.Add({{"kind", kind}}, buckets);
    }
    metrics_.wins_family = &prometheus::BuildCounter()
                                .Name("bidder_wins_total")
                                .Help(
                                    "Impressions won and claimed (billing notice or pixel, "
                                    "replays not counted), by exchange and campaign")
                                .Register(registry);
    metrics_.spend_family = &prometheus::BuildCounter()
                                 .Name("bidder_spend_micros_total")
                                 .Help(
                                     "Spend of the claimed impressions, micro-units of the "
                                     "campaign's currency, by exchange and campaign")
                                 .Register(registry);
    const auto& exchanges = deps_.config->server.exchanges;
    for (size_t x = 0; x < exchanges.size(); ++x) {
      metrics_.exchange_index.emplace(exchanges[x].name, x);
      std::vector<prometheus::Counter*> wins, spend;
      for (const config::CampaignConfig& campaign : deps_.config->campaigns) {
        const prometheus::Labels labels = {{"exchange", exchanges[x].name},
                                           {"campaign", campaign.id}};
        wins.push_back(&metrics_.wins_family->Add(labels));
        spend.push_back(&metrics_.spend_family->Add(labels));
      }
      metrics_.wins.push_back(std::move(wins));
      metrics_.spend_micros.push_back(std::move(spend));
    }
  }

  // The exchange name is signed, so one we no longer configure is still one
  // we bid for: its series are added on first use (a bounded set).
  void CountWin(const VerifiedBeacon& b, const CampaignEntry& campaign, int64_t spend_micros) {
    prometheus::Counter* wins = nullptr;
    prometheus::Counter* spend = nullptr;
    if (auto x = metrics_.exchange_index.find(b.exchange); x != metrics_.exchange_index.end()) {
      wins = metrics_.wins[x->second][campaign.index];
      spend = metrics_.spend_micros[x->second][campaign.index];
    } else {
      const prometheus::Labels labels = {{"exchange", b.exchange},
                                         {"campaign", campaign.config->id}};
      wins = &metrics_.wins_family->Add(labels);
      spend = &metrics_.spend_family->Add(labels);
    }
    wins->Increment();
    if (spend_micros > 0) spend->Increment(static_cast<double>(spend_micros));
  }

  void Count(Endpoint endpoint, Outcome outcome) {
    metrics_.outcomes[static_cast<size_t>(endpoint)][static_cast<size_t>(outcome)]->Increment();
  }

  // On the I/O thread: copy what the work needs and hand it to the pool.
  void Accept(Endpoint endpoint, const HttpRequest& request, Responder respond) {
    if (in_flight_.fetch_add(1, std::memory_order_relaxed) >= options_.max_in_flight) {
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      Count(endpoint, Outcome::kOverloaded);
      HttpResponse busy = Status(503, "too many beacons in flight; retry");
      busy.headers.emplace_back("Retry-After", "1");
      respond(std::move(busy));
      return;
    }
    // A POSTed notice may carry its parameters as a form body instead.
    std::string query(QueryOf(request.target));
    if (request.method == http::verb::post && query.empty()) query.assign(request.body);
    boost::asio::post(pool_, [this, endpoint, query = std::move(query), arrival = request.arrival,
                              executor = request.executor, respond = std::move(respond)]() mutable {
      Answer answer = Handle(endpoint, query);
      Count(endpoint, answer.outcome);
      metrics_.latency[static_cast<size_t>(endpoint)]->Observe(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - arrival).count());
      in_flight_.fetch_sub(1, std::memory_order_relaxed);
      boost::asio::post(executor, [respond = std::move(respond),
                                   response = std::move(answer.response)]() mutable {
        respond(std::move(response));
      });
    });
  }

  Answer Handle(Endpoint endpoint, std::string_view query) {
    if (endpoint == Endpoint::kConversion) return HandleConversion(query);
    BeaconKind kind = BeaconKind::kWin;
    switch (endpoint) {
      case Endpoint::kWin:
        kind = BeaconKind::kWin;
        break;
      case Endpoint::kBilling:
        kind = BeaconKind::kBilling;
        break;
      case Endpoint::kImpression:
        kind = BeaconKind::kImpression;
        break;
      case Endpoint::kLoss:
        kind = BeaconKind::kLoss;
        break;
      case Endpoint::kClick:
        kind = BeaconKind::kClick;
        break;
      default:
        break;
    }
    absl::StatusOr<VerifiedBeacon> beacon = signer_.Verify(kind, query);
    if (!beacon.ok()) {
      const bool forged = beacon.status().code() == absl::StatusCode::kUnauthenticated;
      return {Status(forged ? 403 : 400, beacon.status()),
              forged ? Outcome::kForged : Outcome::kInvalid};
    }
    if (beacon->request_id.empty() || beacon->imp_id.empty() || beacon->bid_id.empty()) {
      return {Status(400, "beacon without the auction, impression and bid ids"), Outcome::kInvalid};
    }
    auto campaign = campaigns_.find(beacon->campaign_id);
    if (campaign == campaigns_.end() || !campaign->second.creatives.contains(beacon->creative_id)) {
      return {Status(endpoint == Endpoint::kClick ? 404 : 204), Outcome::kUnknownCampaign};
    }
    const CampaignEntry& entry = campaign->second;
    const config::CreativeConfig& creative = *entry.creatives.at(beacon->creative_id);
    const std::string impression_id =
        ImpressionId(beacon->exchange, beacon->request_id, beacon->imp_id, beacon->bid_id);

    switch (endpoint) {
      case Endpoint::kWin:
        return HandleWin(*beacon, creative, impression_id);
      case Endpoint::kBilling:
      case Endpoint::kImpression:
        return HandleImpression(endpoint, *beacon, entry, impression_id);
      case Endpoint::kLoss:
        return HandleLoss(*beacon, impression_id);
      case Endpoint::kClick:
        return HandleClick(*beacon, creative, impression_id);
      default:
        return {Status(500), Outcome::kError};
    }
  }

  // The user key of a beacon's events: the device key, or for an untracked
  // bid the impression id (no device is named, nothing to erase).
  static std::string UserKey(const VerifiedBeacon& beacon, std::string_view impression_id) {
    if (std::optional<std::string> key = storage::FromHex(beacon.device_key);
        key.has_value() && key->size() == events::kUserKeyBytes) {
      return *key;
    }
    return std::string(impression_id);
  }

  static nlohmann::json BeaconJson(const VerifiedBeacon& b, std::string_view impression_id) {
    return {{"impression_id", storage::Hex(impression_id)},
            {"exchange", b.exchange},
            {"campaign", b.campaign_id},
            {"creative", b.creative_id},
            {"deal", b.deal_id},
            {"bid_price_micros", b.bid_price_micros},
            {"bid_currency", b.bid_currency},
            {"bid_time_ms", b.bid_time_ms}};
  }

  // Checks the exchange's clearing price; the CPM in the bid currency that
  // the impression is recorded at.
  double ChargedCpm(Endpoint endpoint, const VerifiedBeacon& b) {
    const double bid_cpm = static_cast<double>(b.bid_price_micros) / 1e6;
    if (b.price_text.empty()) return bid_cpm;  // not substituted: our bid is the bound
    std::optional<double> price = b.clearing_price;
    if (price.has_value() && !b.clearing_currency.empty() &&
        b.clearing_currency != b.bid_currency) {
      price = currencies_.Convert(*price, b.clearing_currency, b.bid_currency);
    }
    // A tiny tolerance for exchanges that round the price they echo.
    if (!price.has_value() || !std::isfinite(*price) || *price < 0 ||
        *price > bid_cpm * (1 + 1e-9) + 1e-6 || *price > kMaxPlausibleCpm) {
      metrics_.price_rejected[static_cast<size_t>(endpoint)]->Increment();
      return bid_cpm;
    }
    return *price;
  }

  Answer HandleWin(const VerifiedBeacon& b, const config::CreativeConfig& creative,
                   std::string_view impression_id) {
    HttpResponse response = Status(204);
    if (creative.nurl_delivery) {
      // The markup this bid did not carry, filled with the same signed ids.
      BeaconParams params = ParamsOf(b);
      std::string click_url;
      std::string impression_url;
      signer_.AppendUrls(BaseUrl(), params, nullptr, nullptr, nullptr, &click_url, &impression_url);
      response.status = 200;
      response.content_type = MarkupContentType(creative.format);
      response.body = FillMarkup(creative.adm, click_url, impression_url);
    }
    if (b.test) return {std::move(response), Outcome::kTest};
    nlohmann::json body = BeaconJson(b, impression_id);
    body["clearing_price"] = b.price_text;
    body["received_ms"] = deps_.wall_clock->NowMillis();
    absl::StatusOr<Outcome> recorded =
        RecordEvent(b, impression_id, EventType::kWin, NoticeTime(b), body);
    if (!recorded.ok()) return {Status(500, recorded.status()), Outcome::kError};
    return {std::move(response), *recorded};
  }

  Answer HandleLoss(const VerifiedBeacon& b, std::string_view impression_id) {
    if (b.test) return {Status(204), Outcome::kTest};
    nlohmann::json body = BeaconJson(b, impression_id);
    body["loss_reason"] = b.loss_reason;
    body["clearing_price"] = b.price_text;
    body["received_ms"] = deps_.wall_clock->NowMillis();
    absl::StatusOr<Outcome> recorded =
        RecordEvent(b, impression_id, EventType::kLoss, NoticeTime(b), body);
    if (!recorded.ok()) return {Status(500, recorded.status()), Outcome::kError};
    return {Status(204), *recorded};
  }

  // An event of this beacon, unless its device is erased.
  // `event_time_ms` must be the same on every replay of the beacon (it is
  // part of the timeline key): the signed bid time for notices, the time
  // the first click or conversion claimed for those.
  absl::StatusOr<Outcome> RecordEvent(const VerifiedBeacon& b, std::string_view impression_id,
                                      EventType type, int64_t event_time_ms,
                                      const nlohmann::json& body, std::string_view extra = {}) {
    const std::string user_key = UserKey(b, impression_id);
    absl::StatusOr<bool> erased = deps_.events->IsErased(user_key);
    if (!erased.ok()) return erased.status();
    if (*erased) return Outcome::kErased;
    events::Event event;
    event.user_key = user_key;
    event.event_id = EventId(impression_id, events::EventTypeName(type), extra);
    event.type = type;
    event.event_time_ms = event_time_ms;
    event.body = body.dump();
    event.summary =
        std::string(events::EventTypeName(type)) + " " + b.campaign_id + "/" + b.creative_id;
    if (absl::Status s = deps_.events->Record(event); !s.ok()) return s;
    return Outcome::kRecorded;
  }

  Answer HandleImpression(Endpoint endpoint, const VerifiedBeacon& b, const CampaignEntry& campaign,
                          const std::string& impression_id) {
    HttpResponse ok = Status(204);
    if (endpoint == Endpoint::kImpression) {
      ok.status = 200;
      ok.content_type = "image/gif";
      ok.body.assign(reinterpret_cast<const char*>(kPixel), sizeof(kPixel));
      ok.headers.emplace_back("Cache-Control", "no-store");
    }
    if (b.test) return {std::move(ok), Outcome::kTest};
    const auto fail = [](const absl::Status& s) { return Answer{Status(500, s), Outcome::kError}; };

    storage::Get get;
    get.row = impression_id;
    absl::StatusOr<storage::RowResult> existing = deps_.store->Get(storage::kImpressionsTable, get);
    if (!existing.ok()) return fail(existing.status());
    if (!existing->empty()) return {std::move(ok), Outcome::kDuplicate};

    const int64_t now = deps_.wall_clock->NowMillis();
    const double cpm = ChargedCpm(endpoint, b);
    const std::optional<double> campaign_cpm =
        currencies_.Convert(cpm, b.bid_currency, campaign.config->currency);
    // CPM is per thousand impressions: one impression costs CPM / 1000.
    const int64_t spend_micros =
        campaign_cpm.has_value() ? std::llround(*campaign_cpm * 1e6 / 1000) : 0;

    std::optional<std::string> device_key = storage::FromHex(b.device_key);
    if (device_key.has_value() && device_key->size() != events::kUserKeyBytes) device_key.reset();
    bool erased = false;
    if (device_key.has_value()) {
      absl::StatusOr<bool> is_erased = deps_.events->IsErased(*device_key);
      if (!is_erased.ok()) return fail(is_erased.status());
      erased = *is_erased;
    }

    if (!erased) {
      nlohmann::json body = BeaconJson(b, impression_id);
      body["spend_micros"] = spend_micros;
      body["campaign_currency"] = campaign.config->currency;
      body["source"] = endpoint == Endpoint::kBilling ? "billing" : "pixel";
      body["received_ms"] = now;
      absl::StatusOr<Outcome> event =
          RecordEvent(b, impression_id, EventType::kImpression, NoticeTime(b), body);
      if (!event.ok()) return fail(event.status());
    }
    if (device_key.has_value() && !erased) {
      storage::Put index;
      index.row = DeviceImpressionRow(*device_key, now, impression_id);
      index.values.push_back({std::string(kDeviceImpressionFamily), std::string(kCampaignColumn),
                              campaign.config->id, std::nullopt});
      index.durability = storage::Durability::kSyncWal;
      if (absl::Status s = deps_.store->Put(storage::kDeviceImpressionsTable, index); !s.ok()) {
        return fail(s);
      }
      if (campaign.config->frequency_cap_per_day > 0) {
        storage::Increment cap;
        cap.row = *device_key;
        cap.columns.push_back(
            {"fc",
             FrequencyCapQualifier(campaign.config->id, absl::FromUnixMillis(now), campaign.zone),
             1});
        cap.ttl_ms = options_.frequency_cap_ttl_ms;
        cap.durability = storage::Durability::kAsyncWal;
        cap.nonce = Nonce(impression_id);
        if (absl::StatusOr<storage::RowResult> r =
                deps_.store->Increment(storage::kProfilesTable, cap);
            !r.ok()) {
          return fail(r.status());
        }
      }
    }

    storage::CheckAndMutate claim;
    claim.row = impression_id;
    claim.family = std::string(kImpressionFamily);
    claim.qualifier = std::string(kCampaignColumn);
    claim.value = std::nullopt;  // the row must not exist yet
    storage::Put row;
    row.row = impression_id;
    auto column = [&](std::string_view q, std::string value) {
      row.values.push_back(
          {std::string(kImpressionFamily), std::string(q), std::move(value), std::nullopt});
    };
    column(kCampaignColumn, campaign.config->id);
    column(kCreativeColumn, b.creative_id);
    column(kExchangeColumn, b.exchange);
    if (device_key.has_value() && !erased) column(kDeviceKeyColumn, b.device_key);
    column(kSpendColumn, storage::EncodeCounter(spend_micros));
    column(kTimeColumn, EncodeMillis(now));
    row.durability = storage::Durability::kSyncWal;
    claim.puts.push_back(std::move(row));
    absl::StatusOr<bool> claimed = deps_.store->CheckAndMutate(storage::kImpressionsTable, claim);
    if (!claimed.ok()) return fail(claimed.status());
    if (!*claimed) return {std::move(ok), Outcome::kDuplicate};
    CountWin(b, campaign, spend_micros);
    if (deps_.spend != nullptr && spend_micros > 0)
      deps_.spend->Record(campaign.index, spend_micros);
    return {std::move(ok), erased ? Outcome::kErased : Outcome::kRecorded};
  }

  // The impression row, or nullopt when there is none (never written, or
  // past the attribution window and expired).
  absl::StatusOr<std::optional<storage::RowResult>> FindImpression(std::string_view impression_id) {
    storage::Get get;
    get.row = std::string(impression_id);
    absl::StatusOr<storage::RowResult> row = deps_.store->Get(storage::kImpressionsTable, get);
    if (!row.ok()) return row.status();
    if (row->empty()) return std::optional<storage::RowResult>();
    return std::optional<storage::RowResult>(*std::move(row));
  }

  bool WithinWindow(int64_t impression_ms, int64_t now) const {
    return now - impression_ms <= deps_.config->bid.attribution_window_s * 1000;
  }

  Answer HandleClick(const VerifiedBeacon& b, const config::CreativeConfig& creative,
                     const std::string& impression_id) {
    // The redirect goes where the config says, whatever is recorded.
    HttpResponse redirect;
    redirect.status = 302;
    redirect.headers.emplace_back(
        "Location", LandingWithToken(creative.landing_url, signer_.ClickToken(impression_id)));
    redirect.headers.emplace_back("Cache-Control", "no-store");
    if (b.test) return {std::move(redirect), Outcome::kTest};

    absl::StatusOr<std::optional<storage::RowResult>> impression = FindImpression(impression_id);
    if (!impression.ok()) return {std::move(redirect), Outcome::kError};
    if (!impression->has_value()) return {std::move(redirect), Outcome::kUnknownImpression};
    const int64_t now = deps_.wall_clock->NowMillis();
    const int64_t shown_ms = (*impression)->Counter(kImpressionFamily, kTimeColumn).value_or(now);
    if (!WithinWindow(shown_ms, now)) return {std::move(redirect), Outcome::kExpired};

    // The first click is the one conversions are attributed through.
    storage::CheckAndMutate first;
    first.row = impression_id;
    first.family = std::string(kImpressionFamily);
    first.qualifier = std::string(kFirstClickColumn);
    first.value = std::nullopt;
    storage::Put click_time;
    click_time.row = impression_id;
    click_time.values.push_back({std::string(kImpressionFamily), std::string(kFirstClickColumn),
                                 EncodeMillis(now), std::nullopt});
    click_time.durability = storage::Durability::kSyncWal;
    first.puts.push_back(std::move(click_time));
    absl::StatusOr<bool> first_click =
        deps_.store->CheckAndMutate(storage::kImpressionsTable, first);
    if (!first_click.ok()) return {std::move(redirect), Outcome::kError};
    if (!*first_click) return {std::move(redirect), Outcome::kDuplicate};

    nlohmann::json body = BeaconJson(b, impression_id);
    body["impression_ms"] = shown_ms;
    body["click_delay_ms"] = now - shown_ms;
    absl::StatusOr<Outcome> recorded = RecordEvent(b, impression_id, EventType::kClick, now, body);
    if (!recorded.ok()) return {std::move(redirect), Outcome::kError};
    return {std::move(redirect), *recorded};
  }

  Answer HandleConversion(std::string_view query) {
    absl::StatusOr<std::optional<std::string>> token = QueryParam(query, "click");
    if (!token.ok()) return {Status(400, token.status()), Outcome::kInvalid};
    if (!token->has_value()) return {Status(400, "parameter click missing"), Outcome::kInvalid};
    absl::StatusOr<std::string> impression_id = signer_.VerifyClickToken(**token);
    if (!impression_id.ok()) {
      const bool forged = impression_id.status().code() == absl::StatusCode::kUnauthenticated;
      return {Status(forged ? 403 : 400, impression_id.status()),
              forged ? Outcome::kForged : Outcome::kInvalid};
    }
    absl::StatusOr<std::optional<std::string>> order = QueryParam(query, "oid");
    absl::StatusOr<std::optional<std::string>> value = QueryParam(query, "value");
    absl::StatusOr<std::optional<std::string>> currency = QueryParam(query, "cur");
    for (const auto* p : {&order, &value, &currency}) {
      if (!p->ok()) return {Status(400, p->status()), Outcome::kInvalid};
    }
    double conversion_value = 0;
    if (value->has_value() && (!absl::SimpleAtod(**value, &conversion_value) ||
                               !std::isfinite(conversion_value) || conversion_value < 0)) {
      return {Status(400, "parameter value: not a non-negative number"), Outcome::kInvalid};
    }
    if (order->has_value() && (*order)->size() > 128) {
      return {Status(400, "parameter oid: longer than 128 bytes"), Outcome::kInvalid};
    }

    absl::StatusOr<std::optional<storage::RowResult>> impression = FindImpression(*impression_id);
    if (!impression.ok()) return {Status(500, impression.status()), Outcome::kError};
    if (!impression->has_value()) return {Status(204), Outcome::kUnknownImpression};
    const storage::RowResult& row = **impression;
    const int64_t now = deps_.wall_clock->NowMillis();
    const int64_t shown_ms = row.Counter(kImpressionFamily, kTimeColumn).value_or(now);
    if (!WithinWindow(shown_ms, now)) return {Status(204), Outcome::kExpired};
    const std::optional<int64_t> clicked_ms = row.Counter(kImpressionFamily, kFirstClickColumn);

    VerifiedBeacon b;
    b.campaign_id = std::string(row.Value(kImpressionFamily, kCampaignColumn).value_or(""));
    b.creative_id = std::string(row.Value(kImpressionFamily, kCreativeColumn).value_or(""));
    b.exchange = std::string(row.Value(kImpressionFamily, kExchangeColumn).value_or(""));
    b.device_key = std::string(row.Value(kImpressionFamily, kDeviceKeyColumn).value_or(""));
    nlohmann::json body = {{"impression_id", storage::Hex(*impression_id)},
                           {"exchange", b.exchange},
                           {"campaign", b.campaign_id},
                           {"creative", b.creative_id},
                           {"impression_ms", shown_ms},
                           {"impression_delay_ms", now - shown_ms},
                           {"order_id", order->value_or("")},
                           {"value", conversion_value},
                           {"currency", currency->value_or("")}};
    if (clicked_ms.has_value()) {
      body["click_ms"] = *clicked_ms;
      body["click_delay_ms"] = now - *clicked_ms;
    }
    // One conversion per order id (or per click without one): the first
    // claims a column of the impression row, replays find it taken.
    storage::CheckAndMutate claim;
    claim.row = *impression_id;
    claim.family = std::string(kImpressionFamily);
    claim.qualifier = std::string(kConversionColumnPrefix) +
                      storage::Hex(EventId(*impression_id, "conversion", order->value_or("")));
    claim.value = std::nullopt;
    storage::Put claimed;
    claimed.row = *impression_id;
    claimed.values.push_back({claim.family, claim.qualifier, EncodeMillis(now), std::nullopt});
    claimed.durability = storage::Durability::kSyncWal;
    claim.puts.push_back(std::move(claimed));
    absl::StatusOr<bool> first = deps_.store->CheckAndMutate(storage::kImpressionsTable, claim);
    if (!first.ok()) return {Status(500, first.status()), Outcome::kError};
    if (!*first) return {Status(204), Outcome::kDuplicate};
    absl::StatusOr<Outcome> recorded =
        RecordEvent(b, *impression_id, EventType::kConversion, now, body, order->value_or(""));
    if (!recorded.ok()) return {Status(500, recorded.status()), Outcome::kError};
    return {Status(204), *recorded};
  }

  // The signed bid time, the same on every replay of a notice.
  int64_t NoticeTime(const VerifiedBeacon& b) const {
    return b.bid_time_ms > 0 ? b.bid_time_ms : deps_.wall_clock->NowMillis();
  }

  static uint64_t Nonce(std::string_view impression_id) {
    uint64_t nonce = 0;
    for (size_t i = 0; i < 8 && i < impression_id.size(); ++i) {
      nonce = (nonce << 8) | static_cast<unsigned char>(impression_id[i]);
    }
    return nonce == 0 ? 1 : nonce;
  }

  std::string BaseUrl() const {
    const config::BidderConfig& config = *deps_.config;
    return BeaconBaseUrl(config.bid.beacon_base_url, config.server.listen_address,
                         deps_.bound_port ? deps_.bound_port() : config.server.port);
  }

  Dependencies deps_;
  BeaconHandlerOptions options_;
  CurrencyTable currencies_;
  std::string path_prefix_;
  BeaconSigner signer_;
  absl::flat_hash_map<std::string, CampaignEntry> campaigns_;
  Metrics metrics_;
  std::atomic<int> in_flight_{0};
  boost::asio::thread_pool pool_;
};

std::string BeaconHandler::ImpressionId(std::string_view exchange, std::string_view request_id,
                                        std::string_view imp_id, std::string_view bid_id) {
  std::string text;
  AppendField("rtb-impression-v1", &text);
  AppendField(exchange, &text);
  AppendField(request_id, &text);
  AppendField(imp_id, &text);
  AppendField(bid_id, &text);
  return Sha256Prefix16(text);
}

absl::StatusOr<std::unique_ptr<BeaconHandler>> BeaconHandler::Create(Dependencies deps,
                                                                     BeaconHandlerOptions options) {
  if (deps.config == nullptr || deps.store == nullptr || deps.events == nullptr ||
      deps.registry == nullptr) {
    return absl::InvalidArgumentError(
        "beacon handler: config, store, events and registry are required");
  }
  if (options.threads < 1 || options.threads > 256) {
    return absl::InvalidArgumentError("beacon handler: threads must be in [1, 256]");
  }
  if (options.max_in_flight < 1) {
    return absl::InvalidArgumentError("beacon handler: max_in_flight must be > 0");
  }
  if (deps.wall_clock == nullptr) deps.wall_clock = storage::SystemClock();
  absl::StatusOr<CurrencyTable> currencies = CurrencyTable::Create(deps.config->bid.currency_rates);
  if (!currencies.ok()) return currencies.status();
  // The path of the base URL (after scheme and authority) prefixes every route.
  std::string prefix;
  if (const std::string& base = deps.config->bid.beacon_base_url; !base.empty()) {
    const size_t scheme = base.find("://");
    const size_t path =
        scheme == std::string::npos ? std::string::npos : base.find('/', scheme + 3);
    if (path != std::string::npos) prefix = base.substr(path);
  }
  try {
    auto impl =
        std::make_unique<Impl>(std::move(deps), options, *std::move(currencies), std::move(prefix));
    return std::unique_ptr<BeaconHandler>(new BeaconHandler(std::move(impl)));
  } catch (const std::exception& e) {
    // prometheus-cpp throws on a metric name clash.
    return absl::InternalError(absl::StrCat("cannot declare the beacon metrics: ", e.what()));
  }
}

BeaconHandler::BeaconHandler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BeaconHandler::~BeaconHandler() = default;

void BeaconHandler::Register(HttpServer& server) { impl_->Register(server); }

}  // namespace rtb::bidder
