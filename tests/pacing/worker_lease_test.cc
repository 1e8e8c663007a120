// Worker ids leased in the store (pacing/internal/worker_lease.h): Pacers on
// one store never share an id; a configured id a live process holds refuses
// the start after one TTL, a dead holder's is taken once its lease ran out;
// a journal a dead worker left under an id nobody holds is adopted and
// counted on that worker's shard; and a Pacer that loses its lease (taken
// over, or a store that stopped answering) stops bidding and journaling
// before anybody may take the id. On the system clock: a lease's TTL runs in
// the store's time, and these tests need it to pass.
#include "pacing/internal/worker_lease.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "leases/lease.h"
#include "pacing/internal/budget_shard.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/internal/pacing_metrics.h"
#include "pacing/internal/spend_journal.h"
#include "pacing/internal/spend_journal_layout.h"
#include "pacing/pacer.h"
#include "storage/schemas.h"
#include "tests/pacing/pacing_test_support.h"
#include "tests/storage/hooked_store.h"

namespace rtb::pacing {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr int kTtlMs = 3000;

class WorkerLeaseTest : public ::testing::Test {
 protected:
  WorkerLeaseTest() : temp_(storage::SystemClock()) {}

  config::BidderConfig Config(int worker_id) {
    config::BidderConfig config =
        testing::PacingOnlyConfig({testing::Campaign("c1", 1000000000)}, worker_id);
    config.pacing.worker_lease_ttl_ms = kTtlMs;
    // The loop's steps (where a lost id is taken back) come often.
    config.pacing.flush_interval_ms = 200;
    return config;
  }

  static PacerOptions Options(std::string holder) {
    PacerOptions options;
    options.lease_holder = std::move(holder);
    return options;
  }

  // Options whose on_worker_id_lost counts into given_up_.
  PacerOptions GivingUpCounted(std::string holder) {
    PacerOptions options = Options(std::move(holder));
    options.on_worker_id_lost = [this] { ++given_up_; };
    return options;
  }

  // The store, with lease writes that hang while pause_ is set (a paused
  // store); bounded, so that a failing test still ends.
  void SetUp() override {
    paused_.SetWriteHook([this](std::string_view table, std::string_view) {
      for (int i = 0; i < 2000 && pause_.load() && table == storage::kLeasesTable; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return absl::OkStatus();
    });
  }

  // What a worker killed before its flush leaves: a journal entry whose
  // impression claim landed, under `worker_id`, and the lease it held.
  void LeftByAKilledWorker(int worker_id, int64_t micros, int64_t lease_ms_left) {
    prometheus::Registry registry;
    internal::PacingMetrics metrics(&registry, {"c1"}, {1000000000}, true);
    auto campaigns = internal::CampaignBudgets({testing::Campaign("c1", 1000000000)});
    ASSERT_TRUE(campaigns.ok()) << campaigns.status();
    internal::WorkerSpendJournal journal(worker_id, *campaigns, temp_.store(), metrics);
    absl::StatusOr<SpendJournalEntry> entry =
        journal.Begin(0, micros, "imp-orphan", testing::kNoon);
    ASSERT_TRUE(entry.ok()) << entry.status();
    storage::Put claim;
    claim.row = "imp-orphan";
    claim.values.push_back({std::string(storage::kImpressionFamily),
                            std::string(storage::kImpressionJournalColumn), entry->key,
                            std::nullopt});
    ASSERT_TRUE(temp_.store().Put(storage::kImpressionsTable, claim).ok());
    journal.Commit(*entry);
    if (lease_ms_left > 0) {
      storage::Put lease;
      lease.row = internal::WorkerLeaseName(worker_id);
      lease.values.push_back({std::string(storage::kLeasesFamily), "h",
                              "0123456789abcdef@gone:1 killed", std::nullopt});
      lease.ttl_ms = lease_ms_left;
      ASSERT_TRUE(temp_.store().Put(storage::kLeasesTable, lease).ok());
    }
  }

  int64_t Stored(int worker, const std::string& qualifier) {
    storage::Get get;
    get.row = internal::BudgetShardRow("c1", internal::ShardOf(worker));
    auto row = temp_.store().Get(storage::kBudgetTable, get);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() ? row->Counter("spend", qualifier).value_or(0) : -1;
  }

  testing::TempStore temp_;
  rtb::testing::HookedStore paused_{temp_.store()};
  std::atomic<bool> pause_ = false;
  std::atomic<int> given_up_ = 0;
};

TEST_F(WorkerLeaseTest, AutoIdsAreDistinctAndNamedInTheStore) {
  auto first =
      Pacer::Create(Config(config::kAutoWorkerId), temp_.store(), nullptr, Options("rtb-bidder A"));
  auto second =
      Pacer::Create(Config(config::kAutoWorkerId), temp_.store(), nullptr, Options("rtb-bidder B"));
  ASSERT_TRUE(first.ok() && second.ok()) << first.status() << second.status();
  EXPECT_EQ((*first)->worker_id(), 0);
  EXPECT_EQ((*second)->worker_id(), 1);
  EXPECT_EQ(*leases::Lease::HolderOf(temp_.store(), "worker/0"), "rtb-bidder A");
  EXPECT_EQ(*leases::Lease::HolderOf(temp_.store(), "worker/1"), "rtb-bidder B");
  first->reset();
  EXPECT_EQ(*leases::Lease::HolderOf(temp_.store(), "worker/0"), "")
      << "a clean stop frees the id at once";
}

TEST_F(WorkerLeaseTest, AConfiguredIdALiveProcessHoldsRefusesTheStartAfterOneTtl) {
  auto live = leases::Lease::Take(temp_.store(), "worker/5", "rtb-bidder 10.0.0.7:8080",
                                  {.ttl_ms = kTtlMs, .renew_every_ms = kTtlMs / 3});
  ASSERT_TRUE(live.ok()) << live.status();
  const Clock::time_point start = Clock::now();
  auto pacer = Pacer::Create(Config(5), temp_.store(), nullptr, Options("rtb-bidder B"));
  EXPECT_EQ(pacer.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(pacer.status().message()),
              HasSubstr("pacing.worker_id 5 is in use by a live process"));
  EXPECT_THAT(std::string(pacer.status().message()), HasSubstr("rtb-bidder 10.0.0.7:8080"));
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(kTtlMs))
      << "a dead holder's lease is waited out first";
}

TEST_F(WorkerLeaseTest, AKilledHoldersIdIsTakenOnceItsLeaseRanOutAndItsJournalRecovered) {
  LeftByAKilledWorker(5, 4321, kTtlMs);
  const Clock::time_point start = Clock::now();
  auto pacer = Pacer::Create(Config(5), temp_.store(), nullptr, Options("rtb-bidder B"));
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(kTtlMs - 500));
  EXPECT_EQ((*pacer)->worker_id(), 5);
  ASSERT_TRUE((*pacer)->Start().ok());
  (*pacer)->Stop();
  EXPECT_EQ(Stored(5, "20261004"), 4321);
}

