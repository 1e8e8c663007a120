#include "pacing/internal/spend_flusher.h"

#include <memory>

#include "gtest/gtest.h"
#include "pacing/internal/budget_shard.h"
#include "tests/pacing/metric_reader.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

using testing::FaultyStore;
using testing::MetricValue;

class SpendFlusherTest : public ::testing::Test {
 protected:
  SpendFlusherTest()
      : clock_(std::make_shared<storage::ManualClock>(testing::kNoon)),
        temp_(clock_),
        faulty_(temp_.store()) {
    auto campaigns = CampaignBudgets(
        {testing::Campaign("c0", 1000000),
         testing::Campaign("ny", 1000000, config::PacingMode::kEven, "America/New_York"),
         testing::Campaign("idle", 1000000)});
    EXPECT_TRUE(campaigns.ok()) << campaigns.status();
    campaigns_ = *std::move(campaigns);
    metrics_ =
        std::make_unique<PacingMetrics>(&registry_, std::vector<std::string>{"c0", "ny", "idle"},
                                        std::vector<int64_t>{1000000, 1000000, 1000000}, true);
    recorder_ = std::make_unique<SpendRecorder>(campaigns_.size());
    flusher_ = std::make_unique<SpendFlusher>(kWorker, campaigns_, *recorder_, faulty_, *metrics_,
                                              /*nonce_seed=*/42);
  }

  int64_t Stored(const std::string& campaign, const std::string& day) {
    storage::Get get;
    get.row = BudgetShardRow(campaign, ShardOf(kWorker));
    auto row = temp_.store().Get(storage::kBudgetTable, get);
    EXPECT_TRUE(row.ok()) << row.status();
    return row->Counter("spend", day).value_or(0);
  }

  static constexpr int kWorker = 19;  // shard 03
  std::shared_ptr<storage::ManualClock> clock_;
  testing::TempStore temp_;
  FaultyStore faulty_;
  prometheus::Registry registry_;
  std::vector<CampaignBudget> campaigns_;
  std::unique_ptr<PacingMetrics> metrics_;
  std::unique_ptr<SpendRecorder> recorder_;
  std::unique_ptr<SpendFlusher> flusher_;
};

TEST_F(SpendFlusherTest, OneIncrementPerCampaignWithSpendToTheWorkersShard) {
  recorder_->Record(0, 1500);
  recorder_->Record(0, 2500);
  recorder_->Record(1, 700);
  const FlushResult result = flusher_->Flush(testing::kNoon);
  EXPECT_EQ(result.increments_ok, 2);
  EXPECT_EQ(result.increments_failed, 0);
  EXPECT_EQ(result.micros_flushed, 4700);
  ASSERT_EQ(faulty_.increments.size(), 2u);
  EXPECT_EQ(faulty_.increments[0].row, "c0|03");
  EXPECT_EQ(faulty_.increments[1].row, "ny|03");
  ASSERT_EQ(faulty_.increments[0].columns.size(), 1u);
  EXPECT_EQ(faulty_.increments[0].columns[0].family, "spend");
  EXPECT_EQ(faulty_.increments[0].columns[0].qualifier, "20261004");
  EXPECT_EQ(faulty_.increments[0].columns[0].amount, 4000);
  EXPECT_NE(faulty_.increments[0].nonce, 0u);
  EXPECT_NE(faulty_.increments[0].nonce, faulty_.increments[1].nonce);
  EXPECT_EQ(Stored("c0", "20261004"), 4000);
  EXPECT_EQ(Stored("ny", "20261004"), 700);
  EXPECT_EQ(
      MetricValue(registry_, "bidder_pacing_spend_flushed_micros_total", {{"campaign", "c0"}}),
      4000);

  // Nothing recorded since: nothing sent.
  EXPECT_EQ(flusher_->Flush(testing::kNoon + 5000).increments_ok, 0);
  EXPECT_EQ(faulty_.increments.size(), 2u);
}

