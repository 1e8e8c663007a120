// One fit of the pricing model from the `pricing` table: every bucket's
// win-rate curve from the notices of the last pricing.window_hours, each
// exchange's figures over the same window, and every campaign's click and
// conversion rates over the last pricing.rate_window_days.
//
// Reads: per salt, one scan of the window's outcome rows (16 scans, paged);
// per campaign, one scan of its 16 engagement rows. Buckets are fitted
// (internal/curve_fitter.h) when they hold at least pricing.min_samples
// outcomes (wins, and price losses noticed or not: a bid the bidders
// counted without a notice is a loss, so an exchange that sends no loss
// notices still shows them). Bids count that way only once their hour has
// been over for 5 minutes, so notices still travelling are not taken for
// losses; until then only the notices of that hour count. At most pricing.max_buckets buckets,
// those with the most outcomes first.
//
// Thread-safety: one thread per instance.
#ifndef RTB_PRICING_INTERNAL_SHADING_FITTER_H_
#define RTB_PRICING_INTERNAL_SHADING_FITTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/config.h"
#include "pricing/internal/curve_fitter.h"
#include "pricing/internal/model_codec.h"
#include "storage/store.h"

namespace rtb::pricing::internal {

class ShadingFitter {
 public:
  // `store` must outlive this.
  ShadingFitter(const config::BidderConfig& config, storage::Store& store);

  // The model as of `now_ms` (computed_at_ms = now_ms). Fails when a read
  // fails; nothing is written.
  absl::StatusOr<PricingModel> Fit(int64_t now_ms);

 private:
  // Bid counts and notice marks of hours from `unsettled_hour` on are left
  // out: their notices may still be on their way.
  absl::Status ReadOutcomes(uint32_t first_hour, uint32_t last_hour, uint32_t unsettled_hour,
                            std::vector<std::pair<uint64_t, BucketOutcomes>>* buckets);
  absl::Status ReadRates(int64_t now_ms, PricingModel* model);

  config::PricingConfig options_;
  std::vector<config::CampaignConfig> campaigns_;
  std::vector<uint64_t> exchange_bits_;
  storage::Store& store_;
  FitOptions fit_options_;
};

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_SHADING_FITTER_H_
