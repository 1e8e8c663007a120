#include "pricing/internal/value_estimator.h"

#include <algorithm>

namespace rtb::pricing::internal {

double ShrunkRate(int64_t events, int64_t trials, double prior_mean, double prior_weight) {
  const double e = static_cast<double>(std::max<int64_t>(events, 0));
  const double t = static_cast<double>(std::max<int64_t>(trials, 0));
  const double rate = (e + prior_weight * prior_mean) / (t + prior_weight);
  return std::clamp(rate, 0.0, 1.0);
}

double CampaignCtr(const config::CampaignGoalConfig& goal, const config::PricingConfig& pricing,
                   int64_t impressions, int64_t clicks) {
  return ShrunkRate(clicks, impressions, goal.prior_ctr,
                    pricing.campaign_prior_events / goal.prior_ctr);
}

double CampaignCvr(const config::CampaignGoalConfig& goal, const config::PricingConfig& pricing,
                   int64_t clicks, int64_t conversions) {
  return ShrunkRate(conversions, clicks, goal.prior_cvr,
                    pricing.campaign_prior_events / goal.prior_cvr);
}

double ImpressionValue(const config::CampaignGoalConfig& goal, double max_bid_cpm, double ctr,
                       double cvr) {
  double value = max_bid_cpm;
  switch (goal.type) {
    case config::CampaignGoal::kCpm:
      break;
    case config::CampaignGoal::kCpc:
      value = 1000 * goal.target_cpc * ctr;
      break;
    case config::CampaignGoal::kCpa:
      value = 1000 * goal.target_cpa * ctr * cvr;
      break;
  }
  return std::min(value, max_bid_cpm);
}

}  // namespace rtb::pricing::internal
