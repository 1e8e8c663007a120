#include "pacing/internal/budget_controller.h"

#include <memory>

#include "gtest/gtest.h"
#include "pacing/internal/budget_shard.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

using config::PacingMode;

constexpr int64_t kHourMs = 3600 * 1000;

ControllerOptions Options() {
  ControllerOptions options;
  options.flush_interval_ms = 5000;
  options.controller_interval_ms = 1000;
  options.sliding_window_ms = 300000;
  return options;
}

RateEstimate Rates(double rate, double demand, double max_shard, int active) {
  RateEstimate rates;
  rates.window_rate = rate;
  rates.recent_rate = rate;
  rates.max_shard_rate = max_shard;
  rates.active_shards = active;
  rates.demand = demand;
  return rates;
}

// ---- the rule

TEST(DecideThrottleTest, AsapBidsFullyFarFromTheCap) {
  const ThrottleDecision d = DecideThrottle(PacingMode::kAsap, 1000000000, 100000000, kHourMs,
                                            Rates(1000, 1000, 200, 5), Options());
  EXPECT_FALSE(d.stopped);
  EXPECT_EQ(d.throttle, 1.0);
  // flush 5 s x 200/s x 5 shards, then 1 s of spend until the next decision.
  EXPECT_EQ(d.overspend_bound_micros, 5000);
  EXPECT_EQ(d.reserve_micros, 6000);
}

TEST(DecideThrottleTest, AsapStopsAtTheReserveBelowTheCap) {
  const RateEstimate rates = Rates(1000, 1000, 200, 5);
  const int64_t budget = 1000000;
  EXPECT_FALSE(
      DecideThrottle(PacingMode::kAsap, budget, budget - 6001, kHourMs, rates, Options()).stopped);
  const ThrottleDecision at =
      DecideThrottle(PacingMode::kAsap, budget, budget - 6000, kHourMs, rates, Options());
  EXPECT_TRUE(at.stopped);
  EXPECT_EQ(at.throttle, 0.0);
}

// One worker taking most of the spend makes the bound the highest shard rate
// times the active shards, above flush interval x total rate.
TEST(DecideThrottleTest, SkewedShardsWidenTheBound) {
  const ThrottleDecision d = DecideThrottle(PacingMode::kAsap, 1000000000, 0, kHourMs,
                                            Rates(1000, 1000, 900, 4), Options());
  EXPECT_EQ(d.overspend_bound_micros, 5 * 900 * 4);
}

TEST(DecideThrottleTest, WorkersPollingThePacerAddTheirDelayToTheReserve) {
  ControllerOptions options = Options();
  options.follow_delay_ms = 1000;
  const ThrottleDecision d =
      DecideThrottle(PacingMode::kAsap, 1000000000, 0, kHourMs, Rates(1000, 1000, 200, 5), options);
  EXPECT_EQ(d.reserve_micros, 5000 + 2000);
}

TEST(DecideThrottleTest, EvenSpreadsTheRemainingBudgetOverTheRemainingDay) {
  // Half of 86.4 units spent at noon, 12 h left: 1000 micros/s is the target;
  // demand is 10000 micros/s at throttle 1.
  RateEstimate rates;
  rates.demand = 10000;
  const ThrottleDecision d =
      DecideThrottle(PacingMode::kEven, 86400000, 43200000, 12 * kHourMs, rates, Options());
  EXPECT_FALSE(d.stopped);
  EXPECT_NEAR(d.throttle, 0.1, 1e-9);
}

TEST(DecideThrottleTest, EvenCountsSpendPresumablyUnflushed) {
  // Spending 1000/s now: about 2.5 s of it (2500) is still in memory.
  RateEstimate rates = Rates(1000, 10000, 100, 10);
  const ThrottleDecision d =
      DecideThrottle(PacingMode::kEven, 86400000, 43200000, 12 * kHourMs, rates, Options());
  EXPECT_NEAR(d.throttle, (43200000.0 - 2500) / 43200 / 10000, 1e-9);
}

TEST(DecideThrottleTest, EvenWithUnknownDemandBidsFully) {
  RateEstimate rates;
  const ThrottleDecision d =
      DecideThrottle(PacingMode::kEven, 86400000, 0, 24 * kHourMs, rates, Options());
  EXPECT_EQ(d.throttle, 1.0);
}

