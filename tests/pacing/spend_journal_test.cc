#include "pacing/internal/spend_journal.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "pacing/internal/budget_shard.h"
#include "pacing/internal/spend_flusher.h"
#include "pacing/internal/spend_journal_layout.h"
#include "tests/pacing/metric_reader.h"
#include "tests/pacing/pacing_test_support.h"

namespace rtb::pacing::internal {
namespace {

using testing::FaultyStore;
using testing::MetricValue;

constexpr int kWorker = 19;  // budget shard 03

class SpendJournalTest : public ::testing::Test {
 protected:
  SpendJournalTest()
      : clock_(std::make_shared<storage::ManualClock>(testing::kNoon)),
        temp_(clock_),
        faulty_(temp_.store()) {
    auto campaigns =
        CampaignBudgets({testing::Campaign("c0", 1000000000), testing::Campaign("c1", 1000000000)});
    EXPECT_TRUE(campaigns.ok()) << campaigns.status();
    campaigns_ = *std::move(campaigns);
    metrics_ = std::make_unique<PacingMetrics>(&registry_, std::vector<std::string>{"c0", "c1"},
                                               std::vector<int64_t>{1000000000, 1000000000}, true);
  }

  // A new incarnation of the worker: journal, recorder and flusher, as a
  // restarted process builds them.
  void Incarnate(uint64_t block = 1000) {
    flusher_.reset();
    journal_ = std::make_unique<WorkerSpendJournal>(kWorker, campaigns_, faulty_, *metrics_, block);
    recorder_ = std::make_unique<SpendRecorder>(campaigns_.size());
    flusher_ = std::make_unique<SpendFlusher>(kWorker, campaigns_, *recorder_, faulty_, *metrics_,
                                              ++seed_, journal_.get());
  }

  SpendJournalEntry Begin(size_t campaign, int64_t micros, const std::string& impression) {
    absl::StatusOr<SpendJournalEntry> entry =
        journal_->Begin(campaign, micros, impression, testing::kNoon);
    EXPECT_TRUE(entry.ok()) << entry.status();
    return entry.value_or(SpendJournalEntry{});
  }

  // The beacon path's claim: the impression row naming `key`.
  void Claim(const std::string& impression, const std::string& key) {
    storage::Put put;
    put.row = impression;
    put.values.push_back({std::string(storage::kImpressionFamily),
                          std::string(storage::kImpressionJournalColumn), key, std::nullopt});
    ASSERT_TRUE(temp_.store().Put(storage::kImpressionsTable, put).ok());
  }

  bool EntryStored(uint64_t sequence) {
    storage::Get get;
    get.row = JournalEntryRow(kWorker, sequence);
    auto row = temp_.store().Get(storage::kSpendJournalTable, get);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && !row->cells.empty();
  }

  int64_t BudgetCell(const std::string& campaign, const std::string& qualifier) {
    storage::Get get;
    get.row = BudgetShardRow(campaign, ShardOf(kWorker));
    auto row = temp_.store().Get(storage::kBudgetTable, get);
    EXPECT_TRUE(row.ok()) << row.status();
    return row->Counter("spend", qualifier).value_or(0);
  }
  int64_t Spent(const std::string& campaign) { return BudgetCell(campaign, "20261004"); }
  int64_t Position(const std::string& campaign) {
    return BudgetCell(campaign, PositionQualifier(kWorker));
  }

  static int64_t Sum(const CampaignRelease& release) {
    int64_t total = 0;
    for (const DaySpend& d : release.days) total += d.micros;
    return total;
  }

