// config::BiddingSchedule: one reading of campaigns[].schedule for the bid
// path (MayBidAt) and pacing (BiddingMillisBetween), which must agree.
#include "config/bidding_schedule.h"

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rtb::config {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kHourMs = 60 * kMinuteMs;

absl::TimeZone Zone(const char* name) {
  absl::TimeZone zone;
  EXPECT_TRUE(absl::LoadTimeZone(name, &zone)) << name;
  return zone;
}

int64_t LocalMillis(absl::CivilSecond local, absl::TimeZone zone) {
  return absl::ToUnixMillis(absl::FromCivil(local, zone));
}

BiddingSchedule MustBuild(const CampaignScheduleConfig& schedule, absl::TimeZone zone) {
  absl::StatusOr<BiddingSchedule> built = BiddingSchedule::Of(schedule, zone);
  EXPECT_TRUE(built.ok()) << built.status();
  return built.value_or(BiddingSchedule());
}

TEST(BiddingScheduleTest, WithoutAScheduleItBidsAlways) {
  const BiddingSchedule always;
  EXPECT_TRUE(always.MayBidAt(absl::FromUnixMillis(0)));
  EXPECT_EQ(always.BiddingMillisBetween(1000, 5000), 4000);
  EXPECT_EQ(always.BiddingMillisBetween(5000, 1000), 0);
}

TEST(BiddingScheduleTest, TheFlightIsHalfOpen) {
  CampaignScheduleConfig config;
  config.start = "2026-10-05T09:00:00+02:00";
  config.end = "2026-10-05T08:00:00Z";
  const BiddingSchedule schedule = MustBuild(config, absl::UTCTimeZone());
  const int64_t start = LocalMillis(absl::CivilSecond(2026, 10, 5, 7, 0, 0), absl::UTCTimeZone());
  EXPECT_FALSE(schedule.MayBidAt(absl::FromUnixMillis(start - 1)));
  EXPECT_TRUE(schedule.MayBidAt(absl::FromUnixMillis(start)));
  EXPECT_FALSE(schedule.MayBidAt(absl::FromUnixMillis(start + kHourMs)));
  EXPECT_EQ(schedule.BiddingMillisBetween(0, start + 10 * kHourMs), kHourMs);
}

// The week of the end of summer time in Berlin (Sunday 2026-10-25 has 25
// hours): minute by minute, the time MayBidAt allows is what
// BiddingMillisBetween counts, for the week and for each day.
TEST(BiddingScheduleTest, BidTimeAndPacingTimeAgreeAcrossADaylightSavingChange) {
  const absl::TimeZone berlin = Zone("Europe/Berlin");
  CampaignScheduleConfig config;
  config.dayparts.push_back(
      {.days = {"mon", "tue", "wed", "thu", "fri"}, .from_hour = 9, .to_hour = 17});
  config.dayparts.push_back({.days = {"sun"}, .from_hour = 1, .to_hour = 4});
  const BiddingSchedule schedule = MustBuild(config, berlin);
  const int64_t monday = LocalMillis(absl::CivilSecond(2026, 10, 19, 0, 0, 0), berlin);
  const int64_t next_monday = LocalMillis(absl::CivilSecond(2026, 10, 26, 0, 0, 0), berlin);
  ASSERT_EQ(next_monday - monday, (7 * 24 + 1) * kHourMs);
  int64_t allowed = 0;
  int64_t day_allowed = 0;
  int64_t day_start = monday;
  for (int64_t t = monday; t < next_monday; t += kMinuteMs) {
    if (schedule.MayBidAt(absl::FromUnixMillis(t))) {
      allowed += kMinuteMs;
      day_allowed += kMinuteMs;
    }
    const absl::CivilDay day = absl::ToCivilDay(absl::FromUnixMillis(t), berlin);
    const absl::CivilDay next = absl::ToCivilDay(absl::FromUnixMillis(t + kMinuteMs), berlin);
    if (next != day) {
      EXPECT_EQ(schedule.BiddingMillisBetween(day_start, t + kMinuteMs), day_allowed) << day;
      day_start = t + kMinuteMs;
      day_allowed = 0;
    }
  }
  EXPECT_EQ(schedule.BiddingMillisBetween(monday, next_monday), allowed);
  // Five days of 8 hours, and Sunday's 01:00-04:00 with 02:00-03:00 twice.
  EXPECT_EQ(allowed, (5 * 8 + 4) * kHourMs);
}

TEST(BiddingScheduleTest, WhatValidationRefusesIsAnError) {
  CampaignScheduleConfig bad_start;
  bad_start.start = "2026-10-05 09:00";
  EXPECT_THAT(std::string(BiddingSchedule::Of(bad_start, absl::UTCTimeZone()).status().message()),
              HasSubstr("schedule.start 2026-10-05 09:00 is not an RFC 3339 instant"));
  CampaignScheduleConfig bad_day;
  bad_day.dayparts.push_back({.days = {"monday"}, .from_hour = 9, .to_hour = 17});
  EXPECT_THAT(std::string(BiddingSchedule::Of(bad_day, absl::UTCTimeZone()).status().message()),
              HasSubstr("unknown daypart day monday"));
  CampaignScheduleConfig bad_hours;
  bad_hours.dayparts.push_back({.days = {"mon"}, .from_hour = 9, .to_hour = 25});
  EXPECT_EQ(BiddingSchedule::Of(bad_hours, absl::UTCTimeZone()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rtb::config
