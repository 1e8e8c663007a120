// Metrics of the bid decision, declared once at start-up; the request path
// only increments handles it looks up by index. Label sets are bounded: the
// exchanges and campaigns of the config, and the fixed outcome names below.
//
//   bidder_bid_requests_total{exchange,outcome}  bid requests answered, by outcome
//   bidder_bid_latency_seconds{exchange}         first byte read -> response handed to the server
//   bidder_profile_lookups_total{outcome}        hit|miss|timeout|error|stale|skipped
//   bidder_profile_timeouts_total{exchange}      the lookups above that timed out, by exchange
//   bidder_device_history_reads_total{outcome}   reads of a device's engagement history (for
//                                                cpc and cpa values): hit (some day found),
//                                                miss, timeout, error, stale, skipped
//   bidder_bids_total{exchange,campaign}         bids made (one per impression bid on)
//   bidder_bid_price_cpm_total{campaign}         sum of bid prices, CPM in bid.default_currency
//   bidder_privacy_decisions_total{regime,outcome}
//                                                one per valid request: the privacy
//                                                decision (bidder/privacy/privacy_decision.h
//                                                names the labels)
//   bidder_privacy_nobids_total{regime,outcome}  the requests answered nobid_privacy, by the
//                                                decision that refused them: the reason of
//                                                the privacy no-bids (outcome one of
//                                                kPrivacyNoBidOutcomes)
//   bidder_dsa_decisions_total{outcome}          what the DSA signal (regs.ext.dsa) did:
//                                                per bid made, required_and_supplied
//                                                (dsarequired 2 or 3, ext.dsa attached),
//                                                supported_and_supplied (1, attached),
//                                                supported_not_supplied (1, nothing to
//                                                attach), not_required (no signal or 0);
//                                                per impression and candidate campaign,
//                                                required_missing_campaign_skipped (2 or 3
//                                                and the campaign cannot supply ext.dsa)
//   bidder_bid_requests_ignored_total{exchange,what}
//                                                what valid requests carried that the bidder
//                                                ignored rather than refused (OpenRTB asks
//                                                bidders to tolerate them): ext_not_object,
//                                                unknown_field, unknown_value (each counted
//                                                per occurrence), unusable_native_request
//                                                (per impression), unknown_taxonomy (per
//                                                request whose cattax the tables do not hold),
//                                                unused_malformed_gpp (per request whose GPP
//                                                string or section is malformed where gpp_sid
//                                                does not apply it: PrivacyDecision)
//   bidder_store_outage_decisions_total{campaign,policy,decision}
//       candidates that met their store_outage_policy because the profile
//       could not be read: decision "withheld" (no bid) or "allowed" (bid on
//       the empty profile, if the rest of the auction let it); `policy` is
//       the campaign's configured one
//
// Request outcomes: "bid"; "invalid" (400); "late" (the auction finished
// after the deadline, answered 204); "nobid_<reason>" (204), the reason being
// one of: expired (no time left on arrival), coppa (regs.coppa=1 under the
// no-bid policy), currency (no acceptable currency), no_candidates (no
// campaign offers the formats, country, device type or deals), privacy (the
// request's privacy signals allow no bid; bidder_privacy_nobids_total says
// why),
// seat, blocked, targeting, segments, dsa, creative, floor, store_outage (the
// profile could not be read and the campaigns' store_outage_policy withheld
// them), frequency_cap, pacing (the furthest stage a candidate reached, see
// bidder/auction.h), error (an internal error writing the response).
//
// A stale lookup (answered by a secondary replica) counts as "stale", not as
// hit or miss; its data is used.
//
// The series counted on every request (requests, latency, lookups, history
// reads, bids, price sums, privacy decisions, DSA) are counted per thread
// (metrics/sharded.h): read them through metrics::Collect or their handle's
// Value/Collect.
//
// Thread-safety: every handle is safe to update from any thread.
#ifndef RTB_BIDDER_BID_BID_METRICS_H_
#define RTB_BIDDER_BID_BID_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "bidder/openrtb/openrtb.h"
#include "bidder/privacy/privacy_decision.h"
#include "config/config.h"
#include "metrics/sharded.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace rtb::bidder {

enum class BidOutcome : size_t {
  kBid,
  kInvalid,
  kLate,
  kNoBidExpired,
  kNoBidCoppa,
  kNoBidCurrency,
  kNoBidNoCandidates,
  kNoBidPrivacy,
  kNoBidInsecure,
  kNoBidSchedule,
  kNoBidSeat,
  kNoBidBlocked,
  kNoBidTargeting,
  kNoBidSegments,
  kNoBidDsa,
  kNoBidCreative,
  kNoBidFloor,
  kNoBidFrequencyCap,
  kNoBidPacing,
  kNoBidStoreOutage,
  kNoBidError,
};
inline constexpr size_t kBidOutcomeCount = 21;
// "bid", "invalid", "late", "nobid_expired", ...
const char* BidOutcomeName(BidOutcome outcome);