  std::shared_ptr<storage::ManualClock> clock_;
  testing::TempStore temp_;
  FaultyStore faulty_;
  prometheus::Registry registry_;
  std::vector<CampaignBudget> campaigns_;
  std::unique_ptr<PacingMetrics> metrics_;
  std::unique_ptr<WorkerSpendJournal> journal_;
  std::unique_ptr<SpendRecorder> recorder_;
  std::unique_ptr<SpendFlusher> flusher_;
  uint64_t seed_ = 0;
};

TEST_F(SpendJournalTest, LayoutRoundTripsAndKeepsAWorkersEntriesInOrder) {
  const JournalRecord record{.worker_id = 300,
                             .sequence = 77,
                             .campaign_id = "c0",
                             .day = "20261004",
                             .micros = 1234,
                             .impression_id = std::string(16, '\x01')};
  const storage::Put put = JournalEntryPut(record);
  EXPECT_EQ(put.row.size(), kJournalEntryRowBytes);
  EXPECT_EQ(put.durability, storage::Durability::kSyncWal);
  ASSERT_TRUE(temp_.store().Put(storage::kSpendJournalTable, put).ok());
  storage::Get get;
  get.row = put.row;
  auto row = temp_.store().Get(storage::kSpendJournalTable, get);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(DecodeJournalEntry(*row), record);
  EXPECT_FALSE(ParseJournalEntryRow(JournalCounterRow(300)).has_value());
  EXPECT_LT(JournalCounterRow(300), JournalEntryRow(300, 0));
  EXPECT_LT(JournalEntryRow(300, 255), JournalEntryRow(300, 256));
  EXPECT_LT(JournalEntryRow(300, ~0ull), JournalCounterRow(301));
}

TEST_F(SpendJournalTest, WatermarkWaitsForTheOldestEntryInFlight) {
  Incarnate();
  const SpendJournalEntry a = Begin(0, 100, "imp-a");
  const SpendJournalEntry b = Begin(0, 200, "imp-b");
  const SpendJournalEntry c = Begin(1, 400, "imp-c");
  EXPECT_EQ(b.sequence, a.sequence + 1);
  EXPECT_EQ(c.sequence, b.sequence + 1);
  EXPECT_EQ(a.day, "20261004");
  EXPECT_TRUE(EntryStored(a.sequence));
  EXPECT_EQ(journal_->watermark(), a.sequence - 1);

  // c settles first: held back, a and b are still in flight.
  journal_->Commit(c);
  EXPECT_EQ(journal_->watermark(), a.sequence - 1);
  EXPECT_EQ(journal_->Pending(1), 400);
  JournalRelease release = journal_->TakeReleased();
  EXPECT_EQ(release.watermark, a.sequence - 1);
  EXPECT_TRUE(release.campaigns[1].empty());

  journal_->Commit(a);
  EXPECT_EQ(journal_->watermark(), a.sequence);
  release = journal_->TakeReleased();
  EXPECT_EQ(Sum(release.campaigns[0]), 100);
  EXPECT_EQ(release.campaigns[0].sequences, std::vector<uint64_t>{a.sequence});
  EXPECT_TRUE(release.campaigns[1].empty());

  // b abandoned (a duplicate won the claim): its row goes, W passes c.
  journal_->Abandon(b);
  EXPECT_FALSE(EntryStored(b.sequence));
  EXPECT_EQ(journal_->watermark(), c.sequence);
  EXPECT_EQ(journal_->in_flight(), 0u);
  release = journal_->TakeReleased();
  EXPECT_EQ(release.watermark, c.sequence);
  EXPECT_TRUE(release.campaigns[0].empty());
  EXPECT_EQ(Sum(release.campaigns[1]), 400);
  EXPECT_EQ(journal_->Pending(1), 0);
}

TEST_F(SpendJournalTest, BeginRefusesBadInputAndAFailedWriteSettlesItsSequence) {
  Incarnate();
  EXPECT_EQ(journal_->Begin(2, 100, "imp", testing::kNoon).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(journal_->Begin(0, 0, "imp", testing::kNoon).status().code(),
            absl::StatusCode::kInvalidArgument);
  const SpendJournalEntry a = Begin(0, 100, "imp-a");
  faulty_.fail_puts = true;
  EXPECT_FALSE(journal_->Begin(0, 100, "imp-b", testing::kNoon).ok());
  faulty_.fail_puts = false;
  const SpendJournalEntry c = Begin(0, 300, "imp-c");
  EXPECT_EQ(c.sequence, a.sequence + 2);
  journal_->Commit(c);
  journal_->Commit(a);
  // The failed Begin holds nothing back.
  EXPECT_EQ(journal_->watermark(), c.sequence);
  EXPECT_EQ(Sum(journal_->TakeReleased().campaigns[0]), 400);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_journal_entries_total", {{"outcome", "failed"}}),
            1);
}

TEST_F(SpendJournalTest, SequencesComeInBlocksAndARestartNeverReusesOne) {
  Incarnate(/*block=*/3);
  std::vector<uint64_t> sequences;
  for (int i = 0; i < 4; ++i) {
    SpendJournalEntry e = Begin(0, 10, "imp-" + std::to_string(i));
    sequences.push_back(e.sequence);
    journal_->Commit(e);
  }
  EXPECT_EQ(sequences, (std::vector<uint64_t>{1, 2, 3, 4}));
  storage::Get get;
  get.row = JournalCounterRow(kWorker);
  auto counter = temp_.store().Get(storage::kSpendJournalTable, get);
  ASSERT_TRUE(counter.ok());
  EXPECT_EQ(counter->Counter(kJournalCounterFamily, kJournalCounterColumn), 6);
  EXPECT_EQ(journal_->watermark(), 4u);

  Incarnate(/*block=*/3);
  EXPECT_EQ(Begin(0, 10, "imp-next").sequence, 7u);
}

TEST_F(SpendJournalTest, UnsettledEntriesAreDecidedByTheImpressionRow) {
  Incarnate();
  const SpendJournalEntry claimed = Begin(0, 100, "imp-claimed");
  const SpendJournalEntry lost = Begin(0, 200, "imp-lost");
  const SpendJournalEntry later = Begin(0, 400, "imp-later");
  Claim("imp-claimed", claimed.key);  // the claim landed, its answer did not
  journal_->Unsettled(claimed);
  journal_->Unsettled(lost);  // the claim never landed
  journal_->Commit(later);
  EXPECT_EQ(journal_->watermark(), claimed.sequence - 1);

  faulty_.fail_reads = true;
  EXPECT_EQ(journal_->ResolveUnsettled(), 2u);
  EXPECT_EQ(journal_->watermark(), claimed.sequence - 1);
  faulty_.fail_reads = false;
  EXPECT_EQ(journal_->ResolveUnsettled(), 0u);
  EXPECT_EQ(journal_->watermark(), later.sequence);
  const JournalRelease release = journal_->TakeReleased();
  EXPECT_EQ(Sum(release.campaigns[0]), 500);
  EXPECT_EQ(release.campaigns[0].sequences,
            (std::vector<uint64_t>{claimed.sequence, later.sequence}));
  EXPECT_FALSE(EntryStored(lost.sequence));
  EXPECT_TRUE(EntryStored(claimed.sequence));
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_journal_entries_total",
                        {{"outcome", "resolved_committed"}}),
            1);
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_journal_entries_total",
                        {{"outcome", "resolved_abandoned"}}),
            1);
}

