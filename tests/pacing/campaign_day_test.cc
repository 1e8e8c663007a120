#include "pacing/internal/campaign_day.h"

#include "gtest/gtest.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

using testing::UnixMillis;

TEST(CampaignDayTest, UnknownZoneIsNotFound) {
  absl::StatusOr<CampaignDay> day = CampaignDay::ForZone("Mars/Olympus_Mons");
  EXPECT_EQ(day.status().code(), absl::StatusCode::kNotFound);
}

TEST(CampaignDayTest, NewYorkDayRollsAtLocalMidnightNotUtc) {
  absl::StatusOr<CampaignDay> day = CampaignDay::ForZone("America/New_York");
  ASSERT_TRUE(day.ok()) << day.status();
  // 2026-10-04 00:00 EDT is 04:00 UTC.
  const int64_t midnight = UnixMillis(absl::CivilSecond(2026, 10, 4, 4, 0, 0), "UTC");
  EXPECT_EQ(day->DayAt(midnight - 1), absl::CivilDay(2026, 10, 3));
  EXPECT_EQ(day->DayAt(midnight), absl::CivilDay(2026, 10, 4));
  EXPECT_EQ(day->StartMillis(absl::CivilDay(2026, 10, 4)), midnight);
  EXPECT_EQ(day->EndMillis(absl::CivilDay(2026, 10, 3)), midnight);
}

TEST(CampaignDayTest, HalfHourZoneRollsAtItsOwnMidnight) {
  absl::StatusOr<CampaignDay> day = CampaignDay::ForZone("Asia/Kolkata");
  ASSERT_TRUE(day.ok()) << day.status();
  // 2026-10-04 00:00 IST is 2026-10-03 18:30 UTC.
  const int64_t midnight = UnixMillis(absl::CivilSecond(2026, 10, 3, 18, 30, 0), "UTC");
  EXPECT_EQ(day->DayAt(midnight - 1), absl::CivilDay(2026, 10, 3));
  EXPECT_EQ(day->DayAt(midnight), absl::CivilDay(2026, 10, 4));
}

TEST(CampaignDayTest, DaylightSavingDaysLast23And25Hours) {
  absl::StatusOr<CampaignDay> day = CampaignDay::ForZone("America/New_York");
  ASSERT_TRUE(day.ok()) << day.status();
  constexpr int64_t kHour = 3600 * 1000;
  const absl::CivilDay spring(2026, 3, 8);
  const absl::CivilDay autumn(2026, 11, 1);
  EXPECT_EQ(day->EndMillis(spring) - day->StartMillis(spring), 23 * kHour);
  EXPECT_EQ(day->EndMillis(autumn) - day->StartMillis(autumn), 25 * kHour);
  EXPECT_EQ(
      day->EndMillis(absl::CivilDay(2026, 10, 4)) - day->StartMillis(absl::CivilDay(2026, 10, 4)),
      24 * kHour);
}

// Where a zone skips midnight itself (Santiago springs forward at 24:00),
// the day starts at the first instant that exists.
TEST(CampaignDayTest, SkippedMidnightStartsTheDayAtTheTransition) {
  absl::StatusOr<CampaignDay> day = CampaignDay::ForZone("America/Santiago");
  ASSERT_TRUE(day.ok()) << day.status();
  const absl::CivilDay spring(2026, 9, 6);
  const int64_t start = day->StartMillis(spring);
  EXPECT_EQ(day->DayAt(start), spring);
  EXPECT_EQ(day->DayAt(start - 1), spring - 1);
}

}  // namespace
}  // namespace rtb::pacing::internal
