#include "pacing/internal/campaign_budget.h"

#include "gtest/gtest.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

using testing::UnixMillis;

constexpr int64_t kHourMs = 3600 * 1000;

CampaignBudget BudgetOf(config::CampaignConfig campaign) {
  auto budgets = CampaignBudgets({campaign});
  EXPECT_TRUE(budgets.ok()) << budgets.status();
  return budgets.ok() ? budgets->front() : CampaignBudget{};
}

config::CampaignConfig Dayparted(std::string zone, std::vector<std::string> days, int from_hour,
                                 int to_hour) {
  config::CampaignConfig campaign = testing::Campaign("c1", 1000, config::PacingMode::kEven, zone);
  campaign.schedule.dayparts.push_back(
      config::DaypartConfig{.days = std::move(days), .from_hour = from_hour, .to_hour = to_hour});
  return campaign;
}

TEST(CampaignBudgetTest, WithoutAScheduleEveryMillisecondBids) {
  const CampaignBudget budget = BudgetOf(testing::Campaign("c1", 1000));
  EXPECT_EQ(budget.BiddingMillisBetween(1000, 5000), 4000);
  EXPECT_EQ(budget.BiddingMillisBetween(5000, 1000), 0);
}

TEST(CampaignBudgetTest, DaypartsCountOnlyTheirHoursInTheCampaignsZone) {
  const CampaignBudget budget =
      BudgetOf(Dayparted("Europe/Berlin", {"mon", "tue", "wed", "thu", "fri"}, 9, 17));
  // Monday 2026-10-05 in Berlin (UTC+2).
  const int64_t monday = UnixMillis(absl::CivilSecond(2026, 10, 5, 0, 0, 0), "Europe/Berlin");
  EXPECT_EQ(budget.BiddingMillisBetween(monday, monday + 24 * kHourMs), 8 * kHourMs);
  EXPECT_EQ(budget.BiddingMillisBetween(monday + 12 * kHourMs + 30 * 60000, monday + 24 * kHourMs),
            4 * kHourMs + 30 * 60000);
  EXPECT_EQ(budget.BiddingMillisBetween(monday + 17 * kHourMs, monday + 24 * kHourMs), 0);
  // Saturday has no daypart.
  EXPECT_EQ(budget.BiddingMillisBetween(monday + 5 * 24 * kHourMs, monday + 6 * 24 * kHourMs), 0);
}

TEST(CampaignBudgetTest, TheFlightCutsTheBiddingTime) {
  config::CampaignConfig campaign = Dayparted("UTC", {"mon"}, 9, 17);
  campaign.schedule.end = "2026-10-05T15:00:00Z";
  const CampaignBudget budget = BudgetOf(campaign);
  const int64_t monday = UnixMillis(absl::CivilSecond(2026, 10, 5, 0, 0, 0), "UTC");
  EXPECT_EQ(budget.BiddingMillisBetween(monday, monday + 24 * kHourMs), 6 * kHourMs);
  config::CampaignConfig later = testing::Campaign("c1", 1000);
  later.schedule.start = "2026-10-05T20:00:00+02:00";
  EXPECT_EQ(BudgetOf(later).BiddingMillisBetween(monday, monday + 24 * kHourMs), 6 * kHourMs);
}

TEST(CampaignBudgetTest, DaylightSavingHoursCountAsTheyLast) {
  // New York, Sunday 2026-11-01: 01:00-02:00 happens twice.
  const CampaignBudget fall = BudgetOf(Dayparted("America/New_York", {"sun"}, 0, 3));
  const int64_t fall_day = UnixMillis(absl::CivilSecond(2026, 11, 1, 0, 0, 0), "America/New_York");
  EXPECT_EQ(fall.BiddingMillisBetween(fall_day, fall_day + 25 * kHourMs), 4 * kHourMs);
  // Sunday 2026-03-08: 02:00-03:00 does not happen.
  const CampaignBudget spring = BudgetOf(Dayparted("America/New_York", {"sun"}, 0, 4));
  const int64_t spring_day = UnixMillis(absl::CivilSecond(2026, 3, 8, 0, 0, 0), "America/New_York");
  EXPECT_EQ(spring.BiddingMillisBetween(spring_day, spring_day + 23 * kHourMs), 3 * kHourMs);
}

}  // namespace
}  // namespace rtb::pacing::internal