TEST(DecideThrottleTest, EvenSpreadsTheLastMinutesOverAtLeastAMinute) {
  RateEstimate rates;
  rates.demand = 1000;
  // 6000 left, 1 s of the day left: spread over 60 s, 100/s, throttle 0.1.
  const ThrottleDecision d =
      DecideThrottle(PacingMode::kEven, 1006000, 1000000, 1000, rates, Options());
  EXPECT_NEAR(d.throttle, 0.1, 1e-9);
}

TEST(DecideThrottleTest, ACampaignAtItsCapIsStoppedWhateverItsRates) {
  RateEstimate none;
  EXPECT_TRUE(DecideThrottle(PacingMode::kAsap, 1000, 1000, kHourMs, none, Options()).stopped);
  EXPECT_TRUE(DecideThrottle(PacingMode::kEven, 1000, 1200, kHourMs, none, Options()).stopped);
}

// A throttle about to rise makes the reserve use the demand at that throttle,
// not the lower rate measured before.
TEST(DecideThrottleTest, ReserveUsesTheRateAtTheThrottleAboutToBePublished) {
  const RateEstimate rates = Rates(100, 10000, 20, 5);
  const ThrottleDecision d =
      DecideThrottle(PacingMode::kAsap, 1000000000, 0, kHourMs, rates, Options());
  EXPECT_EQ(d.overspend_bound_micros, 5 * 10000);
  EXPECT_EQ(d.reserve_micros, 6 * 10000);
}

// ---- the controller over a store

class BudgetControllerTest : public ::testing::Test {
 protected:
  BudgetControllerTest()
      : clock_(std::make_shared<storage::ManualClock>(testing::kNoon)),
        temp_(clock_),
        faulty_(temp_.store()),
        metrics_(nullptr, {}, {}, false) {}

  void Build(std::vector<config::CampaignConfig> campaigns) {
    auto budgets = CampaignBudgets(campaigns);
    ASSERT_TRUE(budgets.ok()) << budgets.status();
    campaigns_ = *std::move(budgets);
    controller_ = std::make_unique<BudgetController>(campaigns_, Options(), faulty_, metrics_);
  }

  void Add(const std::string& campaign, int shard, const std::string& day, int64_t amount) {
    storage::Increment inc;
    inc.row = BudgetShardRow(campaign, shard);
    inc.columns.push_back({"spend", day, amount});
    ASSERT_TRUE(temp_.store().Increment(storage::kBudgetTable, inc).ok());
  }

  // `workers` workers (shards 0..workers-1) each flushing `per_flush` every
  // 5 s, controller ticks every second, for `seconds`.
  void RunSteady(const std::string& campaign, int workers, int64_t per_flush, int seconds,
                 const std::string& day = "20261004") {
    for (int s = 0; s < seconds; ++s) {
      clock_->Advance(1000);
      if ((clock_->NowMillis() - testing::kNoon) % 5000 == 0) {
        for (int w = 0; w < workers; ++w) Add(campaign, w, day, per_flush);
      }
      controller_->Tick(clock_->NowMillis());
    }
  }

  std::shared_ptr<storage::ManualClock> clock_;
  testing::TempStore temp_;
  testing::FaultyStore faulty_;
  PacingMetrics metrics_;
  std::vector<CampaignBudget> campaigns_;
  std::unique_ptr<BudgetController> controller_;
};

TEST_F(BudgetControllerTest, TodaysTotalIsTheSumOfTheSixteenShards) {
  Build({testing::Campaign("c1", 1000000000, PacingMode::kAsap)});
  for (int shard = 0; shard < 16; ++shard) Add("c1", shard, "20261004", 1000 * (shard + 1));
  Add("c1", 3, "20261003", 999999);   // yesterday: not today's spend
  Add("c10", 0, "20261004", 999999);  // another campaign
  EXPECT_EQ(controller_->Tick(testing::kNoon), 0);
  EXPECT_EQ(controller_->decision(0).spent_today_micros, 1000 * 16 * 17 / 2);
  EXPECT_EQ(controller_->decision(0).computed_at_ms, testing::kNoon);
  EXPECT_EQ(controller_->decision(0).day, absl::CivilDay(2026, 10, 4));
}

