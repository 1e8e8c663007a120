// What an impression is worth to a campaign (config/config.h, CampaignGoal),
// and the rates behind it.
//
// Rates are beta-binomial posterior means: a rate estimated from `events`
// out of `trials` with a Beta prior of mean m worth `n` trials is
//   (events + n x m) / (trials + n),
// so short histories stay near the prior and long ones follow their counts.
//   campaign click rate      prior mean goal.prior_ctr, worth
//                            pricing.campaign_prior_events / prior_ctr
//                            impressions (i.e. that many clicks)
//   campaign conversion rate prior mean goal.prior_cvr, worth
//                            campaign_prior_events / prior_cvr clicks
//   device click rate        prior mean the campaign's click rate, worth
//                            pricing.device_prior_impressions impressions
//   device conversion rate   prior mean the campaign's conversion rate,
//                            worth pricing.device_prior_clicks clicks
// A device without history therefore gets the campaign's rates.
//
// Thread-safety: pure functions.
#ifndef RTB_PRICING_INTERNAL_VALUE_ESTIMATOR_H_
#define RTB_PRICING_INTERNAL_VALUE_ESTIMATOR_H_

#include <cstdint>

#include "config/config.h"

namespace rtb::pricing::internal {

// (events + prior_weight x prior_mean) / (trials + prior_weight), in [0, 1].
double ShrunkRate(int64_t events, int64_t trials, double prior_mean, double prior_weight);

// The campaign's own rates from its counts, shrunk toward its goal's priors.
double CampaignCtr(const config::CampaignGoalConfig& goal, const config::PricingConfig& pricing,
                   int64_t impressions, int64_t clicks);
double CampaignCvr(const config::CampaignGoalConfig& goal, const config::PricingConfig& pricing,
                   int64_t clicks, int64_t conversions);

// CPM in the campaign's currency, at most max_bid_cpm: the goal's value of
// one impression with the predicted rates `ctr` (clicks per impression) and
// `cvr` (conversions per click).
double ImpressionValue(const config::CampaignGoalConfig& goal, double max_bid_cpm, double ctr,
                       double cvr);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_VALUE_ESTIMATOR_H_
