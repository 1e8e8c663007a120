#include "pacing/pacer.h"

#include <memory>

#include "gtest/gtest.h"
#include "pacing/internal/budget_shard.h"
#include "tests/pacing/metric_reader.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing {
namespace {

using config::PacingMode;
using testing::MetricValue;

class PacerTest : public ::testing::Test {
 protected:
  PacerTest()
      : clock_(std::make_shared<storage::ManualClock>(testing::kNoon)),
        temp_(clock_),
        faulty_(temp_.store()) {}

  PacerOptions Options() {
    PacerOptions options;
    options.clock = clock_;
    options.nonce_seed = 7;
    // The store runs on the manual clock, which would run a lease out.
    options.lease_worker_id = false;
    return options;
  }

  int64_t Stored(const std::string& campaign, int worker, const std::string& day) {
    storage::Get get;
    get.row = internal::BudgetShardRow(campaign, internal::ShardOf(worker));
    auto row = temp_.store().Get(storage::kBudgetTable, get);
    EXPECT_TRUE(row.ok()) << row.status();
    return row->Counter("spend", day).value_or(0);
  }

  std::shared_ptr<storage::ManualClock> clock_;
  testing::TempStore temp_;
  testing::FaultyStore faulty_;
  prometheus::Registry registry_;
};

TEST_F(PacerTest, WorkerIdsAreUniqueWithinAProcess) {
  const config::BidderConfig config = testing::PacingOnlyConfig({testing::Campaign("c1", 1000)}, 3);
  auto first = Pacer::Create(config, temp_.store(), nullptr, Options());
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Pacer::Create(config, temp_.store(), nullptr, Options());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find("worker_id 3"), absl::string_view::npos)
      << second.status();
  auto other = Pacer::Create(testing::PacingOnlyConfig({testing::Campaign("c1", 1000)}, 19),
                             temp_.store(), nullptr, Options());
  EXPECT_TRUE(other.ok()) << other.status();  // same shard (19 mod 16 = 3), other worker
  first->reset();
  auto again = Pacer::Create(config, temp_.store(), nullptr, Options());
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST_F(PacerTest, BadCampaignsAndIntervalsAreRefused) {
  auto zone = Pacer::Create(
      testing::PacingOnlyConfig({testing::Campaign("c1", 1000, PacingMode::kEven, "Nowhere/City")}),
      temp_.store(), nullptr, Options());
  EXPECT_EQ(zone.status().code(), absl::StatusCode::kNotFound);
  auto budget = Pacer::Create(testing::PacingOnlyConfig({testing::Campaign("c1", 0)}),
                              temp_.store(), nullptr, Options());
  EXPECT_EQ(budget.status().code(), absl::StatusCode::kInvalidArgument);
  config::BidderConfig config = testing::PacingOnlyConfig({testing::Campaign("c1", 1000)});
  config.pacing.state_max_age_ms = config.pacing.controller_interval_ms;
  EXPECT_EQ(Pacer::Create(config, temp_.store(), nullptr, Options()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PacerTest, StartPublishesDecisionsAndStopFlushesTheRest) {
  auto pacer = Pacer::Create(
      testing::PacingOnlyConfig({testing::Campaign("c1", 1000000000, PacingMode::kAsap)}, 5),
      temp_.store(), &registry_, Options());
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  EXPECT_FALSE((*pacer)->decisions().MayBid(0, 0.5));
  ASSERT_TRUE((*pacer)->Start().ok());
  EXPECT_TRUE((*pacer)->decisions().MayBid(0, 0.5));
  EXPECT_EQ((*pacer)->Start().code(), absl::StatusCode::kFailedPrecondition);
  (*pacer)->spend().Record(0, 1234);
  (*pacer)->Stop();
  EXPECT_EQ(Stored("c1", 5, "20261004"), 1234);
  (*pacer)->Stop();
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_budget_micros", {{"campaign", "c1"}}), 1e9);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_throttle_ratio", {{"campaign", "c1"}}), 1.0);
  EXPECT_EQ(
      MetricValue(registry_, "bidder_pacing_spend_flushed_micros_total", {{"campaign", "c1"}}),
      1234);
}

TEST_F(PacerTest, RunDueFlushesEveryIntervalAndAtTheCampaignsMidnight) {
  const int64_t midnight =
      testing::UnixMillis(absl::CivilSecond(2026, 10, 5, 0, 0, 0), "America/New_York");
  clock_->Set(midnight - 7000);
  auto pacer = Pacer::Create(
      testing::PacingOnlyConfig(
          {testing::Campaign("ny", 1000000000, PacingMode::kAsap, "America/New_York")}, 2),
      temp_.store(), nullptr, Options());
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  Pacer& p = **pacer;
  p.RunDue();
  p.spend().Record(0, 100);
  clock_->Advance(4999);
  p.RunDue();
  EXPECT_EQ(Stored("ny", 2, "20261004"), 0);
  clock_->Advance(1);  // midnight - 2 s: the regular flush
  p.RunDue();
  EXPECT_EQ(Stored("ny", 2, "20261004"), 100);
  p.spend().Record(0, 20);
  clock_->Advance(2500);  // half a second past midnight: the midnight flush is due
  p.RunDue();
  EXPECT_EQ(Stored("ny", 2, "20261004"), 120);
  EXPECT_EQ(p.NextDueMillis(), midnight + 1500);  // next controller tick
  p.spend().Record(0, 30);
  clock_->Set(midnight + 3000);
  p.RunDue();
  EXPECT_EQ(Stored("ny", 2, "20261005"), 30);
  EXPECT_EQ(Stored("ny", 2, "20261004"), 120);
}

TEST_F(PacerTest, DecisionsOlderThanTheMaxAgeStopBiddingWithMetrics) {
  config::BidderConfig config =
      testing::PacingOnlyConfig({testing::Campaign("c1", 1000000000, PacingMode::kAsap)});
  config.pacing.state_max_age_ms = 3000;
  auto pacer = Pacer::Create(config, faulty_, &registry_, Options());
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  Pacer& p = **pacer;
  p.RunDue();
  EXPECT_TRUE(p.decisions().MayBid(0, 0.5));
  faulty_.fail_reads = true;
  for (int s = 0; s < 2; ++s) {
    clock_->Advance(1000);
    p.RunDue();
  }
  EXPECT_TRUE(p.decisions().MayBid(0, 0.5));
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_state_age_seconds"), 2.0);
  clock_->Advance(1000);
  EXPECT_FALSE(p.decisions().MayBid(0, 0.5));
  p.RunDue();
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_stale_campaigns"), 1.0);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_fail_safe_refusals_total"), 1.0);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_store_errors_total", {{"operation", "scan"}}),
            3.0);
  faulty_.fail_reads = false;
  clock_->Advance(1000);
  p.RunDue();
  EXPECT_TRUE(p.decisions().MayBid(0, 0.5));
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_stale_campaigns"), 0.0);
}