TEST_F(BudgetControllerTest, RatesComeFromTheFlushesNotTheSampleTimes) {
  Build({testing::Campaign("c1", 1000000000, PacingMode::kAsap)});
  controller_->Tick(testing::kNoon);
  // Four workers at 1000 micros/s each, flushing every 5 s, for longer than
  // the window (so its start is a flush, not the controller's first look).
  RunSteady("c1", 4, 5000, 400);
  const RateEstimate& rates = controller_->decision(0).rates;
  EXPECT_NEAR(rates.window_rate, 4000, 40);
  EXPECT_NEAR(rates.recent_rate, 4000, 40);
  EXPECT_NEAR(rates.max_shard_rate, 1000, 10);
  EXPECT_EQ(rates.active_shards, 4);
  ASSERT_TRUE(rates.demand.has_value());
  EXPECT_NEAR(*rates.demand, 4000, 40);
  EXPECT_EQ(controller_->decision(0).decision.overspend_bound_micros, 5 * 1000 * 4);
  EXPECT_EQ(controller_->decision(0).decision.throttle, 1.0);
}

TEST_F(BudgetControllerTest, AsapStopsBeforeTheCapByTheReserve) {
  // 100000 budget; 4 x 1000/s: reserve = 5 s x 4000 + 1 s x 4000 = 24000.
  Build({testing::Campaign("c1", 100000, PacingMode::kAsap)});
  controller_->Tick(testing::kNoon);
  RunSteady("c1", 4, 5000, 15);  // 60000 spent
  EXPECT_FALSE(controller_->decision(0).decision.stopped);
  RunSteady("c1", 4, 5000, 5);  // 80000 spent: 80000 + 24000 >= 100000
  EXPECT_EQ(controller_->decision(0).spent_today_micros, 80000);
  EXPECT_TRUE(controller_->decision(0).decision.stopped);
  EXPECT_EQ(controller_->decision(0).decision.throttle, 0.0);
}

// A lifetime budget: today may spend what the days before left of it,
// counted over every shard and every day the rows keep (positions skipped).
TEST_F(BudgetControllerTest, ALifetimeBudgetCapsTodayByWhatTheDaysBeforeLeft) {
  config::CampaignConfig lifetime = testing::Campaign("c1", 200000, PacingMode::kAsap);
  lifetime.lifetime_budget_micros = 190000;
  config::CampaignConfig daily_only = testing::Campaign("c2", 200000, PacingMode::kAsap);
  Build({lifetime, daily_only});
  for (const char* id : {"c1", "c2"}) {
    Add(id, 2, "20261003", 30000);
    Add(id, 2, "20261003", 20000);  // a second flush of the same day
    Add(id, 9, "20260915", 40000);
    Add(id, 5, "pos:5", 999999);     // a worker's journal position, not spend
    Add(id, 1, "20261005", 999999);  // a day after today (another zone's clock)
  }
  controller_->Tick(testing::kNoon);
  EXPECT_EQ(controller_->decision(0).spent_lifetime_micros, 90000);
  EXPECT_EQ(controller_->decision(1).spent_lifetime_micros, 0) << "no lifetime budget";
  // 100000 of the lifetime is left for today, below the daily 200000: as a
  // 100000 daily budget, with 4 x 1000/s a reserve of 24000 stops c1 at
  // 80000 spent today; c2 goes on towards its daily cap.
  RunSteady("c1", 4, 5000, 15);
  EXPECT_FALSE(controller_->decision(0).decision.stopped);
  RunSteady("c1", 4, 5000, 5);
  EXPECT_EQ(controller_->decision(0).spent_today_micros, 80000);
  EXPECT_EQ(controller_->decision(0).spent_lifetime_micros, 170000);
  EXPECT_TRUE(controller_->decision(0).decision.stopped);
  clock_->Set(testing::kNoon);
  Build({lifetime, daily_only});
  controller_->Tick(testing::kNoon);
  RunSteady("c2", 4, 5000, 20);
  EXPECT_EQ(controller_->decision(1).spent_today_micros, 80000);
  EXPECT_FALSE(controller_->decision(1).decision.stopped);
}

