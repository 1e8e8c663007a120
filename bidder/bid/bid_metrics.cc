#include "bidder/bid/bid_metrics.h"

#include <algorithm>
#include <string>

#include "prometheus/family.h"

namespace rtb::bidder {
namespace {

// The privacy label lists hold every enum value at its own position, so the
// handles are indexed by value.
constexpr bool PrivacyLabelsIndexedByValue() {
  for (size_t i = 0; i < std::size(privacy::kPrivacyRegimes); ++i) {
    if (static_cast<size_t>(privacy::kPrivacyRegimes[i]) != i) return false;
  }
  for (size_t i = 0; i < std::size(privacy::kPrivacyOutcomes); ++i) {
    if (static_cast<size_t>(privacy::kPrivacyOutcomes[i]) != i) return false;
  }
  return true;
}
static_assert(PrivacyLabelsIndexedByValue());

}  // namespace

const char* BidOutcomeName(BidOutcome outcome) {
  switch (outcome) {
    case BidOutcome::kBid:
      return "bid";
    case BidOutcome::kInvalid:
      return "invalid";
    case BidOutcome::kLate:
      return "late";
    case BidOutcome::kNoBidExpired:
      return "nobid_expired";
    case BidOutcome::kNoBidCoppa:
      return "nobid_coppa";
    case BidOutcome::kNoBidCurrency:
      return "nobid_currency";
    case BidOutcome::kNoBidNoCandidates:
      return "nobid_no_candidates";
    case BidOutcome::kNoBidPrivacy:
      return "nobid_privacy";
    case BidOutcome::kNoBidInsecure:
      return "nobid_insecure";
    case BidOutcome::kNoBidSeat:
      return "nobid_seat";
    case BidOutcome::kNoBidBlocked:
      return "nobid_blocked";
    case BidOutcome::kNoBidTargeting:
      return "nobid_targeting";
    case BidOutcome::kNoBidSegments:
      return "nobid_segments";
    case BidOutcome::kNoBidDsa:
      return "nobid_dsa";
    case BidOutcome::kNoBidCreative:
      return "nobid_creative";
    case BidOutcome::kNoBidFloor:
      return "nobid_floor";
    case BidOutcome::kNoBidFrequencyCap:
      return "nobid_frequency_cap";
    case BidOutcome::kNoBidPacing:
      return "nobid_pacing";
    case BidOutcome::kNoBidSchedule:
      return "nobid_schedule";
    case BidOutcome::kNoBidStoreOutage:
      return "nobid_store_outage";
    case BidOutcome::kNoBidError:
      return "nobid_error";
  }
  return "nobid_error";
}

const char* LookupOutcomeName(LookupOutcome outcome) {
  switch (outcome) {
    case LookupOutcome::kHit:
      return "hit";
    case LookupOutcome::kMiss:
      return "miss";
    case LookupOutcome::kTimeout:
      return "timeout";
    case LookupOutcome::kError:
      return "error";
    case LookupOutcome::kStale:
      return "stale";
    case LookupOutcome::kSkipped:
      return "skipped";
  }
  return "error";
}

const char* IgnoredName(Ignored what) {
  switch (what) {
    case Ignored::kExtNotObject:
      return "ext_not_object";
    case Ignored::kUnknownField:
      return "unknown_field";
    case Ignored::kUnknownValue:
      return "unknown_value";
    case Ignored::kUnusableNativeRequest:
      return "unusable_native_request";
    case Ignored::kUnknownTaxonomy:
      return "unknown_taxonomy";
    case Ignored::kUnusedMalformedGpp:
      return "unused_malformed_gpp";
  }
  return "unknown_field";
}

const char* DsaOutcomeName(DsaOutcome outcome) {
  switch (outcome) {
    case DsaOutcome::kNotRequired:
      return "not_required";
    case DsaOutcome::kSupportedNotSupplied:
      return "supported_not_supplied";
    case DsaOutcome::kSupportedAndSupplied:
      return "supported_and_supplied";
    case DsaOutcome::kRequiredAndSupplied:
      return "required_and_supplied";
    case DsaOutcome::kRequiredMissingCampaignSkipped:
      return "required_missing_campaign_skipped";
  }
  return "not_required";
}

prometheus::Histogram::BucketBoundaries BidMetrics::LatencyBuckets() {
  return {0.00005, 0.0001, 0.0002, 0.0003, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005,
          0.0075,  0.01,   0.015,  0.02,   0.03,   0.05,    0.075, 0.1,    0.15,  0.25};
}

struct BidMetrics::Families {
  prometheus::Family<prometheus::Counter>& requests;
  prometheus::Family<prometheus::Histogram>& latency;
  prometheus::Family<prometheus::Counter>& lookups;
  prometheus::Family<prometheus::Counter>& history_reads;
  prometheus::Family<prometheus::Counter>& timeouts;
  prometheus::Family<prometheus::Counter>& bids;
  prometheus::Family<prometheus::Counter>& ignored;
  prometheus::Family<prometheus::Counter>& price_sum;
  prometheus::Family<prometheus::Counter>& outage;
  prometheus::Family<prometheus::Counter>& privacy_decisions;
  prometheus::Family<prometheus::Counter>& privacy_nobids;
  prometheus::Family<prometheus::Counter>& dsa;
};

namespace {

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

}  // namespace

// In the order /metrics lists them (the registry keeps registration order).
BidMetrics::Families BidMetrics::RegisterFamilies(prometheus::Registry& registry) {
  auto& requests = CounterFamily(registry, "bidder_bid_requests_total",
                                 "Bid requests answered, by exchange and outcome");
  auto& latency = prometheus::BuildHistogram()
                      .Name("bidder_bid_latency_seconds")
                      .Help(
                          "Bid request latency in the bidder, from the first byte read to the "
                          "response handed to the server")
                      .Register(registry);
  auto& lookups = CounterFamily(registry, "bidder_profile_lookups_total",
                                "Profile lookups on the bid path, by outcome");
  auto& history_reads = CounterFamily(registry, "bidder_device_history_reads_total",
                                      "Reads of a device's engagement history on the bid path "
                                      "(for cpc and cpa values), by outcome");
  auto& timeouts = CounterFamily(registry, "bidder_profile_timeouts_total",
                                 "Profile lookups on the bid path that timed out (bid on an "
                                 "empty profile), by exchange");
  auto& bids = CounterFamily(registry, "bidder_bids_total",
                             "Bids made, one per impression bid on, by exchange and campaign");
  auto& ignored = CounterFamily(registry, "bidder_bid_requests_ignored_total",
                                "What valid bid requests carried that was ignored rather than "
                                "refused, by exchange and kind");
  auto& price_sum = CounterFamily(registry, "bidder_bid_price_cpm_total",
                                  "Sum of bid prices, CPM in bid.default_currency, by campaign");
  auto& outage = CounterFamily(registry, "bidder_store_outage_decisions_total",
                               "Candidates that met their store_outage_policy because the "
                               "profile could not be read, by campaign, policy and decision "
                               "(withheld or allowed)");
  auto& privacy_decisions =
      CounterFamily(registry, std::string(privacy::kPrivacyDecisionsMetric),
                    "Privacy decisions of valid bid requests, by regime and outcome");
  auto& privacy_nobids =
      CounterFamily(registry, "bidder_privacy_nobids_total",
                    "Bid requests answered nobid_privacy, by the regime and outcome of the "
                    "privacy decision that refused the bid");
  auto& dsa = CounterFamily(registry, "bidder_dsa_decisions_total",
                            "What the DSA signal did: bids made by whether they carry ext.dsa "
                            "and whether it was required, and candidate campaigns skipped "
                            "because it was required and they cannot supply it");
  return Families{requests, latency,   lookups, history_reads,     timeouts,       bids,
                  ignored,  price_sum, outage,  privacy_decisions, privacy_nobids, dsa};
}

BidMetrics::BidMetrics(prometheus::Registry& registry,
                       const std::vector<config::ExchangeConfig>& exchanges,
                       const std::vector<config::CampaignConfig>& campaigns,
                       size_t campaign_capacity)
    : capacity_(std::max(campaigns.size(), campaign_capacity)) {
  const Families families = RegisterFamilies(registry);
  DeclareExchanges(exchanges, families);
  DeclareLookups(families);
  bids_family_ = &families.bids;
  price_sum_family_ = &families.price_sum;
  outage_family_ = &families.outage;
  price_sum_ = std::make_unique<std::atomic<metrics::ShardedCounter*>[]>(capacity_);
  outage_withheld_ = std::make_unique<std::atomic<prometheus::Counter*>[]>(capacity_);
  outage_allowed_ = std::make_unique<std::atomic<prometheus::Counter*>[]>(capacity_);
  DeclareCampaigns(campaigns);
  DeclarePrivacyDecisions(families);
  DeclareDsa(families);
}

void BidMetrics::DeclareExchanges(const std::vector<config::ExchangeConfig>& exchanges,
                                  const Families& families) {
  for (const config::ExchangeConfig& exchange : exchanges) {
    Exchange handles;
    for (size_t i = 0; i < kBidOutcomeCount; ++i) {
      handles.outcomes[i] = std::make_unique<metrics::ShardedCounter>(
          families.requests,
          metrics::Labels{{"exchange", exchange.name},
                          {"outcome", BidOutcomeName(static_cast<BidOutcome>(i))}});
    }
    handles.latency = std::make_unique<metrics::ShardedHistogram>(
        families.latency, metrics::Labels{{"exchange", exchange.name}}, LatencyBuckets());
    handles.profile_timeouts = &families.timeouts.Add({{"exchange", exchange.name}});
    for (size_t i = 0; i < kIgnoredCount; ++i) {
      handles.ignored[i] = &families.ignored.Add(
          {{"exchange", exchange.name}, {"what", IgnoredName(static_cast<Ignored>(i))}});
    }
    handles.bids = std::make_unique<std::atomic<metrics::ShardedCounter*>[]>(capacity_);
    exchanges_.push_back(std::move(handles));
    exchange_names_.push_back(exchange.name);
  }
}

void BidMetrics::DeclareLookups(const Families& families) {
  for (size_t i = 0; i < kLookupOutcomeCount; ++i) {
    const std::string outcome(LookupOutcomeName(static_cast<LookupOutcome>(i)));
    lookups_[i] = std::make_unique<metrics::ShardedCounter>(families.lookups,
                                                            metrics::Labels{{"outcome", outcome}});
    history_reads_[i] = std::make_unique<metrics::ShardedCounter>(
        families.history_reads, metrics::Labels{{"outcome", outcome}});
  }
}

void BidMetrics::DeclarePrivacyDecisions(const Families& families) {
  for (privacy::PrivacyRegime regime : privacy::kPrivacyRegimes) {
    for (privacy::PrivacyOutcome outcome : privacy::kPrivacyOutcomes) {
      privacy_decisions_[static_cast<size_t>(regime)][static_cast<size_t>(outcome)] =
          std::make_unique<metrics::ShardedCounter>(
              families.privacy_decisions,
              metrics::Labels{{"regime", std::string(privacy::PrivacyRegimeName(regime))},
                              {"outcome", std::string(privacy::PrivacyOutcomeName(outcome))}});
    }
  }
  // Only the outcomes that refuse a bid: 3 regimes x 4 outcomes.
  for (privacy::PrivacyRegime regime : privacy::kPrivacyRegimes) {
    for (privacy::PrivacyOutcome outcome : kPrivacyNoBidOutcomes) {
      privacy_nobids_[static_cast<size_t>(regime)][static_cast<size_t>(outcome)] =
          &families.privacy_nobids.Add(
              {{"regime", std::string(privacy::PrivacyRegimeName(regime))},
               {"outcome", std::string(privacy::PrivacyOutcomeName(outcome))}});
    }
  }
}

void BidMetrics::DeclareDsa(const Families& families) {
  for (size_t i = 0; i < kDsaOutcomeCount; ++i) {
    dsa_[i] = std::make_unique<metrics::ShardedCounter>(
        families.dsa, metrics::Labels{{"outcome", DsaOutcomeName(static_cast<DsaOutcome>(i))}});
  }
}

void BidMetrics::CountPrivacyNoBid(privacy::PrivacyRegime regime, privacy::PrivacyOutcome outcome) {
  if (prometheus::Counter* counter = privacy_nobids(regime, outcome)) counter->Increment();
}

void BidMetrics::CountDsa(DsaOutcome outcome, int count) {
  if (count > 0) dsa_[static_cast<size_t>(outcome)]->Increment(count);
}

void BidMetrics::CountPrivacyDecision(privacy::PrivacyRegime regime,
                                      privacy::PrivacyOutcome outcome) {
  privacy_decisions(regime, outcome).Increment();
}

void BidMetrics::CountRequest(size_t exchange, BidOutcome outcome, double latency_seconds) {
  Exchange& handles = exchanges_[exchange];
  handles.outcomes[static_cast<size_t>(outcome)]->Increment();
  handles.latency->Observe(latency_seconds);
}

void BidMetrics::CountHistoryRead(LookupOutcome outcome) {
  history_reads_[static_cast<size_t>(outcome)]->Increment();
}

void BidMetrics::CountLookup(size_t exchange, LookupOutcome outcome) {
  lookups_[static_cast<size_t>(outcome)]->Increment();
  if (outcome == LookupOutcome::kTimeout) exchanges_[exchange].profile_timeouts->Increment();
}

void BidMetrics::DeclareCampaigns(const std::vector<config::CampaignConfig>& by_position) {
  for (size_t i = 0; i < by_position.size() && i < capacity_; ++i) {
    if (price_sum_[i].load(std::memory_order_relaxed) != nullptr) continue;
    const std::string& id = by_position[i].id;
    for (size_t x = 0; x < exchanges_.size(); ++x) {
      campaign_series_.push_back(std::make_unique<metrics::ShardedCounter>(
          *bids_family_, metrics::Labels{{"exchange", exchange_names_[x]}, {"campaign", id}}));
      exchanges_[x].bids[i].store(campaign_series_.back().get(), std::memory_order_release);
    }
    const std::string policy = config::StoreOutagePolicyName(by_position[i].store_outage_policy);
    outage_withheld_[i].store(
        &outage_family_->Add({{"campaign", id}, {"policy", policy}, {"decision", "withheld"}}),
        std::memory_order_release);
    outage_allowed_[i].store(
        &outage_family_->Add({{"campaign", id}, {"policy", policy}, {"decision", "allowed"}}),
        std::memory_order_release);
    campaign_series_.push_back(std::make_unique<metrics::ShardedCounter>(
        *price_sum_family_, metrics::Labels{{"campaign", id}}));
    price_sum_[i].store(campaign_series_.back().get(), std::memory_order_release);
  }
}

void BidMetrics::CountStoreOutageDecision(size_t campaign, bool withheld) {
  if (campaign >= capacity_) return;
  if (prometheus::Counter* counter = (withheld ? outage_withheld_ : outage_allowed_)[campaign].load(
          std::memory_order_acquire)) {
    counter->Increment();
  }
}

void BidMetrics::CountBid(size_t exchange, size_t campaign, double price_cpm) {
  if (campaign >= capacity_) return;
  if (metrics::ShardedCounter* bids =
          exchanges_[exchange].bids[campaign].load(std::memory_order_acquire)) {
    bids->Increment();
  }
  if (metrics::ShardedCounter* sum = price_sum_[campaign].load(std::memory_order_acquire)) {
    sum->Increment(price_cpm);
  }
}

void BidMetrics::CountIgnored(size_t exchange, const openrtb::IgnoredInRequest& ignored,
                              bool unknown_taxonomy) {
  Exchange& handles = exchanges_[exchange];
  const auto add = [&](Ignored what, int32_t count) {
    if (count > 0) handles.ignored[static_cast<size_t>(what)]->Increment(count);
  };
  add(Ignored::kExtNotObject, ignored.ext_not_object);
  add(Ignored::kUnknownField, ignored.unknown_fields);
  add(Ignored::kUnknownValue, ignored.unknown_values);
  add(Ignored::kUnusableNativeRequest, ignored.unusable_native_requests);
  add(Ignored::kUnknownTaxonomy, unknown_taxonomy ? 1 : 0);
}

void BidMetrics::CountUnusedMalformedGpp(size_t exchange) {
  exchanges_[exchange].ignored[static_cast<size_t>(Ignored::kUnusedMalformedGpp)]->Increment();
}

}  // namespace rtb::bidder