// pacing.mode "pacer": the worker flushes, the service decides, the worker
// follows what the service published; when the service goes away the
// worker's decisions age out.
TEST_F(PacerTest, WorkerFollowsThePacerServiceAndFailsSafeWithoutIt) {
  config::BidderConfig config = testing::PacingOnlyConfig(
      {testing::Campaign("a", 100000, PacingMode::kAsap), testing::Campaign("b", 1000000000)}, 4);
  config.pacing.mode = config::PacingProcessMode::kPacer;
  config.pacing.state_max_age_ms = 10000;
  auto service = PacerService::Create(config, temp_.store(), nullptr, Options());
  ASSERT_TRUE(service.ok()) << service.status();
  auto worker = Pacer::Create(config, temp_.store(), nullptr, Options());
  ASSERT_TRUE(worker.ok()) << worker.status();
  ASSERT_TRUE((*worker)->follows_pacer_service());
  (*service)->RunDue();
  (*worker)->RunDue();
  EXPECT_TRUE((*worker)->decisions().MayBid(0, 0.5));
  EXPECT_TRUE((*worker)->decisions().MayBid(1, 0.5));

  (*worker)->spend().Record(0, 100000);  // the whole budget of "a"
  clock_->Advance(5000);
  (*worker)->RunDue();  // flush, then follow (the service has not run)
  EXPECT_TRUE((*worker)->decisions().MayBid(0, 0.5));
  (*service)->RunDue();
  clock_->Advance(1000);
  (*worker)->RunDue();
  EXPECT_FALSE((*worker)->decisions().MayBid(0, 0.5));
  EXPECT_TRUE((*worker)->decisions().MayBid(1, 0.0));

  // No more decisions: within state_max_age_ms everything stops.
  clock_->Advance(8000);
  (*worker)->RunDue();
  EXPECT_TRUE((*worker)->decisions().MayBid(1, 0.0));
  clock_->Advance(1000);
  (*worker)->RunDue();
  EXPECT_FALSE((*worker)->decisions().MayBid(1, 0.0));
}

