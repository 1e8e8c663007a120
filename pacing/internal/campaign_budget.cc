#include "pacing/internal/campaign_budget.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rtb::pacing::internal {

absl::StatusOr<std::vector<CampaignBudget>> CampaignBudgets(
    const std::vector<config::CampaignConfig>& campaigns) {
  std::vector<CampaignBudget> budgets;
  budgets.reserve(campaigns.size());
  for (size_t i = 0; i < campaigns.size(); ++i) {
    const config::CampaignConfig& campaign = campaigns[i];
    const std::string where = absl::StrCat("campaigns[", i, "] (", campaign.id, ")");
    // The shard rows are id|NN: an id holding '|' would read another
    // campaign's shards.
    if (campaign.id.empty() || campaign.id.find('|') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": a campaign id must be non-empty and hold no '|'"));
    }
    if (campaign.daily_budget_micros <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": daily_budget_micros must be > 0"));
    }
    absl::StatusOr<CampaignDay> day = CampaignDay::ForZone(campaign.time_zone);
    if (!day.ok()) {
      return absl::Status(day.status().code(),
                          absl::StrCat(where, ": ", std::string(day.status().message())));
    }
    budgets.push_back(CampaignBudget{.id = campaign.id,
                                     .daily_budget_micros = campaign.daily_budget_micros,
                                     .mode = campaign.pacing_mode,
                                     .day = *std::move(day)});
  }
  return budgets;
}

}  // namespace rtb::pacing::internal
