// What pacing needs of a campaign: its id, daily budget, pacing mode and day.
//
// Thread-safety: plain values.
#ifndef RTB_PACING_INTERNAL_CAMPAIGN_BUDGET_H_
#define RTB_PACING_INTERNAL_CAMPAIGN_BUDGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/config.h"
#include "pacing/internal/campaign_day.h"

namespace rtb::pacing::internal {

struct CampaignBudget {
  std::string id;
  // Micro-units of the campaign's currency, > 0.
  int64_t daily_budget_micros = 0;
  config::PacingMode mode = config::PacingMode::kEven;
  CampaignDay day;
};

// One per campaign, in config order (the campaign index). InvalidArgument for
// a budget <= 0 or an id a shard row cannot hold; NotFound for an unknown
// time zone. The error names the campaign.
absl::StatusOr<std::vector<CampaignBudget>> CampaignBudgets(
    const std::vector<config::CampaignConfig>& campaigns);

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_CAMPAIGN_BUDGET_H_