TEST_F(SpendJournalTest, FlushMovesThePositionWithTheSpendAndDeletesCountedEntries) {
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  const SpendJournalEntry a = Begin(0, 100, "imp-a");
  const SpendJournalEntry b = Begin(1, 200, "imp-b");
  const SpendJournalEntry c = Begin(0, 400, "imp-c");
  journal_->Commit(a);
  journal_->Commit(c);
  // b is in flight: c waits.
  FlushResult result = flusher_->Flush(testing::kNoon + 1000);
  EXPECT_EQ(result.micros_flushed, 100);
  EXPECT_EQ(Spent("c0"), 100);
  EXPECT_EQ(Position("c0"), static_cast<int64_t>(a.sequence));
  EXPECT_EQ(result.entries_deleted, 1);
  EXPECT_FALSE(EntryStored(a.sequence));
  EXPECT_TRUE(EntryStored(c.sequence));
  // b in flight and c held back by it.
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_journal_waiting_entries", {}), 2);

  journal_->Commit(b);
  result = flusher_->Flush(testing::kNoon + 2000);
  EXPECT_EQ(result.micros_flushed, 600);
  EXPECT_EQ(Spent("c0"), 500);
  EXPECT_EQ(Spent("c1"), 200);
  EXPECT_EQ(Position("c0"), static_cast<int64_t>(c.sequence));
  EXPECT_EQ(Position("c1"), static_cast<int64_t>(c.sequence));
  EXPECT_FALSE(EntryStored(b.sequence));
  EXPECT_FALSE(EntryStored(c.sequence));
  EXPECT_EQ(MetricValue(registry_, "bidder_pacing_journal_waiting_entries", {}), 0);
  // Each flush Increment went with SYNC_WAL: the entries go after it.
  EXPECT_EQ(faulty_.increments.back().durability, storage::Durability::kSyncWal);
}