TEST_F(WorkerLeaseTest, AnOrphanedJournalIsAdoptedCountedOnItsOwnShardAndReleased) {
  LeftByAKilledWorker(7, 1234, /*lease_ms_left=*/0);
  auto pacer =
      Pacer::Create(Config(config::kAutoWorkerId), temp_.store(), nullptr, Options("rtb-bidder B"));
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  EXPECT_EQ((*pacer)->worker_id(), 0);
  (*pacer)->FlushNow();
  EXPECT_EQ(Stored(7, "20261004"), 1234) << "on the dead worker's shard";
  EXPECT_GT(Stored(7, internal::PositionQualifier(7)), 0) << "and its position moved";
  EXPECT_TRUE((*pacer)->adopted_worker_ids().empty()) << "its only entry was claimed: done";
  EXPECT_EQ(*leases::Lease::HolderOf(temp_.store(), "worker/7"), "") << "released once done";
  EXPECT_EQ(Stored(0, "20261004"), 0) << "nothing on the adopter's own shard";
  (*pacer)->FlushNow();
  EXPECT_EQ(Stored(7, "20261004"), 1234) << "counted once";
}

TEST_F(WorkerLeaseTest, AnOrphanStillLeasedIsLeftUntilItsLeaseRunsOut) {
  LeftByAKilledWorker(7, 1234, kTtlMs);
  auto pacer =
      Pacer::Create(Config(config::kAutoWorkerId), temp_.store(), nullptr, Options("rtb-bidder B"));
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  (*pacer)->FlushNow();
  EXPECT_TRUE((*pacer)->adopted_worker_ids().empty());
  EXPECT_EQ(Stored(7, "20261004"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(kTtlMs + 100));
  (*pacer)->FlushNow();
  (*pacer)->FlushNow();
  EXPECT_EQ(Stored(7, "20261004"), 1234);
}

TEST_F(WorkerLeaseTest, ATakenOverIdStopsBiddingAndJournalingAndIsGivenUp) {
  auto pacer = Pacer::Create(Config(3), temp_.store(), nullptr, GivingUpCounted("rtb-bidder A"));
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  ASSERT_TRUE((*pacer)->Start().ok());
  EXPECT_TRUE((*pacer)->decisions().MayBid(0, 0.0));
  // As if this process had been cut off past its TTL and another had taken
  // the id: the next renewal finds another holder.
  storage::Put taken_over;
  taken_over.row = "worker/3";
  taken_over.values.push_back({std::string(storage::kLeasesFamily), "h",
                               "fedcba9876543210@other:2 rtb-bidder B", std::nullopt});
  taken_over.ttl_ms = kTtlMs;
  ASSERT_TRUE(temp_.store().Put(storage::kLeasesTable, taken_over).ok());
  for (int i = 0; i < 100 && given_up_.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(given_up_.load(), 1) << "the id is another's: the process is told to go";
  EXPECT_FALSE((*pacer)->holds_worker_id());
  EXPECT_FALSE((*pacer)->decisions().MayBid(0, 0.0));
  EXPECT_EQ((*pacer)->journal()->Begin(0, 100, "imp-late", testing::kNoon).status().code(),
            absl::StatusCode::kFailedPrecondition);
  (*pacer)->Stop();
  EXPECT_EQ(*leases::Lease::HolderOf(temp_.store(), "worker/3"), "rtb-bidder B")
      << "a lost lease is not released: it is the other holder's";
}

// The store pauses (its lease writes hang) for longer than the TTL: the
// Pacer stops bidding before the store could give the id to anybody else,
// and, the store back with nobody having used the id, takes its lease back
// and bids again, without being told to go.
TEST_F(WorkerLeaseTest, AStorePausedPastTheTtlStopsBiddingInTimeAndItResumesAfter) {
  auto pacer = Pacer::Create(Config(4), paused_, nullptr, GivingUpCounted("rtb-bidder A"));
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  ASSERT_TRUE((*pacer)->Start().ok());
  pause_ = true;
  const Clock::time_point paused_at = Clock::now();
  while ((*pacer)->holds_worker_id() && Clock::now() - paused_at < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto stopped_after = Clock::now() - paused_at;
  ASSERT_FALSE((*pacer)->holds_worker_id()) << "the lease was never given up";
  EXPECT_FALSE((*pacer)->decisions().MayBid(0, 0.0));
  EXPECT_LE(stopped_after, std::chrono::milliseconds(kTtlMs)) << "within one TTL of the pause";
  // The store still holds the lease (its expiry is later): nobody could
  // have taken the id while this process was still bidding under it.
  EXPECT_EQ(*leases::Lease::HolderOf(temp_.store(), "worker/4"), "rtb-bidder A");
  std::printf("store paused: bidding stopped after %lld ms (TTL %d ms)\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(stopped_after).count()),
              kTtlMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(kTtlMs));
  pause_ = false;
  for (int i = 0; i < 100 && !(*pacer)->holds_worker_id(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE((*pacer)->holds_worker_id()) << "taken back once the store answered";
  for (int i = 0; i < 100 && !(*pacer)->decisions().MayBid(0, 0.0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE((*pacer)->decisions().MayBid(0, 0.0));
  EXPECT_TRUE((*pacer)->journal()->Begin(0, 100, "imp-after", testing::kNoon).ok());
  EXPECT_EQ(given_up_.load(), 0);
  (*pacer)->Stop();
}

// Somebody recovered the id's journal while this process had lost its lease
// (an orphan adopter): this incarnation's view of its journal is stale, so
// it gives the id up instead of counting anything twice.
TEST_F(WorkerLeaseTest, AnIdUsedByAnotherWhileLostIsGivenUp) {
  auto pacer = Pacer::Create(Config(6), paused_, nullptr, GivingUpCounted("rtb-bidder A"));
  ASSERT_TRUE(pacer.ok()) << pacer.status();
  ASSERT_TRUE((*pacer)->Start().ok());
  pause_ = true;
  while ((*pacer)->holds_worker_id()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(kTtlMs));
  // Another process adopts worker 6 meanwhile: the first thing it writes
  // is a block of sequences reserved on the id's counter.
  storage::Increment reserve;
  reserve.row = internal::JournalCounterRow(6);
  reserve.columns.push_back({std::string(storage::kSpendJournalCounterFamily), "seq", 1000});
  ASSERT_TRUE(temp_.store().Increment(storage::kSpendJournalTable, reserve).ok());
  pause_ = false;
  for (int i = 0; i < 100 && given_up_.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(given_up_.load(), 1);
  EXPECT_FALSE((*pacer)->holds_worker_id());
  (*pacer)->Stop();
}

}  // namespace
}  // namespace rtb::pacing
