#include "pacing/internal/campaign_budget.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rtb::pacing::internal {
int64_t CampaignBudget::BiddingMillisBetween(int64_t from_ms, int64_t to_ms) const {
  return bidding.BiddingMillisBetween(from_ms, to_ms);
}

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
    if (campaign.lifetime_budget_micros < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": lifetime_budget_micros must be >= 0"));
    }
    absl::StatusOr<CampaignDay> day = CampaignDay::ForZone(campaign.time_zone);
    if (!day.ok()) {
      return absl::Status(day.status().code(),
                          absl::StrCat(where, ": ", std::string(day.status().message())));
    }
    absl::StatusOr<config::BiddingSchedule> bidding =
        config::BiddingSchedule::Of(campaign.schedule, day->zone());
    if (!bidding.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", std::string(bidding.status().message())));
    }
    budgets.push_back(CampaignBudget{.id = campaign.id,
                                     .daily_budget_micros = campaign.daily_budget_micros,
                                     .lifetime_budget_micros = campaign.lifetime_budget_micros,
                                     .mode = campaign.pacing_mode,
                                     .day = *std::move(day),
                                     .bidding = *bidding});
  }
  return budgets;
}

CampaignUpdates::CampaignUpdates(const std::vector<CampaignBudget>& initial, size_t capacity)
    : capacity_(capacity) {
  for (const CampaignBudget& campaign : initial) accepted_ids_.push_back(campaign.id);
}

absl::Status CampaignUpdates::Offer(const std::vector<config::CampaignConfig>& by_position) {
  if (by_position.size() > capacity_) {
    return absl::OutOfRangeError(absl::StrCat(by_position.size(), " campaigns exceed the ",
                                              capacity_, " positions of the pacing loop"));
  }
  absl::StatusOr<std::vector<CampaignBudget>> budgets = CampaignBudgets(by_position);
  if (!budgets.ok()) return budgets.status();
  absl::MutexLock lock(&mu_);
  if (budgets->size() < accepted_ids_.size()) {
    return absl::InvalidArgumentError("campaign positions are never removed");
  }
  for (size_t i = 0; i < accepted_ids_.size(); ++i) {
    if ((*budgets)[i].id != accepted_ids_[i]) {
      return absl::InvalidArgumentError(absl::StrCat("position ", i, " holds campaign ",
                                                     accepted_ids_[i], ", not ", (*budgets)[i].id));
    }
  }
  for (size_t i = accepted_ids_.size(); i < budgets->size(); ++i) {
    accepted_ids_.push_back((*budgets)[i].id);
  }
  pending_ = *std::move(budgets);
  return absl::OkStatus();
}

std::optional<std::vector<CampaignBudget>> CampaignUpdates::Take() {
  absl::MutexLock lock(&mu_);
  std::optional<std::vector<CampaignBudget>> taken;
  taken.swap(pending_);
  return taken;
}

}  // namespace rtb::pacing::internal