enum class LookupOutcome : size_t { kHit, kMiss, kTimeout, kError, kStale, kSkipped };
inline constexpr size_t kLookupOutcomeCount = 6;
const char* LookupOutcomeName(LookupOutcome outcome);

// Label values of bidder_bid_requests_ignored_total{what}.
enum class Ignored : size_t {
  kExtNotObject,
  kUnknownField,
  kUnknownValue,
  kUnusableNativeRequest,
  kUnknownTaxonomy,
  kUnusedMalformedGpp,
};
inline constexpr size_t kIgnoredCount = 6;
const char* IgnoredName(Ignored what);

// The privacy outcomes that refuse the bid: the `outcome` values of
// bidder_privacy_nobids_total (a decision with another outcome never makes
// a privacy no-bid).
inline constexpr privacy::PrivacyOutcome kPrivacyNoBidOutcomes[] = {
    privacy::PrivacyOutcome::kMalformed,
    privacy::PrivacyOutcome::kMissingConsent,
    privacy::PrivacyOutcome::kOutdatedPolicy,
    privacy::PrivacyOutcome::kNoBasicAds,
};

// Label values of bidder_dsa_decisions_total{outcome}.
enum class DsaOutcome : size_t {
  kNotRequired,
  kSupportedNotSupplied,
  kSupportedAndSupplied,
  kRequiredAndSupplied,
  kRequiredMissingCampaignSkipped,
};
inline constexpr size_t kDsaOutcomeCount = 5;
const char* DsaOutcomeName(DsaOutcome outcome);

class BidMetrics {
 public:
  // Declares the families in `registry` (which must outlive this) with one
  // series per exchange x outcome, exchange x campaign and per campaign, so every series exists
  // (at 0) from the start. Throws only on a name clash with a metric of
  // another type, a start-up error.
  // Campaign series exist for `campaigns`; `campaign_capacity` positions are
  // held in all (at least campaigns.size()), for campaigns added while
  // running (DeclareCampaigns).
  BidMetrics(prometheus::Registry& registry, const std::vector<config::ExchangeConfig>& exchanges,
             const std::vector<config::CampaignConfig>& campaigns, size_t campaign_capacity = 0);

  // Declares the series of the campaigns at positions without any yet
  // (by_position[i] is campaign i; positions never change their id; the
  // store outage series carry the policy the campaign had then). Positions
  // past the capacity are ignored. Call from one thread at a time; the bid
  // path may count meanwhile.
  void DeclareCampaigns(const std::vector<config::CampaignConfig>& by_position);

  // `exchange` is a position in config.server.exchanges, `campaign` the
  // campaign's position (bidder/bid/internal/campaign_index.h). A campaign
  // without series is not counted.
  void CountRequest(size_t exchange, BidOutcome outcome, double latency_seconds);
  void CountLookup(size_t exchange, LookupOutcome outcome);
  void CountHistoryRead(LookupOutcome outcome);
  void CountBid(size_t exchange, size_t campaign, double price_cpm);
  void CountPrivacyDecision(privacy::PrivacyRegime regime, privacy::PrivacyOutcome outcome);
  // A request answered nobid_privacy, by the decision that refused it.
  void CountPrivacyNoBid(privacy::PrivacyRegime regime, privacy::PrivacyOutcome outcome);
  void CountDsa(DsaOutcome outcome, int count = 1);
  // What one parsed request carried that was ignored; `unknown_taxonomy`:
  // its cattax is one the taxonomy tables do not hold.
  void CountIgnored(size_t exchange, const openrtb::IgnoredInRequest& ignored,
                    bool unknown_taxonomy);
  // A request whose malformed GPP string or section decided nothing
  // (privacy::PrivacyDecision::unused_malformed_gpp).
  void CountUnusedMalformedGpp(size_t exchange);
  void CountStoreOutageDecision(size_t campaign, bool withheld);

