// What pacing needs of a campaign: its id, daily budget, pacing mode and day;
// and the hand-over of a changed campaign list to a pacing loop.
//
// Thread-safety: CampaignBudget is a plain value; CampaignUpdates is safe
// from any thread.
#ifndef RTB_PACING_INTERNAL_CAMPAIGN_BUDGET_H_
#define RTB_PACING_INTERNAL_CAMPAIGN_BUDGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/bidding_schedule.h"
#include "config/config.h"
#include "pacing/internal/campaign_day.h"

namespace rtb::pacing::internal {

struct CampaignBudget {
  std::string id;
  // Micro-units of the campaign's currency, > 0.
  int64_t daily_budget_micros = 0;
  // 0: none.
  int64_t lifetime_budget_micros = 0;
  config::PacingMode mode = config::PacingMode::kEven;
  CampaignDay day;
  // When the schedule lets it bid, in its zone (shared with the bid path).
  config::BiddingSchedule bidding;

  // How much of [from_ms, to_ms) the schedule lets the campaign bid, ms:
  // what even pacing spreads the rest of a day's budget over.
  int64_t BiddingMillisBetween(int64_t from_ms, int64_t to_ms) const;
};

// One per campaign, in config order (the campaign index). InvalidArgument for
// a budget <= 0 or an id a shard row cannot hold; NotFound for an unknown
// time zone. The error names the campaign.
absl::StatusOr<std::vector<CampaignBudget>> CampaignBudgets(
    const std::vector<config::CampaignConfig>& campaigns);

// Campaign lists handed to a pacing loop while it runs (by the thread that
// follows the campaigns table), taken by the loop at its next step. A list
// keeps every position of the lists accepted before it (campaigns are only
// appended), so spend counters and decisions never move under a campaign.
class CampaignUpdates {
 public:
  CampaignUpdates(const std::vector<CampaignBudget>& initial, size_t capacity);

  // Accepts `by_position` as the newest list. InvalidArgument for a changed
  // or removed position or a budget the loop cannot use, OutOfRange past the
  // capacity, NotFound for an unknown time zone; nothing changes then.
  absl::Status Offer(const std::vector<config::CampaignConfig>& by_position);
  // The newest list accepted since the last Take, if any.
  std::optional<std::vector<CampaignBudget>> Take();

 private:
  const size_t capacity_;
  absl::Mutex mu_;
  std::vector<std::string> accepted_ids_ ABSL_GUARDED_BY(mu_);
  std::optional<std::vector<CampaignBudget>> pending_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_CAMPAIGN_BUDGET_H_