TEST_F(BudgetControllerTest, EvenThrottleFollowsMeasuredDemand) {
  // A day's budget of 86.4e6 micros is 1000 micros/s at noon with half of it
  // left; four workers could spend 1000 micros/s each at throttle 1, and
  // spend what the published throttle lets through.
  Build({testing::Campaign("c1", 86400000, PacingMode::kEven)});
  Add("c1", 9, "20261004", 43200000);
  controller_->Tick(testing::kNoon);
  for (int s = 0; s < 600; ++s) {
    clock_->Advance(1000);
    if ((clock_->NowMillis() - testing::kNoon) % 5000 == 0) {
      const double throttle = controller_->decision(0).decision.throttle;
      for (int w = 0; w < 4; ++w) Add("c1", w, "20261004", static_cast<int64_t>(5000 * throttle));
    }
    controller_->Tick(clock_->NowMillis());
  }
  const CampaignDecision& d = controller_->decision(0);
  ASSERT_TRUE(d.rates.demand.has_value());
  EXPECT_NEAR(*d.rates.demand, 4000, 200);
  const double left_s = 12 * 3600 - 600;
  const double target = (86400000.0 - d.spent_today_micros) / left_s;
  EXPECT_NEAR(d.decision.throttle, target / 4000, 0.02);
  EXPECT_NEAR(d.rates.window_rate, 1000, 60);
}

// New York's midnight is 04:00 UTC: the campaign's day and its spend reset
// there, and its rate carries on across it.
TEST_F(BudgetControllerTest, DayRollsOverAtTheCampaignsMidnight) {
  Build({testing::Campaign("ny", 200000, PacingMode::kAsap, "America/New_York")});
  const int64_t midnight =
      testing::UnixMillis(absl::CivilSecond(2026, 10, 5, 0, 0, 0), "America/New_York");
  clock_->Set(midnight - 60000);
  const int64_t start = clock_->NowMillis();
  controller_->Tick(start);
  auto flush_all = [&](const std::string& day) {
    for (int w = 0; w < 2; ++w) Add("ny", w, day, 5000);
  };
  for (int s = 1; s <= 120; ++s) {
    clock_->Set(start + s * 1000);
    const int64_t now = clock_->NowMillis();
    // Flushes at each 5 s; the one at midnight books the day that ended.
    if (s % 5 == 0) flush_all(now <= midnight ? "20261004" : "20261005");
    controller_->Tick(now);
    if (now == midnight - 1000) {
      // 24 flushes x 10000 = 110000 + reserve 2 x 1000 x 6 ... close to the cap.
      EXPECT_EQ(controller_->decision(0).day, absl::CivilDay(2026, 10, 4));
    }
  }
  const CampaignDecision& d = controller_->decision(0);
  EXPECT_EQ(d.day, absl::CivilDay(2026, 10, 5));
  EXPECT_EQ(d.spent_today_micros, 12 * 10000);
  // The window starts at the controller's first look, half a flush before
  // what it covers is known: within 3 % until the window slides past it.
  EXPECT_NEAR(d.rates.window_rate, 2000, 60);
  EXPECT_FALSE(d.decision.stopped);
}

TEST_F(BudgetControllerTest, FailedScanKeepsThePreviousDecisionAndItsAge) {
  Build({testing::Campaign("c1", 1000000, PacingMode::kAsap)});
  ASSERT_EQ(controller_->Tick(testing::kNoon), 0);
  faulty_.fail_reads = true;
  EXPECT_EQ(controller_->Tick(testing::kNoon + 1000), 1);
  EXPECT_EQ(controller_->decision(0).computed_at_ms, testing::kNoon);
  faulty_.fail_reads = false;
  EXPECT_EQ(controller_->Tick(testing::kNoon + 2000), 0);
  EXPECT_EQ(controller_->decision(0).computed_at_ms, testing::kNoon + 2000);
}

// A store that is down costs one timeout per tick, not one per campaign.
TEST_F(BudgetControllerTest, AnUnavailableStoreEndsTheTickAtTheFirstScan) {
  Build({testing::Campaign("a", 1000000), testing::Campaign("b", 1000000),
         testing::Campaign("c", 1000000)});
  faulty_.fail_reads = true;
  EXPECT_EQ(controller_->Tick(testing::kNoon), 3);
  EXPECT_EQ(faulty_.scans_sent, 1);
  faulty_.fail_reads = false;
  EXPECT_EQ(controller_->Tick(testing::kNoon + 1000), 0);
  EXPECT_EQ(faulty_.scans_sent, 4);
}

}  // namespace
}  // namespace rtb::pacing::internal
