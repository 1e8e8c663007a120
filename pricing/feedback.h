// The beacon side of pricing: what win and loss notices and engagement
// events count for the fitter (rows: internal/pricing_rows.h).
//
//   RecordNotice      a win notice (nurl) or loss notice (lurl) of a bid
//                     that carried a pricing bucket (first-price bids): one
//                     Increment of the bucket's row for the bid's hour that
//                     marks the bid as noticed (at its price bin) and counts
//                     the outcome at the bin of our bid price, or, when the
//                     exchange gave the minimum bid to win
//                     (${AUCTION_MIN_TO_WIN}), at the bin of that price; a
//                     win also adds its clearing price (${AUCTION_PRICE}).
//                     A loss counts as an outcome only for a price reason
//                     (${AUCTION_LOSS} 100-103: under the floor, outbid, lost
//                     to a deal) or when the exchange left the reason out;
//                     other losses (invalid bid, blocked seat, creative
//                     filtered...) say nothing about the price. Bids that get
//                     no notice at all count as price losses (the bid
//                     path's tally, pricing/pricer.h).
//   RecordEngagement  an impression (once per impression id), a first click
//                     or a conversion of a campaign: one Increment of the
//                     campaign's sharded counters for the event's UTC day.
//
// Both are best effort: the rates and curves are statistics, so a failed
// count is counted (bidder_pricing_feedback_failures_total) and dropped,
// never retried and never failing the beacon. Increments carry a nonce from
// the notice's or event's id, so a replayed beacon counts once where the
// store keeps nonces (the embedded engine, for 30 minutes; not Thrift2).
//
// Prices are converted to USD with bid.currency_rates; a currency without a
// rate is not counted.
//
// Thread-safety: safe from any number of threads (the store is).
#ifndef RTB_PRICING_FEEDBACK_H_
#define RTB_PRICING_FEEDBACK_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/store.h"

namespace rtb::pricing {

class Pricer;

namespace internal {
class FeedbackMetrics;
}  // namespace internal

// What one win or loss notice says.
struct AuctionNotice {
  std::string_view exchange;  // the beacon's exchange name
  std::string_view campaign_id;
  uint64_t bucket = 0;  // the bid's pricing bucket; 0: the notice counts nothing
  bool won = false;
  double bid_cpm = 0;  // our bid, in bid_currency
  std::string_view bid_currency;
  // ${AUCTION_PRICE} of a win, in clearing_currency ("" = bid_currency).
  std::optional<double> clearing_cpm;
  std::string_view clearing_currency;
  // ${AUCTION_MIN_TO_WIN}, in bid_currency, when the exchange gave it.
  std::optional<double> min_to_win_cpm;
  std::string_view loss_reason;  // ${AUCTION_LOSS}; "" when not given
  int64_t bid_time_ms = 0;       // the signed bid time: picks the hour row
  // Unique per notice and the same on its replays (e.g. the impression id).
  std::string_view notice_id;
};

enum class Engagement { kImpression, kClick, kConversion };

class PricingFeedback {
 public:
  // `store` must hold the `pricing` table and outlive this; `pricer` (may be
  // null) gets the per-campaign figures; `registry` may be null. Throws only
  // on a metric name clash, a start-up error.
  PricingFeedback(const config::BidderConfig& config, storage::Store& store, const Pricer* pricer,
                  prometheus::Registry* registry);
  ~PricingFeedback();
  PricingFeedback(const PricingFeedback&) = delete;
  PricingFeedback& operator=(const PricingFeedback&) = delete;

  void RecordNotice(const AuctionNotice& notice);
  void RecordEngagement(std::string_view campaign_id, Engagement kind, int64_t event_ms,
                        std::string_view event_id);

  // Whether a loss for `reason` (${AUCTION_LOSS}) is a loss on price.
  static bool IsPriceLoss(std::string_view reason);
  // The Increment a notice makes; nullopt when it counts nothing.
  std::optional<storage::Increment> NoticeIncrement(const AuctionNotice& notice) const;

 private:
  // `amount` of `currency` in USD; nullopt without a rate.
  std::optional<double> ToUsd(double amount, std::string_view currency) const;
  // A win's clearing price in USD: ${AUCTION_PRICE} when plausible, else our
  // bid (what a first-price win pays).
  std::optional<double> ClearingUsd(const AuctionNotice& notice) const;

  storage::Store& store_;
  const Pricer* pricer_;
  std::map<std::string, double, std::less<>> usd_per_unit_;
  absl::flat_hash_map<std::string, size_t> exchanges_;
  std::unique_ptr<internal::FeedbackMetrics> metrics_;
};

}  // namespace rtb::pricing

#endif  // RTB_PRICING_FEEDBACK_H_
