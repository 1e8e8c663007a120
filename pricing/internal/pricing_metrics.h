// The pricing module's metrics, declared once; the rest only updates handles.
// Labels are bounded by the config: `exchange` is one of server.exchanges
// (or "other" for a notice naming an exchange no longer configured).
//
// Bid path (Pricer::CountBid, once per bid sent; counted per thread,
// metrics/sharded.h, so read through metrics::Collect):
//   bidder_pricing_bids_total{exchange,outcome}   outcome: second_price,
//       disabled, no_bucket, learning, stale, unshaded, shaded, explored
//   bidder_pricing_shading_factor{exchange}       price / value of first-price
//       bids, histogram 0.2 .. 1
// Beacon side (PricingFeedback):
//   bidder_pricing_notices_total{exchange,kind}   kind: win, price_loss,
//       other_loss (a loss for another reason, not counted in the curves)
//   bidder_pricing_clearing_cpm_total{exchange}   sum of clearing prices of
//       wins, USD CPM (average: divide by notices{kind="win"})
//   bidder_pricing_feedback_failures_total        counts the store refused
// Loop (PricingLoop), over the whole fleet's notices in pricing.window_hours:
//   bidder_pricing_win_rate_ratio{exchange}       wins / (wins + price losses)
//   bidder_pricing_clearing_price_cpm{exchange}   average clearing price, USD
//   bidder_pricing_shaded_buckets{exchange}       buckets with a curve
//   bidder_pricing_model_age_seconds              age of the model the bid path
//       reads (0 before the first)
//   bidder_pricing_fit_seconds                    duration of the last fit
//   bidder_pricing_store_errors_total{operation}  fit_read | model_write |
//       model_read | bid_count_write
//
// Every handle is null without a registry, and the setters then do nothing.
//
// Thread-safety: prometheus-cpp handles are safe from any thread.
#ifndef RTB_PRICING_INTERNAL_PRICING_METRICS_H_
#define RTB_PRICING_INTERNAL_PRICING_METRICS_H_

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/sharded.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace rtb::pricing::internal {

// How a bid's price was chosen (pricing/pricer.h, PriceOutcome), by index.
inline constexpr std::array<std::string_view, 8> kPriceOutcomeNames = {
    "second_price", "disabled", "no_bucket", "learning", "stale", "unshaded", "shaded", "explored"};

enum class NoticeKind : size_t { kWin, kPriceLoss, kOtherLoss, kCount };
enum class PricingStoreOperation : size_t {
  kFitRead,
  kModelWrite,
  kModelRead,
  kBidCountWrite,
  kCount
};

class BidPricingMetrics {
 public:
  // `exchanges`: the names of server.exchanges. Throws only on a name clash
  // (prometheus-cpp), a start-up error.
  BidPricingMetrics(prometheus::Registry* registry, const std::vector<std::string>& exchanges);
  void CountBid(size_t exchange, size_t outcome, bool first_price, double factor);

 private:
  std::vector<std::array<std::unique_ptr<metrics::ShardedCounter>, kPriceOutcomeNames.size()>>
      bids_;
  std::vector<std::unique_ptr<metrics::ShardedHistogram>> factor_;
};

class FeedbackMetrics {
 public:
  // One more label value, "other", follows the configured exchanges.
  FeedbackMetrics(prometheus::Registry* registry, const std::vector<std::string>& exchanges);
  void CountNotice(size_t exchange, NoticeKind kind, double clearing_usd_cpm);
  void CountFailure();

 private:
  std::vector<std::array<prometheus::Counter*, static_cast<size_t>(NoticeKind::kCount)>> notices_;
  std::vector<prometheus::Counter*> clearing_;
  prometheus::Counter* failures_ = nullptr;
};

class LoopMetrics {
 public:
  LoopMetrics(prometheus::Registry* registry, const std::vector<std::string>& exchanges);
  void SetExchange(size_t exchange, double win_rate, double clearing_cpm, int shaded_buckets);
  void SetModelAge(double seconds);
  void SetFitSeconds(double seconds);
  void CountStoreError(PricingStoreOperation operation);

 private:
  std::vector<prometheus::Gauge*> win_rate_;
  std::vector<prometheus::Gauge*> clearing_;
  std::vector<prometheus::Gauge*> shaded_;
  prometheus::Gauge* model_age_ = nullptr;
  prometheus::Gauge* fit_seconds_ = nullptr;
  std::array<prometheus::Counter*, static_cast<size_t>(PricingStoreOperation::kCount)>
      store_errors_{};
};

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_PRICING_METRICS_H_