TEST_F(SpendFlusherTest, FlushAtLocalMidnightBooksTheDayThatEnded) {
  // 2026-10-05 00:00 in New York is 04:00 UTC, still 2026-10-05 in UTC.
  const int64_t ny_midnight =
      testing::UnixMillis(absl::CivilSecond(2026, 10, 5, 0, 0, 0), "America/New_York");
  recorder_->Record(0, 10);
  recorder_->Record(1, 20);
  flusher_->Flush(ny_midnight);
  EXPECT_EQ(Stored("ny", "20261004"), 20);
  EXPECT_EQ(Stored("c0", "20261005"), 10);
  recorder_->Record(1, 30);
  flusher_->Flush(ny_midnight + 1);
  EXPECT_EQ(Stored("ny", "20261004"), 20);
  EXPECT_EQ(Stored("ny", "20261005"), 30);
}

TEST_F(SpendFlusherTest, FailedFlushKeepsItsAmountAndRetriesWithTheSameNonce) {
  faulty_.fail_increments = 1;
  recorder_->Record(0, 100);
  FlushResult first = flusher_->Flush(testing::kNoon);
  EXPECT_EQ(first.increments_failed, 1);
  EXPECT_EQ(flusher_->Unacknowledged(0), 100);
  EXPECT_EQ(Stored("c0", "20261004"), 0);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_flush_failures_total"), 1);

  recorder_->Record(0, 50);
  FlushResult second = flusher_->Flush(testing::kNoon + 5000);
  EXPECT_EQ(second.increments_ok, 2);
  ASSERT_EQ(faulty_.increments.size(), 3u);
  EXPECT_EQ(faulty_.increments[1].nonce, faulty_.increments[0].nonce);
  EXPECT_EQ(faulty_.increments[1].columns[0].amount, 100);
  EXPECT_NE(faulty_.increments[2].nonce, faulty_.increments[0].nonce);
  EXPECT_EQ(faulty_.increments[2].columns[0].amount, 50);
  EXPECT_EQ(flusher_->Unacknowledged(0), 0);
  EXPECT_EQ(Stored("c0", "20261004"), 150);
}

// The store applied the Increment but the answer was lost: the retry carries
// the same nonce, and the store counts it once.
TEST_F(SpendFlusherTest, RetryOfAnIncrementTheStoreAppliedCountsOnce) {
  faulty_.lose_increment_answers = 1;
  recorder_->Record(0, 100);
  EXPECT_EQ(flusher_->Flush(testing::kNoon).increments_failed, 1);
  EXPECT_EQ(Stored("c0", "20261004"), 100);
  EXPECT_EQ(flusher_->Flush(testing::kNoon + 5000).increments_ok, 1);
  EXPECT_EQ(Stored("c0", "20261004"), 100);
}

// While the retry keeps failing, new spend stays in the recorder rather than
// joining an amount the store may already hold.
TEST_F(SpendFlusherTest, NewSpendWaitsInTheRecorderWhileARetryFails) {
  faulty_.fail_increments = 2;
  recorder_->Record(0, 100);
  flusher_->Flush(testing::kNoon);
  recorder_->Record(0, 50);
  FlushResult second = flusher_->Flush(testing::kNoon + 5000);
  EXPECT_EQ(second.increments_failed, 1);
  EXPECT_EQ(recorder_->Pending(0), 50);
  EXPECT_EQ(flusher_->Unacknowledged(0), 100);
  flusher_->Flush(testing::kNoon + 10000);
  EXPECT_EQ(Stored("c0", "20261004"), 150);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_flush_failures_total"), 2);
}

// The first Unavailable ends the flush: the campaigns after it keep their
// spend in the recorder instead of each waiting for a timeout.
TEST_F(SpendFlusherTest, AnUnavailableStoreEndsTheFlushAtTheFirstIncrement) {
  faulty_.fail_increments = 1;
  recorder_->Record(0, 100);
  recorder_->Record(1, 200);
  FlushResult first = flusher_->Flush(testing::kNoon);
  EXPECT_EQ(first.increments_failed, 1);
  EXPECT_EQ(faulty_.increments_sent, 1);
  EXPECT_EQ(flusher_->Unacknowledged(0), 100);
  EXPECT_EQ(recorder_->Pending(1), 200);
  FlushResult second = flusher_->Flush(testing::kNoon + 5000);
  EXPECT_EQ(second.increments_ok, 2);
  EXPECT_EQ(Stored("c0", "20261004"), 100);
  EXPECT_EQ(Stored("ny", "20261004"), 200);
}

}  // namespace
}  // namespace rtb::pacing::internal
