#include "pacing/internal/budget_shard.h"

#include <memory>

#include "gtest/gtest.h"
#include "pacing/internal/decision_board.h"
#include "storage/schemas.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

TEST(BudgetShardTest, ShardIsWorkerIdModSixteen) {
  EXPECT_EQ(ShardOf(0), 0);
  EXPECT_EQ(ShardOf(7), 7);
  EXPECT_EQ(ShardOf(15), 15);
  EXPECT_EQ(ShardOf(16), 0);
  EXPECT_EQ(ShardOf(17), 1);
  EXPECT_EQ(ShardOf(65535), 15);
}

TEST(BudgetShardTest, RowIsCampaignBarTwoDigitShard) {
  EXPECT_EQ(BudgetShardRow("c8812", 7), "c8812|07");
  EXPECT_EQ(BudgetShardRow("c8812", 0), "c8812|00");
  EXPECT_EQ(BudgetShardRow("c8812", 15), "c8812|15");
  EXPECT_EQ(BudgetShardRow("camp-1", ShardOf(17)), "camp-1|01");
}

TEST(BudgetShardTest, RowRoundTripsAndForeignRowsAreRejected) {
  for (int shard = 0; shard < kBudgetShards; ++shard) {
    EXPECT_EQ(ParseBudgetShardRow(BudgetShardRow("c1", shard), "c1"), shard);
  }
  EXPECT_EQ(ParseBudgetShardRow("c1|16", "c1"), std::nullopt);
  EXPECT_EQ(ParseBudgetShardRow("c10|01", "c1"), std::nullopt);
  EXPECT_EQ(ParseBudgetShardRow("c1|1", "c1"), std::nullopt);
  EXPECT_EQ(ParseBudgetShardRow("c1|a1", "c1"), std::nullopt);
  EXPECT_EQ(ParseBudgetShardRow("c1-01", "c1"), std::nullopt);
}

TEST(BudgetShardTest, DayQualifierIsYyyymmdd) {
  EXPECT_EQ(DayQualifier(absl::CivilDay(2026, 10, 4)), "20261004");
  EXPECT_EQ(DayQualifier(absl::CivilDay(2027, 1, 1)), "20270101");
  EXPECT_EQ(ParseDayQualifier("20261004"), absl::CivilDay(2026, 10, 4));
  EXPECT_EQ(ParseDayQualifier("20260231"), std::nullopt);
  EXPECT_EQ(ParseDayQualifier("2026104"), std::nullopt);
  EXPECT_EQ(ParseDayQualifier("2026-10-"), std::nullopt);
}

TEST(BudgetShardTest, ScanIsBoundedToSixteenRowsAndTwoDays) {
  const storage::Scan scan =
      BudgetShardScan("c1", absl::CivilDay(2026, 10, 4), absl::CivilDay(2026, 10, 3));
  EXPECT_EQ(scan.start_row, "c1|00");
  EXPECT_EQ(scan.stop_row, "c1|16");
  EXPECT_EQ(scan.limit, 16);
  ASSERT_EQ(scan.columns.size(), 2u);
  EXPECT_EQ(scan.columns[0].family, "spend");
  EXPECT_EQ(scan.columns[0].qualifier, "20261004");
  EXPECT_EQ(scan.columns[1].qualifier, "20261003");
}

// In a real store the scan of one campaign must see its 16 shards and nothing
// of campaigns whose ids extend it, nor the decision board row.
TEST(BudgetShardTest, ScanReadsOnlyTheCampaignsShards) {
  auto clock = std::make_shared<storage::ManualClock>(testing::kNoon);
  testing::TempStore temp(clock);
  storage::Store& store = temp.store();
  auto add = [&](const std::string& row, int64_t amount) {
    storage::Increment inc;
    inc.row = row;
    inc.columns.push_back({"spend", "20261004", amount});
    ASSERT_TRUE(store.Increment(storage::kBudgetTable, inc).ok());
  };
  for (int shard = 0; shard < kBudgetShards; ++shard) add(BudgetShardRow("c1", shard), shard + 1);
  add("c10|00", 1000);
  add("c1-x|00", 1000);
  add("c|00", 1000);
  add(std::string(kDecisionBoardRow), 1000);

  auto rows = store.Scan(storage::kBudgetTable, BudgetShardScan("c1", absl::CivilDay(2026, 10, 4),
                                                                absl::CivilDay(2026, 10, 3)));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 16u);
  int64_t total = 0;
  for (const storage::RowResult& row : *rows) {
    ASSERT_TRUE(ParseBudgetShardRow(row.row, "c1").has_value()) << row.row;
    total += row.Counter("spend", "20261004").value_or(0);
  }
  EXPECT_EQ(total, 16 * 17 / 2);
}

}  // namespace
}  // namespace rtb::pacing::internal
