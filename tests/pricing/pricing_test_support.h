// Test support for pricing: configs with exchanges and campaigns of each
// goal, and models with a curve for one bucket.
#ifndef RTB_TESTS_PRICING_PRICING_TEST_SUPPORT_H_
#define RTB_TESTS_PRICING_PRICING_TEST_SUPPORT_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "config/config.h"
#include "pricing/bucket.h"
#include "pricing/internal/model_codec.h"
#include "pricing/internal/price_grid.h"
#include "pricing/internal/win_curve.h"

namespace rtb::pricing::testing {

inline config::CampaignConfig Campaign(const std::string& id, double max_bid_cpm,
                                       config::CampaignGoal goal = config::CampaignGoal::kCpm) {
  config::CampaignConfig campaign;
  campaign.id = id;
  campaign.currency = "USD";
  campaign.max_bid_cpm = max_bid_cpm;
  campaign.daily_budget_micros = 1000000000;
  campaign.goal.type = goal;
  if (goal == config::CampaignGoal::kCpc) campaign.goal.target_cpc = 2.0;
  if (goal == config::CampaignGoal::kCpa) campaign.goal.target_cpa = 50.0;
  return campaign;
}

// Exchanges "adx" and "openx"; campaigns "cpm" (max 5), "cpc" (max 20,
// target 2 per click), "cpa" (max 20, target 50 per conversion).
inline config::BidderConfig PricingConfig() {
  config::BidderConfig config;
  config.server.exchanges.resize(2);
  config.server.exchanges[0].name = "adx";
  config.server.exchanges[1].name = "openx";
  config.bid.currency_rates = {{"USD", 1.0}, {"EUR", 1.25}};
  config.campaigns.push_back(Campaign("cpm", 5));
  config.campaigns.push_back(Campaign("cpc", 20, config::CampaignGoal::kCpc));
  config.campaigns.push_back(Campaign("cpa", 20, config::CampaignGoal::kCpa));
  return config;
}

inline uint64_t TestBucket(const std::string& exchange = "adx", const std::string& site = "a.com") {
  return BucketOf(ExchangeBucketBits(exchange), InventoryHash('s', site), 1, 300, 250);
}

// A curve of log-normal competition around `median` USD CPM (log-sd
// `sigma`), over +-3 sigma.
inline internal::BucketCurve LogNormalCurve(uint64_t bucket, double median, double sigma) {
  internal::BucketCurve curve;
  curve.bucket = bucket;
  curve.samples = 10000;
  curve.start = internal::BinOf(median * std::exp(-3 * sigma));
  const int end = internal::BinOf(median * std::exp(3 * sigma)) + 1;
  for (int k = curve.start; k <= end; ++k) {
    const double f =
        0.5 * std::erfc(-std::log(internal::Edge(k) / median) / (sigma * std::sqrt(2)));
    curve.values.push_back(static_cast<uint16_t>(std::lround(f * internal::kCurveScale)));
  }
  return curve;
}

}  // namespace rtb::pricing::testing

#endif  // RTB_TESTS_PRICING_PRICING_TEST_SUPPORT_H_