TEST_F(SpendJournalTest, AnIncrementAppliedWithItsAnswerLostCountsOnce) {
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  const SpendJournalEntry a = Begin(0, 100, "imp-a");
  journal_->Commit(a);
  faulty_.lose_increment_answers = 1;
  EXPECT_EQ(flusher_->Flush(testing::kNoon + 1000).increments_failed, 1);
  EXPECT_EQ(Spent("c0"), 100);
  EXPECT_EQ(flusher_->Unacknowledged(0), 100);
  const SpendJournalEntry b = Begin(0, 200, "imp-b");
  journal_->Commit(b);
  // The next flush reads the position back: the first Increment landed.
  flusher_->Flush(testing::kNoon + 2000);
  EXPECT_EQ(Spent("c0"), 300);
  EXPECT_EQ(flusher_->Unacknowledged(0), 0);

  // One that did not land is sent again with what came since.
  const SpendJournalEntry c = Begin(0, 400, "imp-c");
  journal_->Commit(c);
  faulty_.fail_increments = 1;
  flusher_->Flush(testing::kNoon + 3000);
  EXPECT_EQ(Spent("c0"), 300);
  journal_->Commit(Begin(0, 800, "imp-d"));
  flusher_->Flush(testing::kNoon + 4000);
  flusher_->Flush(testing::kNoon + 5000);
  EXPECT_EQ(Spent("c0"), 1500);
  EXPECT_EQ(flusher_->Unacknowledged(0), 0);
}