// What operators see (GET /api/campaigns): today's spend, the throttle and
// the stop, from the controller in sidecar mode and from the board in pacer
// mode.
TEST_F(PacerTest, CampaignStatusesShowTheLastDecisionInBothModes) {
  config::BidderConfig config = testing::PacingOnlyConfig(
      {testing::Campaign("a", 100000, PacingMode::kAsap), testing::Campaign("b", 1000000000)}, 6);
  auto sidecar = Pacer::Create(config, temp_.store(), nullptr, Options());
  ASSERT_TRUE(sidecar.ok()) << sidecar.status();
  std::vector<CampaignPacingStatus> before = (*sidecar)->CampaignStatuses();
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0].campaign_id, "a");
  EXPECT_EQ(before[0].daily_budget_micros, 100000);
  EXPECT_EQ(before[0].decided_at_ms, 0);  // nothing decided yet

  (*sidecar)->RunDue();
  (*sidecar)->spend().Record(0, 100000);  // the whole budget of "a"
  clock_->Advance(5000);
  (*sidecar)->RunDue();
  std::vector<CampaignPacingStatus> after = (*sidecar)->CampaignStatuses();
  EXPECT_EQ(after[0].spent_today_micros, 100000);
  EXPECT_TRUE(after[0].stopped);
  EXPECT_EQ(after[0].throttle, 0.0);
  EXPECT_EQ(after[0].decided_at_ms, clock_->NowMillis());
  EXPECT_GT(after[0].valid_until_ms, clock_->NowMillis());
  EXPECT_FALSE(after[1].stopped);
  EXPECT_GT(after[1].throttle, 0.0);
  sidecar->reset();

  config.pacing.mode = config::PacingProcessMode::kPacer;
  auto service = PacerService::Create(config, temp_.store(), nullptr, Options());
  ASSERT_TRUE(service.ok()) << service.status();
  auto worker = Pacer::Create(config, temp_.store(), nullptr, Options());
  ASSERT_TRUE(worker.ok()) << worker.status();
  (*service)->RunDue();
  (*worker)->RunDue();
  std::vector<CampaignPacingStatus> followed = (*worker)->CampaignStatuses();
  EXPECT_EQ(followed[0].spent_today_micros, 100000);
  EXPECT_TRUE(followed[0].stopped);
  EXPECT_EQ(followed[0].decided_at_ms, clock_->NowMillis());
  EXPECT_FALSE(followed[1].stopped);
}

