// Per-campaign pricing figures of this process (bids, shading, notices),
// for the console. Each thread adds to its own stripe of counters (threads
// are given stripes round-robin), so the bid path's adds are uncontended
// relaxed atomics: no lock, no allocation.
//
// Thread-safety: Add* from any number of threads; Sum from any thread (a
// sum is a consistent-enough read of counters that only grow).
#ifndef RTB_PRICING_INTERNAL_CAMPAIGN_FIGURES_H_
#define RTB_PRICING_INTERNAL_CAMPAIGN_FIGURES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace rtb::pricing::internal {

class CampaignFigures {
 public:
  static constexpr size_t kStripes = 16;

  explicit CampaignFigures(size_t campaigns);
  CampaignFigures(const CampaignFigures&) = delete;
  CampaignFigures& operator=(const CampaignFigures&) = delete;

  // `factor` is price / value, counted for first-price bids only.
  void AddBid(size_t campaign, bool first_price, double factor);
  void AddNotice(size_t campaign, bool won, double clearing_usd_cpm);

  struct Totals {
    int64_t bids = 0;
    int64_t first_price_bids = 0;
    double factor_sum = 0;
    int64_t wins = 0;
    int64_t price_losses = 0;
    double clearing_sum_usd = 0;
  };
  Totals Sum(size_t campaign) const;

 private:
  enum Counter : size_t {
    kBids,
    kFirstPriceBids,
    kFactorMicros,
    kWins,
    kPriceLosses,
    kClearingMicros,
    kCounters
  };
  std::atomic<int64_t>& At(size_t stripe, size_t campaign, Counter counter) const {
    return counters_[stripe * stride_ + campaign * kCounters + counter];
  }
  static size_t ThreadStripe();

  size_t campaigns_;
  // Counters per stripe, rounded up to whole cache lines.
  size_t stride_;
  std::unique_ptr<std::atomic<int64_t>[]> storage_;
  std::atomic<int64_t>* counters_;  // storage_ aligned to a cache line
};

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_CAMPAIGN_FIGURES_H_