// A restart after a crash sees every case an earlier incarnation can leave.
TEST_F(SpendJournalTest, RecoveryCountsClaimedUncountedEntriesOnlyOnce) {
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  const SpendJournalEntry counted = Begin(0, 100, "imp-counted");
  Claim("imp-counted", counted.key);
  journal_->Commit(counted);
  flusher_->Flush(testing::kNoon + 1000);
  ASSERT_EQ(Spent("c0"), 100);
  // Counted, but the crash came before its row was deleted: write it back.
  ASSERT_TRUE(temp_.store()
                  .Put(storage::kSpendJournalTable,
                       JournalEntryPut(JournalRecord{.worker_id = kWorker,
                                                     .sequence = counted.sequence,
                                                     .campaign_id = "c0",
                                                     .day = counted.day,
                                                     .micros = 100,
                                                     .impression_id = "imp-counted"}))
                  .ok());
  const SpendJournalEntry committed = Begin(0, 200, "imp-committed");  // claimed, not flushed
  Claim("imp-committed", committed.key);
  journal_->Commit(committed);
  const SpendJournalEntry in_flight = Begin(1, 400, "imp-in-flight");  // claimed, no answer yet
  Claim("imp-in-flight", in_flight.key);
  const SpendJournalEntry unclaimed = Begin(1, 800, "imp-unclaimed");  // died before the claim
  const SpendJournalEntry duplicate = Begin(1, 1600, "imp-dup");  // another entry won the claim
  Claim("imp-dup", JournalEntryRow(kWorker + 1, 5));
  // Crash: nothing of this incarnation is flushed or settled.

  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  EXPECT_EQ(flusher_->position(0), static_cast<int64_t>(counted.sequence));
  EXPECT_FALSE(EntryStored(counted.sequence));
  // Read once more a flush later before they go.
  EXPECT_TRUE(EntryStored(unclaimed.sequence));
  EXPECT_TRUE(EntryStored(duplicate.sequence));
  EXPECT_TRUE(EntryStored(committed.sequence));
  EXPECT_TRUE(EntryStored(in_flight.sequence));
  EXPECT_EQ(journal_->Pending(0), 200);
  EXPECT_EQ(journal_->Pending(1), 400);
  EXPECT_EQ(
      MetricValue(registry_, "bidder_pacing_journal_entries_total", {{"outcome", "recovered"}}), 2);

  // New spend of this incarnation goes with the recovered one.
  journal_->Commit(Begin(1, 3200, "imp-new"));
  flusher_->Flush(testing::kNoon + 2000);
  EXPECT_EQ(Spent("c0"), 300);
  EXPECT_EQ(Spent("c1"), 3600);
  EXPECT_FALSE(EntryStored(committed.sequence));
  EXPECT_FALSE(EntryStored(in_flight.sequence));
  EXPECT_TRUE(EntryStored(unclaimed.sequence));
  flusher_->Flush(testing::kNoon + 2500);
  EXPECT_FALSE(EntryStored(unclaimed.sequence));
  EXPECT_FALSE(EntryStored(duplicate.sequence));
  EXPECT_EQ(Spent("c1"), 3600);

  // A third incarnation finds nothing left to count.
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  EXPECT_EQ(journal_->Pending(0), 0);
  EXPECT_EQ(journal_->Pending(1), 0);
  flusher_->Flush(testing::kNoon + 3000);
  EXPECT_EQ(Spent("c0"), 300);
  EXPECT_EQ(Spent("c1"), 3600);
}

// The dead process's claim was still queued in the store when the restart
// first read the impression row; it lands before the second read.
TEST_F(SpendJournalTest, AClaimLandingJustAfterRecoveryIsStillCounted) {
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  const SpendJournalEntry late = Begin(0, 700, "imp-late");
  // Crash before the claim was answered.
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  flusher_->Flush(testing::kNoon + 1000);
  EXPECT_EQ(Spent("c0"), 0);
  Claim("imp-late", late.key);
  flusher_->Flush(testing::kNoon + 2000);
  flusher_->Flush(testing::kNoon + 3000);
  EXPECT_EQ(Spent("c0"), 700);
  EXPECT_FALSE(EntryStored(late.sequence));
  // Counted once: a further restart finds nothing.
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  flusher_->Flush(testing::kNoon + 4000);
  flusher_->Flush(testing::kNoon + 5000);
  EXPECT_EQ(Spent("c0"), 700);
}

TEST_F(SpendJournalTest, NothingIsFlushedUntilRecoveryReadsTheStore) {
  Incarnate();
  ASSERT_TRUE(flusher_->Recover().ok());
  const SpendJournalEntry a = Begin(0, 100, "imp-a");
  Claim("imp-a", a.key);
  journal_->Commit(a);
  // Crash; the restart's store reads fail at first.
  Incarnate();
  faulty_.fail_reads = true;
  EXPECT_FALSE(flusher_->Recover().ok());
  const SpendJournalEntry b = Begin(0, 200, "imp-b");
  journal_->Commit(b);
  EXPECT_TRUE(flusher_->Flush(testing::kNoon + 1000).unrecovered);
  EXPECT_EQ(Spent("c0"), 0);
  faulty_.fail_reads = false;
  EXPECT_FALSE(flusher_->Flush(testing::kNoon + 2000).unrecovered);
  EXPECT_EQ(Spent("c0"), 300);
}

}  // namespace
}  // namespace rtb::pacing::internal