TEST_F(PacerTest, UpdatedCampaignsAreDecidedAtTheNextStepAndKeepTheirPositions) {
  PacerOptions options = Options();
  options.campaign_capacity = 3;
  auto pacer = Pacer::Create(
      testing::PacingOnlyConfig({testing::Campaign("c1", 1000000000, PacingMode::kAsap)}, 4),
      temp_.store(), &registry_, options);
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  Pacer& p = **pacer;
  p.RunDue();
  EXPECT_TRUE(p.decisions().MayBid(0, 0.5));
  EXPECT_FALSE(p.decisions().MayBid(1, 0.0)) << "a free position is never decided";
  // Spend the budget is about to be cut below.
  p.spend().Record(0, 5000);
  p.FlushNow();

  // A mid-day cut under today's spend, and a new campaign appended.
  ASSERT_TRUE(p.UpdateCampaigns({testing::Campaign("c1", 4000, PacingMode::kAsap),
                                 testing::Campaign("c2", 1000000000, PacingMode::kAsap)})
                  .ok());
  EXPECT_TRUE(p.decisions().MayBid(0, 0.5)) << "applied by the loop, not the caller";
  clock_->Advance(1);
  p.RunDue();  // well before the next controller period: the update decides now
  EXPECT_FALSE(p.decisions().MayBid(0, 0.0)) << "spent 5000 of a 4000 budget";
  EXPECT_TRUE(p.decisions().MayBid(1, 0.5));
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_budget_micros", {{"campaign", "c1"}}), 4000);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_budget_micros", {{"campaign", "c2"}}), 1e9);
  ASSERT_EQ(p.CampaignStatuses().size(), 2u);
  EXPECT_EQ(p.CampaignStatuses()[1].campaign_id, "c2");
  p.spend().Record(1, 70);
  p.FlushNow();
  EXPECT_EQ(Stored("c2", 4, "20261004"), 70);

  // Positions never move, never vanish, and the capacity holds.
  EXPECT_EQ(
      p.UpdateCampaigns({testing::Campaign("c2", 1000), testing::Campaign("c1", 1000)}).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.UpdateCampaigns({testing::Campaign("c1", 1000)}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.UpdateCampaigns({testing::Campaign("c1", 1000), testing::Campaign("c2", 1000),
                               testing::Campaign("c3", 1000), testing::Campaign("c4", 1000)})
                .code(),
            absl::StatusCode::kOutOfRange);
}

// Pacer mode: rtb-pacer and the workers follow the same campaigns table; a
// budget cut is decided on at the service's next step, and a campaign
// created live is decided by the service and followed by the workers.
TEST_F(PacerTest, PacerServiceAndItsWorkersFollowUpdatedCampaigns) {
  config::BidderConfig config =
      testing::PacingOnlyConfig({testing::Campaign("a", 1000000000, PacingMode::kAsap)}, 8);
  config.pacing.mode = config::PacingProcessMode::kPacer;
  PacerOptions options = Options();
  options.campaign_capacity = 2;
  auto service = PacerService::Create(config, temp_.store(), &registry_, options);
  ASSERT_TRUE(service.ok()) << service.status();
  auto worker = Pacer::Create(config, temp_.store(), nullptr, options);
  ASSERT_TRUE(worker.ok()) << worker.status();
  PacerService& pacer = **service;
  Pacer& w = **worker;
  pacer.RunDue();
  w.RunDue();
  EXPECT_TRUE(w.decisions().MayBid(0, 0.5));
  w.spend().Record(0, 5000);
  w.FlushNow();

  const std::vector<config::CampaignConfig> updated = {
      testing::Campaign("a", 4000, PacingMode::kAsap),
      testing::Campaign("b", 1000000000, PacingMode::kAsap)};
  ASSERT_TRUE(pacer.UpdateCampaigns(updated).ok());
  ASSERT_TRUE(w.UpdateCampaigns(updated).ok());
  clock_->Advance(1);
  pacer.RunDue();  // well before its next period: the update decides now
  EXPECT_FALSE(pacer.decisions().MayBid(0, 0.0)) << "spent 5000 of a 4000 budget";
  EXPECT_TRUE(pacer.decisions().MayBid(1, 0.5));
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_budget_micros", {{"campaign", "a"}}), 4000);
  w.RunDue();
  EXPECT_FALSE(w.decisions().MayBid(0, 0.0));
  EXPECT_TRUE(w.decisions().MayBid(1, 0.5)) << "the appended campaign's decision is followed";
  ASSERT_EQ(w.CampaignStatuses().size(), 2u);
  EXPECT_EQ(w.CampaignStatuses()[0].daily_budget_micros, 4000);
  EXPECT_EQ(w.CampaignStatuses()[1].campaign_id, "b");
  w.spend().Record(1, 70);
  w.FlushNow();
  EXPECT_EQ(Stored("b", 8, "20261004"), 70);

  EXPECT_EQ(
      pacer.UpdateCampaigns({testing::Campaign("b", 1000), testing::Campaign("a", 1000)}).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(pacer
                .UpdateCampaigns({testing::Campaign("a", 1000), testing::Campaign("b", 1000),
                                  testing::Campaign("c", 1000)})
                .code(),
            absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace rtb::pacing
