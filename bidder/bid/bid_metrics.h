// Metrics of the bid decision, declared once at start-up; the request path
// only increments handles it looks up by index. Label sets are bounded: the
// exchanges and campaigns of the config, and the fixed outcome names below.
//
//   bidder_bid_requests_total{exchange,outcome}  bid requests answered, by outcome
//   bidder_bid_latency_seconds{exchange}         first byte read -> response handed to the server
//   bidder_profile_lookups_total{outcome}        hit|miss|timeout|error|stale|skipped
//   bidder_profile_timeouts_total{exchange}      the lookups above that timed out, by exchange
//   bidder_bids_total{exchange,campaign}         bids made (one per impression bid on)
//   bidder_bid_price_cpm_total{campaign}         sum of bid prices, CPM in bid.default_currency
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
// campaign offers the formats, country, device type or deals), seat, blocked,
// targeting, segments, creative, floor, store_outage (the profile could not
// be read and the campaigns' store_outage_policy withheld them),
// frequency_cap, pacing (the furthest
// stage a candidate reached, see bidder/auction.h), error (an internal
// error writing the response).
//
// A stale lookup (answered by a secondary replica) counts as "stale", not as
// hit or miss; its data is used.
//
// Thread-safety: prometheus-cpp handles are safe to update from any thread.
#ifndef RTB_BIDDER_BID_BID_METRICS_H_
#define RTB_BIDDER_BID_BID_METRICS_H_

#include <array>
#include <cstddef>
#include <vector>

#include "config/config.h"
#include "prometheus/counter.h"
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
  kNoBidSeat,
  kNoBidBlocked,
  kNoBidTargeting,
  kNoBidSegments,
  kNoBidCreative,
  kNoBidFloor,
  kNoBidFrequencyCap,
  kNoBidPacing,
  kNoBidStoreOutage,
  kNoBidError,
};
inline constexpr size_t kBidOutcomeCount = 17;
// "bid", "invalid", "late", "nobid_expired", ...
const char* BidOutcomeName(BidOutcome outcome);

enum class LookupOutcome : size_t { kHit, kMiss, kTimeout, kError, kStale, kSkipped };
inline constexpr size_t kLookupOutcomeCount = 6;
const char* LookupOutcomeName(LookupOutcome outcome);

class BidMetrics {
 public:
  // Declares the families in `registry` (which must outlive this) with one
  // series per exchange x outcome, exchange x campaign and per campaign, so every series exists
  // (at 0) from the start. Throws only on a name clash with a metric of
  // another type, a start-up error.
  BidMetrics(prometheus::Registry& registry, const std::vector<config::ExchangeConfig>& exchanges,
             const std::vector<config::CampaignConfig>& campaigns);

  // `exchange` and `campaign` are positions in the config lists.
  void CountRequest(size_t exchange, BidOutcome outcome, double latency_seconds);
  void CountLookup(size_t exchange, LookupOutcome outcome);
  void CountBid(size_t exchange, size_t campaign, double price_cpm);
  void CountStoreOutageDecision(size_t campaign, bool withheld);

  // The handles, for tests and the telemetry writer.
  prometheus::Counter& requests(size_t exchange, BidOutcome outcome) {
    return *exchanges_[exchange].outcomes[static_cast<size_t>(outcome)];
  }
  prometheus::Histogram& latency(size_t exchange) { return *exchanges_[exchange].latency; }
  prometheus::Counter& lookups(LookupOutcome outcome) {
    return *lookups_[static_cast<size_t>(outcome)];
  }
  prometheus::Counter& profile_timeouts(size_t exchange) {
    return *exchanges_[exchange].profile_timeouts;
  }
  prometheus::Counter& bids(size_t exchange, size_t campaign) {
    return *exchanges_[exchange].bids[campaign];
  }
  prometheus::Counter& price_sum(size_t campaign) { return *campaigns_[campaign].price_sum; }
  prometheus::Counter& store_outage_decisions(size_t campaign, bool withheld) {
    return withheld ? *campaigns_[campaign].outage_withheld : *campaigns_[campaign].outage_allowed;
  }

  // Seconds: 50 µs to 250 ms, dense around the 0.1-10 ms where bids live.
  static prometheus::Histogram::BucketBoundaries LatencyBuckets();

 private:
  struct Exchange {
    std::array<prometheus::Counter*, kBidOutcomeCount> outcomes{};
    prometheus::Histogram* latency = nullptr;
    prometheus::Counter* profile_timeouts = nullptr;
    std::vector<prometheus::Counter*> bids;  // by campaign
  };
  struct Campaign {
    prometheus::Counter* price_sum = nullptr;
    prometheus::Counter* outage_withheld = nullptr;
    prometheus::Counter* outage_allowed = nullptr;
  };

  std::vector<Exchange> exchanges_;
  std::array<prometheus::Counter*, kLookupOutcomeCount> lookups_{};
  std::vector<Campaign> campaigns_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_BID_METRICS_H_
