#include "bidder/beacons/internal/beacon_context.h"

#include <openssl/sha.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/events/impressions.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::bidder::beacons {

HttpResponse Status(unsigned status, std::string_view reason) {
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

std::string Sha256Id(std::initializer_list<std::string_view> fields) {
  std::string text;
  for (std::string_view field : fields) {
    absl::StrAppend(&text, field.size(), ":");
    text.append(field);
    text.push_back('\n');
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), 16);
}

std::string EventId(std::string_view impression_id, std::string_view kind, std::string_view extra) {
  return Sha256Id({"rtb-event-v1", impression_id, kind, extra});
}

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

absl::StatusOr<absl::flat_hash_map<std::string, ExchangeRules>> BeaconContext::RulesOf(
    const config::BidderConfig& config) {
  absl::flat_hash_map<std::string, ExchangeRules> rules;
  for (const config::ExchangeConfig& exchange : config.server.exchanges) {
    ExchangeRules& entry = rules[exchange.name];
    entry.billing_notice = exchange.billing_notice;
    entry.markup_base_url = BeaconBasesOf(config, exchange).for_markup();
    if (!exchange.price_encryption.enabled()) continue;
    absl::StatusOr<PriceDecrypter> prices = PriceDecrypter::Create(
        exchange.price_encryption.encryption_key, exchange.price_encryption.integrity_key);
    if (!prices.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("exchange ", exchange.name, ": ", prices.status().message()));
    }
    entry.prices = *std::move(prices);
  }
  return rules;
}

BeaconContext::BeaconContext(BeaconHandler::Dependencies deps, BeaconHandlerOptions options,
                             CurrencyTable currencies,
                             absl::flat_hash_map<std::string, ExchangeRules> exchanges)
    : deps_(std::move(deps)),
      options_(options),
      currencies_(std::move(currencies)),
      signer_(deps_.config->bid.beacon_secret),
      exchanges_(std::move(exchanges)) {
  DeclareMetrics(*deps_.registry);
  std::vector<std::shared_ptr<const config::CampaignConfig>> campaigns;
  for (const config::CampaignConfig& campaign : deps_.config->campaigns) {
    campaigns.push_back(std::make_shared<const config::CampaignConfig>(campaign));
  }
  SetCampaigns(campaigns);
}

void BeaconContext::SetCampaigns(
    const std::vector<std::shared_ptr<const config::CampaignConfig>>& campaigns_by_position) {
  auto map = std::make_shared<CampaignMap>();
  const auto& exchanges = deps_.config->server.exchanges;
  for (size_t i = 0; i < campaigns_by_position.size(); ++i) {
    const std::shared_ptr<const config::CampaignConfig>& campaign = campaigns_by_position[i];
    CampaignEntry entry;
    entry.index = i;
    entry.config = campaign;
    if (!absl::LoadTimeZone(campaign->time_zone, &entry.zone)) entry.zone = absl::UTCTimeZone();
    for (const config::CreativeConfig& creative : campaign->creatives) {
      entry.creatives[creative.id] = &creative;
    }
    // Add returns the existing series for labels seen before.
    for (const config::ExchangeConfig& exchange : exchanges) {
      const prometheus::Labels labels = {{"exchange", exchange.name}, {"campaign", campaign->id}};
      entry.wins.push_back(&metrics_.wins_family->Add(labels));
      entry.spend_micros.push_back(&metrics_.spend_family->Add(labels));
    }
    map->emplace(campaign->id, std::move(entry));
  }
  campaigns_.store(std::move(map));
}

std::shared_ptr<const CampaignEntry> BeaconContext::FindCampaign(
    std::string_view campaign_id) const {
  std::shared_ptr<const CampaignMap> map = campaigns_.load();
  auto it = map->find(std::string(campaign_id));
  if (it == map->end()) return nullptr;
  return std::shared_ptr<const CampaignEntry>(map, &it->second);
}

const ExchangeRules& BeaconContext::Exchange(std::string_view exchange) const {
  static const ExchangeRules kDefaults;
  auto it = exchanges_.find(std::string(exchange));
  return it == exchanges_.end() ? kDefaults : it->second;
}

void BeaconContext::DeclareMetrics(prometheus::Registry& registry) {
  auto& outcomes = prometheus::BuildCounter()
                       .Name("bidder_beacons_total")
                       .Help("Beacons received, by kind and outcome")
                       .Register(registry);
  auto& rejected = prometheus::BuildCounter()
                       .Name("bidder_beacon_price_rejected_total")
                       .Help(
                           "Clearing prices rejected, by kind and reason: implausible (not a "
                           "number, negative, above our bid or above 1000 CPM) or "
                           "undecryptable (an encrypting exchange's price that does not "
                           "decrypt with its keys); the bid price was recorded instead")
                       .Register(registry);
  auto& latency = prometheus::BuildHistogram()
                      .Name("bidder_beacon_latency_seconds")
                      .Help("Beacon handling time, from arrival to the answer, by kind")
                      .Register(registry);
  const prometheus::Histogram::BucketBoundaries buckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02,
                                                           0.05,   0.1,   0.25,  0.5,   1,    2.5};
  for (size_t e = 0; e < kEndpointNames.size(); ++e) {
    const std::string kind(kEndpointNames[e]);
    for (size_t o = 0; o < kOutcomeNames.size(); ++o) {
      metrics_.outcomes[e][o] =
          &outcomes.Add({{"kind", kind}, {"outcome", std::string(kOutcomeNames[o])}});
    }
    for (size_t r = 0; r < kPriceRejectionNames.size(); ++r) {
      metrics_.price_rejected[e][r] =
          &rejected.Add({{"kind", kind}, {"reason", std::string(kPriceRejectionNames[r])}});
    }
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
  }
}