  // The handles, for tests and the telemetry writer.
  metrics::ShardedCounter& requests(size_t exchange, BidOutcome outcome) {
    return *exchanges_[exchange].outcomes[static_cast<size_t>(outcome)];
  }
  metrics::ShardedHistogram& latency(size_t exchange) { return *exchanges_[exchange].latency; }
  metrics::ShardedCounter& lookups(LookupOutcome outcome) {
    return *lookups_[static_cast<size_t>(outcome)];
  }
  metrics::ShardedCounter& history_reads(LookupOutcome outcome) {
    return *history_reads_[static_cast<size_t>(outcome)];
  }
  prometheus::Counter& profile_timeouts(size_t exchange) {
    return *exchanges_[exchange].profile_timeouts;
  }
  metrics::ShardedCounter& bids(size_t exchange, size_t campaign) {
    return *exchanges_[exchange].bids[campaign].load(std::memory_order_acquire);
  }
  metrics::ShardedCounter& price_sum(size_t campaign) {
    return *price_sum_[campaign].load(std::memory_order_acquire);
  }
  metrics::ShardedCounter& privacy_decisions(privacy::PrivacyRegime regime,
                                             privacy::PrivacyOutcome outcome) {
    return *privacy_decisions_[static_cast<size_t>(regime)][static_cast<size_t>(outcome)];
  }

  // Null for an outcome that is not in kPrivacyNoBidOutcomes.
  prometheus::Counter* privacy_nobids(privacy::PrivacyRegime regime,
                                      privacy::PrivacyOutcome outcome) {
    return privacy_nobids_[static_cast<size_t>(regime)][static_cast<size_t>(outcome)];
  }
  metrics::ShardedCounter& dsa(DsaOutcome outcome) { return *dsa_[static_cast<size_t>(outcome)]; }

  prometheus::Counter& ignored(size_t exchange, Ignored what) {
    return *exchanges_[exchange].ignored[static_cast<size_t>(what)];
  }

  prometheus::Counter& store_outage_decisions(size_t campaign, bool withheld) {
    return *(withheld ? outage_withheld_ : outage_allowed_)[campaign].load(
        std::memory_order_acquire);
  }

  // Seconds: 50 µs to 250 ms, dense around the 0.1-10 ms where bids live.
  static prometheus::Histogram::BucketBoundaries LatencyBuckets();

 private:
  // Every family of the bid path, registered by RegisterFamilies.
  struct Families;
  static Families RegisterFamilies(prometheus::Registry& registry);
  void DeclareExchanges(const std::vector<config::ExchangeConfig>& exchanges,
                        const Families& families);
  void DeclareLookups(const Families& families);
  void DeclarePrivacyDecisions(const Families& families);
  void DeclareDsa(const Families& families);

  struct Exchange {
    std::array<std::unique_ptr<metrics::ShardedCounter>, kBidOutcomeCount> outcomes;
    std::unique_ptr<metrics::ShardedHistogram> latency;
    prometheus::Counter* profile_timeouts = nullptr;
    // By campaign position; null until declared (owned by campaign_series_).
    std::unique_ptr<std::atomic<metrics::ShardedCounter*>[]> bids;
    std::array<prometheus::Counter*, kIgnoredCount> ignored{};
  };

  std::vector<Exchange> exchanges_;
  std::array<std::unique_ptr<metrics::ShardedCounter>, kLookupOutcomeCount> lookups_;
  std::array<std::unique_ptr<metrics::ShardedCounter>, kLookupOutcomeCount> history_reads_;
  size_t capacity_ = 0;
  // The campaigns' sharded series, which the atomic positions point to.
  std::vector<std::unique_ptr<metrics::ShardedCounter>> campaign_series_;
  // By campaign position, null until declared.
  std::unique_ptr<std::atomic<metrics::ShardedCounter*>[]> price_sum_;
  std::unique_ptr<std::atomic<prometheus::Counter*>[]> outage_withheld_;
  std::unique_ptr<std::atomic<prometheus::Counter*>[]> outage_allowed_;
  prometheus::Family<prometheus::Counter>* bids_family_ = nullptr;
  prometheus::Family<prometheus::Counter>* price_sum_family_ = nullptr;
  prometheus::Family<prometheus::Counter>* outage_family_ = nullptr;
  std::vector<std::string> exchange_names_;
  // [regime][outcome], in the order of the enums' values.
  std::array<
      std::array<std::unique_ptr<metrics::ShardedCounter>, std::size(privacy::kPrivacyOutcomes)>,
      std::size(privacy::kPrivacyRegimes)>
      privacy_decisions_;
  // [regime][outcome]; null where the outcome is never a no-bid.
  std::array<std::array<prometheus::Counter*, std::size(privacy::kPrivacyOutcomes)>,
             std::size(privacy::kPrivacyRegimes)>
      privacy_nobids_{};
  std::array<std::unique_ptr<metrics::ShardedCounter>, kDsaOutcomeCount> dsa_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_BID_METRICS_H_
