#include "pacing/internal/campaign_budget.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace rtb::pacing::internal {
namespace {

absl::StatusOr<BiddingHours> BiddingHoursOf(const config::CampaignScheduleConfig& schedule) {
  BiddingHours bidding;
  if (!schedule.start.empty()) {
    std::optional<int64_t> start = config::ScheduleInstantMillis(schedule.start);
    if (!start) return absl::InvalidArgumentError("schedule.start is not an RFC 3339 instant");
    bidding.flight_start_ms = *start;
  }
  if (!schedule.end.empty()) {
    std::optional<int64_t> end = config::ScheduleInstantMillis(schedule.end);
    if (!end) return absl::InvalidArgumentError("schedule.end is not an RFC 3339 instant");
    bidding.flight_end_ms = *end;
  }
  bidding.every_hour = schedule.dayparts.empty();
  for (const config::DaypartConfig& part : schedule.dayparts) {
    for (const std::string& day : part.days) {
      std::optional<int> index = config::ScheduleDayIndex(day);
      if (!index) return absl::InvalidArgumentError(absl::StrCat("unknown daypart day ", day));
      for (int hour = std::max(part.from_hour, 0); hour < std::min(part.to_hour, 24); ++hour) {
        bidding.hours.set(static_cast<size_t>(*index * 24 + hour));
      }
    }
  }
  return bidding;
}

}  // namespace

int64_t CampaignBudget::BiddingMillisBetween(int64_t from_ms, int64_t to_ms) const {
  from_ms = std::max(from_ms, bidding.flight_start_ms);
  to_ms = std::min(to_ms, bidding.flight_end_ms);
  if (to_ms <= from_ms) return 0;
  if (bidding.every_hour) return to_ms - from_ms;
  // Hour by hour in the campaign's zone (a day has 23 to 25 of them).
  int64_t total = 0;
  int64_t at = from_ms;
  while (at < to_ms) {
    const absl::Time time = absl::FromUnixMillis(at);
    const absl::CivilHour local = absl::ToCivilHour(time, day.zone());
    const absl::TimeZone::TimeInfo next_hour = day.zone().At(local + 1);
    const absl::Time next_time =
        next_hour.kind == absl::TimeZone::TimeInfo::SKIPPED ? next_hour.trans : next_hour.pre;
    const int64_t next = std::min(absl::ToUnixMillis(next_time), to_ms);
    // GetWeekday numbers Monday 0 .. Sunday 6, as the dayparts do.
    const int weekday = static_cast<int>(absl::GetWeekday(local));
    if (bidding.hours.test(static_cast<size_t>(weekday * 24 + local.hour()))) total += next - at;
    // A zone transition can repeat an hour; never step backwards.
    at = std::max(next, at + 1);
  }
  return total;
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
    absl::StatusOr<BiddingHours> bidding = BiddingHoursOf(campaign.schedule);
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