void BeaconContext::Count(Endpoint endpoint, Outcome outcome) {
  metrics_.outcomes[static_cast<size_t>(endpoint)][static_cast<size_t>(outcome)]->Increment();
}

void BeaconContext::ObserveLatency(Endpoint endpoint, double seconds) {
  metrics_.latency[static_cast<size_t>(endpoint)]->Observe(seconds);
}

void BeaconContext::CountPriceRejected(Endpoint endpoint, PriceRejection reason) {
  metrics_.price_rejected[static_cast<size_t>(endpoint)][static_cast<size_t>(reason)]->Increment();
}

// The exchange name is signed, so one we no longer configure is still one
// we bid for: its series are added on first use (a bounded set).
void BeaconContext::CountPricingNotice(const VerifiedBeacon& b, bool won,
                                       std::string_view impression_id) {
  if (deps_.pricing == nullptr || b.pricing_bucket == 0) return;
  pricing::AuctionNotice notice;
  notice.exchange = b.exchange;
  notice.campaign_id = b.campaign_id;
  notice.bucket = b.pricing_bucket;
  notice.won = won;
  notice.bid_cpm = static_cast<double>(b.bid_price_micros) / 1e6;
  notice.bid_currency = b.bid_currency;
  notice.clearing_cpm = b.clearing_price;
  notice.clearing_currency = b.clearing_currency;
  notice.min_to_win_cpm = b.min_to_win;
  notice.loss_reason = b.loss_reason;
  notice.bid_time_ms = b.bid_time_ms;
  notice.notice_id = impression_id;
  deps_.pricing->RecordNotice(notice);
}

void BeaconContext::CountPricingEngagement(std::string_view campaign_id, pricing::Engagement kind,
                                           int64_t event_ms, std::string_view event_id) {
  if (deps_.pricing == nullptr) return;
  deps_.pricing->RecordEngagement(campaign_id, kind, event_ms, event_id);
}

void BeaconContext::CountWin(const VerifiedBeacon& b, const CampaignEntry& campaign,
                             int64_t spend_micros) {
  prometheus::Counter* wins = nullptr;
  prometheus::Counter* spend = nullptr;
  if (auto x = metrics_.exchange_index.find(b.exchange); x != metrics_.exchange_index.end()) {
    wins = campaign.wins[x->second];
    spend = campaign.spend_micros[x->second];
  } else {
    const prometheus::Labels labels = {{"exchange", b.exchange}, {"campaign", campaign.config->id}};
    wins = &metrics_.wins_family->Add(labels);
    spend = &metrics_.spend_family->Add(labels);
  }
  wins->Increment();
  if (spend_micros > 0) spend->Increment(static_cast<double>(spend_micros));
}

namespace {

// The user key of a beacon's events: the device key, or for an untracked
// bid the impression id (no device is named, nothing to erase).
std::string UserKey(const VerifiedBeacon& beacon, std::string_view impression_id) {
  if (std::optional<std::string> key = storage::FromHex(beacon.device_key);
      key.has_value() && key->size() == events::kUserKeyBytes) {
    return *key;
  }
  return std::string(impression_id);
}

}  // namespace

absl::StatusOr<Outcome> BeaconContext::RecordEvent(const VerifiedBeacon& b,
                                                   std::string_view impression_id,
                                                   events::EventType type, int64_t event_time_ms,
                                                   const nlohmann::json& body,
                                                   std::string_view extra, LaterEvents* later) {
  if (!b.permissions.measure) return Outcome::kNotMeasured;
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
  if (later != nullptr) {
    later->push_back(std::move(event));
    return Outcome::kRecorded;
  }
  if (absl::Status s = deps_.events->Record(event); !s.ok()) return s;
  return Outcome::kRecorded;
}

nlohmann::json BeaconContext::BeaconJson(const VerifiedBeacon& b, std::string_view impression_id) {
  return {{"impression_id", storage::Hex(impression_id)},
          {"exchange", b.exchange},
          {"campaign", b.campaign_id},
          {"creative", b.creative_id},
          {"deal", b.deal_id},
          {"bid_price_micros", b.bid_price_micros},
          {"bid_currency", b.bid_currency},
          {"bid_time_ms", b.bid_time_ms}};
}

int64_t BeaconContext::NoticeTime(const VerifiedBeacon& b, int64_t now) {
  return b.bid_time_ms > 0 ? b.bid_time_ms : now;
}

absl::StatusOr<std::optional<storage::RowResult>> BeaconContext::FindImpression(
    std::string_view impression_id) const {
  storage::Get get;
  get.row = std::string(impression_id);
  absl::StatusOr<storage::RowResult> row = deps_.store->Get(storage::kImpressionsTable, get);
  if (!row.ok()) return row.status();
  if (row->empty()) return std::optional<storage::RowResult>();
  return std::optional<storage::RowResult>(*std::move(row));
}

bool BeaconContext::WithinAttributionWindow(int64_t impression_ms, int64_t now) const {
  return now - impression_ms <= deps_.config->bid.attribution_window_s * 1000;
}

std::string BeaconContext::BaseUrl(std::string_view exchange) const {
  const config::BidderConfig& config = *deps_.config;
  const auto rules = exchanges_.find(std::string(exchange));
  return BeaconBaseUrl(
      rules != exchanges_.end() ? rules->second.markup_base_url : config.bid.beacon_base_url,
      config.server.listen_address, deps_.bound_port ? deps_.bound_port() : config.server.port);
}

}  // namespace rtb::bidder::beacons
