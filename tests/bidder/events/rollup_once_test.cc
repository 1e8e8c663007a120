// EventStore's rollups count an event once across crashes and retries on a
// store without Increment nonces (HBase's Thrift2, storage-server): a crash
// or a store error between the rollup Increment and the timeline's marker,
// then a replay of the event. Built for the embedded store (behind a wrapper
// that strips the nonce, since the embedded engine would otherwise answer
// the replay's Increment from its nonce memory) and for HBase (see
// event_tables.h).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bidder/events/events.h"
#include "bidder/events/internal/keys.h"
#include "gtest/gtest.h"
#include "tests/bidder/events/event_tables.h"
#include "tests/bidder/events/metric_value.h"
#include "tests/storage/hooked_store.h"

namespace rtb::bidder::events::testing {
namespace {

using ::rtb::testing::HookedStore;

// A store without nonce memory, as Thrift2 is: every Increment loses its
// nonce on the way. It can also lose the answer of the next Increment on one
// table (applied, then an error, as a timeout after the server wrote).
class NoNonceStore : public HookedStore {
 public:
  using HookedStore::HookedStore;

  void LoseNextIncrementAnswer(std::string table) { lose_answer_on_ = std::move(table); }

  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    storage::Increment stripped = increment;
    stripped.nonce = 0;
    absl::StatusOr<storage::RowResult> r = HookedStore::Increment(table, stripped);
    if (r.ok() && !lose_answer_on_.empty() && table == lose_answer_on_) {
      lose_answer_on_.clear();
      return absl::DeadlineExceededError("the answer was lost after the increment was applied");
    }
    return r;
  }

 private:
  std::string lose_answer_on_;
};

class RollupOnceTest : public EventTablesTest {
 protected:
  void SetUp() override {
    EventTablesTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    no_nonce_ = std::make_unique<NoNonceStore>(store());
  }

  // A fresh EventStore on the nonce-less store, as a restarted writer has.
  std::unique_ptr<EventStore> Writer() {
    return std::make_unique<EventStore>(*no_nonce_, clock(), nullptr, StoreOptions());
  }

  // The next `crashes` Records die after their rollup Increment(s), at the
  // timeline marker's Put: the first timeline write after an Increment on
  // the rollups.
  void CrashBeforeTheTimelineMarker(int crashes) {
    auto after_rollup = std::make_shared<bool>(false);
    auto left = std::make_shared<int>(crashes);
    const std::string rollups = tables().events.rollups;
    const std::string timeline = tables().events.timeline;
    no_nonce_->SetWriteHook([=](std::string_view table, std::string_view op) {
      if (table == rollups && op == "Increment") *after_rollup = true;
      if (table != timeline || !*after_rollup || *left == 0) return absl::OkStatus();
      *after_rollup = false;
      --*left;
      return absl::UnavailableError("writer crashed after the rollup increment");
    });
  }

  int64_t DayCount(const Event& e) {
    auto r = events_reader().DailyCounts(e.user_key, e.event_time_ms, e.event_time_ms + 1);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || r->empty()) return 0;
    auto it = r->front().counts.find(e.type);
    return it == r->front().counts.end() ? 0 : it->second;
  }

  // The qualifiers of the event's rollup row.
  std::vector<std::string> RollupColumns(const Event& e) {
    std::vector<std::string> q;
    for (const storage::Cell& cell :
         Row(tables().events.rollups, internal::RollupKey(e.user_key, e.event_time_ms)).cells) {
      q.push_back(cell.qualifier);
    }
    return q;
  }

  EventStore& events_reader() {
    if (reader_ == nullptr) {
      reader_ = std::make_unique<EventStore>(store(), clock(), nullptr, StoreOptions());
    }
    return *reader_;
  }

  std::unique_ptr<NoNonceStore> no_nonce_;
  std::unique_ptr<EventStore> reader_;
};

TEST_F(RollupOnceTest, ACrashAfterTheRollupIncrementCountsTheReplayOnce) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, Now() - 1000);
  CrashBeforeTheTimelineMarker(1);
  EXPECT_FALSE(Writer()->Record(e).ok());
  EXPECT_EQ(DayCount(e), 1) << "the increment landed before the crash";

  // The stream worker re-applies the beacon after the restart.
  prometheus::Registry registry;
  ASSERT_TRUE(EventStore(*no_nonce_, clock(), &registry, StoreOptions()).Record(e).ok());
  EXPECT_EQ(DayCount(e), 1);
  EXPECT_EQ(CounterValue(registry, "bidder_events_rollup_recounts_total"), 1);
  ASSERT_TRUE(Writer()->Record(e).ok());
  EXPECT_EQ(DayCount(e), 1) << "a replay of the complete event changes nothing";
  auto last = events_reader().LastEvents(e.user_key, 10);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->size(), 1u);
}

TEST_F(RollupOnceTest, RepeatedCrashesBeforeTheMarkerStillCountOnce) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kImpression, Now() - 1000);
  CrashBeforeTheTimelineMarker(3);
  for (int attempt = 0; attempt < 3; ++attempt) {
    EXPECT_FALSE(Writer()->Record(e).ok());
    EXPECT_EQ(DayCount(e), 1) << "after attempt " << attempt;
  }
  ASSERT_TRUE(Writer()->Record(e).ok());
  EXPECT_EQ(DayCount(e), 1);
}

TEST_F(RollupOnceTest, ALostIncrementAnswerCountsTheRetryOnce) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kConversion, Now() - 1000);
  no_nonce_->LoseNextIncrementAnswer(tables().events.rollups);
  EXPECT_FALSE(Writer()->Record(e).ok());
  EXPECT_EQ(DayCount(e), 1) << "the store applied it; the writer saw an error";
  ASSERT_TRUE(Writer()->Record(e).ok());
  EXPECT_EQ(DayCount(e), 1);
}

TEST_F(RollupOnceTest, OtherEventsOfTheDayAreCountedAsUsual) {
  const int64_t when = Now() - 1000;
  const Event crashed = MakeEvent(UserKey(1), 1, EventType::kClick, when);
  CrashBeforeTheTimelineMarker(1);
  EXPECT_FALSE(Writer()->Record(crashed).ok());
  for (int i = 2; i <= 4; ++i) {
    ASSERT_TRUE(Writer()->Record(MakeEvent(UserKey(1), i, EventType::kClick, when + i)).ok());
  }
  ASSERT_TRUE(Writer()->Record(crashed).ok());
  EXPECT_EQ(DayCount(crashed), 4);
}

TEST_F(RollupOnceTest, ARecordedEventLeavesNoMarkerInTheRollupRow) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kWin, Now() - 1000);
  CrashBeforeTheTimelineMarker(1);
  EXPECT_FALSE(Writer()->Record(e).ok());
  EXPECT_EQ(RollupColumns(e),
            (std::vector<std::string>{internal::RollupMarkerQualifier(e.event_id), "win"}))
      << "the crashed attempt's marker is still there";
  ASSERT_TRUE(Writer()->Record(e).ok());
  EXPECT_EQ(RollupColumns(e), std::vector<std::string>{"win"});
  ASSERT_TRUE(Writer()->Record(MakeEvent(UserKey(1), 2, EventType::kLoss, Now() - 500)).ok());
  EXPECT_EQ(RollupColumns(e), (std::vector<std::string>{"loss", "win"}));
}

TEST_F(RollupOnceTest, AFailedMarkerDeleteLeavesTheEventRecorded) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, Now() - 1000);
  const std::string rollups = tables().events.rollups;
  no_nonce_->SetWriteHook([rollups](std::string_view table, std::string_view op) {
    return table == rollups && op == "Delete" ? absl::UnavailableError("store away")
                                              : absl::OkStatus();
  });
  prometheus::Registry registry;
  EventStore writer(*no_nonce_, clock(), &registry, StoreOptions());
  ASSERT_TRUE(writer.Record(e).ok());
  EXPECT_EQ(CounterValue(registry, "bidder_events_rollup_markers_left_total"), 1);
  EXPECT_EQ(RollupColumns(e).size(), 2u) << "the marker was left behind";
  ASSERT_TRUE(writer.Record(e).ok());
  EXPECT_EQ(CounterValue(registry, "bidder_events_replayed_total"), 1);
  EXPECT_EQ(DayCount(e), 1);
}

TEST_F(RollupOnceTest, RollupReadersSkipMarkerColumns) {
  const int64_t day = (Now() / kDayMs - 1) * kDayMs;
  const Event impression = MakeEvent(UserKey(1), 1, EventType::kImpression, day + 10);
  ASSERT_TRUE(Writer()->Record(impression).ok());
  ASSERT_TRUE(Writer()->Record(MakeEvent(UserKey(1), 2, EventType::kClick, day + 20)).ok());
  // Leftovers of attempts that died before their marker's delete, one of
  // them at 3 (two retries).
  storage::Increment leftover;
  leftover.row = internal::RollupKey(UserKey(1), day);
  leftover.columns = {
      {std::string(internal::kRollupFamily), internal::RollupMarkerQualifier(EventId(3)), 1},
      {std::string(internal::kRollupFamily), internal::RollupMarkerQualifier(EventId(4)), 3}};
  ASSERT_TRUE(store().Increment(tables().events.rollups, leftover).ok());
  ASSERT_EQ(RollupColumns(impression).size(), 4u);

  auto days = events_reader().DailyCounts(UserKey(1), day, day + kDayMs);
  ASSERT_TRUE(days.ok()) << days.status();
  ASSERT_EQ(days->size(), 1u);
  EXPECT_EQ((*days)[0].counts,
            (std::map<EventType, int64_t>{{EventType::kImpression, 1}, {EventType::kClick, 1}}));
  absl::StatusOr<storage::Scan> scan = DailyCountsScan(UserKey(1), day, day + kDayMs);
  ASSERT_TRUE(scan.ok()) << scan.status();
  auto rows = store().Scan(tables().events.rollups, *scan);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(SumEngagement(*rows), (EngagementTotals{1, 1, 0}));
}

TEST_F(RollupOnceTest, ADuplicateRunningAlongsideCountsOnce) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, Now() - 1000);
  // A second worker applies the same beacon from start to end while the
  // first is between its rollup Increment and its timeline marker.
  std::unique_ptr<EventStore> second = Writer();
  auto after_rollup = std::make_shared<bool>(false);
  auto ran = std::make_shared<bool>(false);
  const std::string rollups = tables().events.rollups;
  const std::string timeline = tables().events.timeline;
  // Wraps the nonce-less store as a Store (not a copy of the HookedStore).
  HookedStore first_store(static_cast<storage::Store&>(*no_nonce_));
  first_store.SetWriteHook([&, after_rollup, ran](std::string_view table, std::string_view op) {
    if (table == rollups && op == "Increment") *after_rollup = true;
    if (table == timeline && *after_rollup && !*ran) {
      *ran = true;
      absl::Status s = second->Record(e);
      EXPECT_TRUE(s.ok()) << s;
    }
    return absl::OkStatus();
  });
  prometheus::Registry registry;
  EventStore first(first_store, clock(), &registry, StoreOptions());
  ASSERT_TRUE(first.Record(e).ok());
  ASSERT_TRUE(*ran);
  EXPECT_EQ(DayCount(e), 1);
  EXPECT_EQ(RollupColumns(e), std::vector<std::string>{"click"});
}

// A batch cut at any of its steps (the worker killed, or the store gone)
// and recorded again, as the next worker does with the uncommitted batch:
// every event once, its index row there.
TEST_F(RollupOnceTest, ABatchCutAtAnyStepIsRepairedByRecordingItAgain) {
  struct Cut {
    const char* where;
    std::string table;
    std::string op;
    int nth;  // the nth such write fails
  };
  const std::vector<Cut> cuts = {
      {"the timeline rows", tables().events.timeline, "PutBatch", 1},
      {"the index rows", tables().events.index, "PutBatch", 1},
      {"the fourth rollup increment", tables().events.rollups, "Increment", 4},
      {"the timeline markers", tables().events.timeline, "PutBatch", 2},
      {"the rollup markers' deletes", tables().events.rollups, "DeleteBatch", 1},
  };
  const int64_t when = Now() - 1000;
  for (size_t c = 0; c < cuts.size(); ++c) {
    SCOPED_TRACE(cuts[c].where);
    std::vector<Event> batch;
    for (int i = 0; i < 6; ++i) {
      batch.push_back(MakeEvent(UserKey(10 * static_cast<int>(c) + i % 2),
                                100 * static_cast<int>(c) + i,
                                i % 2 ? EventType::kClick : EventType::kImpression, when + i));
    }
    auto seen = std::make_shared<int>(0);
    const Cut cut = cuts[c];
    no_nonce_->SetWriteHook([cut, seen](std::string_view table, std::string_view op) {
      if (table != cut.table || op != cut.op || ++*seen != cut.nth) return absl::OkStatus();
      return absl::UnavailableError("the writer died here");
    });
    const absl::Status first = Writer()->RecordBatch(batch);
    no_nonce_->SetWriteHook(nullptr);
    ASSERT_EQ(*seen >= cut.nth, true) << "the batch never reached the cut";
    // A failed marker delete is not an error: the events are recorded.
    EXPECT_EQ(first.ok(), cut.op == "DeleteBatch") << first;
    ASSERT_TRUE(Writer()->RecordBatch(batch).ok());
    for (const Event& e : batch) EXPECT_EQ(DayCount(e), 3);
    for (int u = 0; u < 2; ++u) {
      const std::string user = UserKey(10 * static_cast<int>(c) + u);
      auto last = events_reader().LastEvents(user, 10);
      ASSERT_TRUE(last.ok()) << last.status();
      EXPECT_EQ(last->size(), 3u);
      // A cut after the rollups may leave markers (readers skip them): the
      // mutator writes what it holds when it goes, and then the retry finds
      // the timeline markers and stops before the deletes.
      if (c < 3) {
        EXPECT_EQ(RollupColumns(batch[u]).size(), 1u) << "a rollup marker was left";
      }
    }
    auto indexed = events_reader().EventsOfType(EventType::kClick, when, when + 6, 100);
    ASSERT_TRUE(indexed.ok()) << indexed.status();
    EXPECT_EQ(indexed->size(), 3 * (c + 1)) << "every index row there";
  }
}

// Tests of a store that keeps Increment nonces: the embedded store only.
// Skipped before any table is made.
class RollupOnceNonceTest : public RollupOnceTest {
 protected:
  void SetUp() override {
    if (kOnHBase) GTEST_SKIP() << "Thrift2 carries no nonce";
    RollupOnceTest::SetUp();
  }
};

// The embedded engine keeps the nonce, so its retry is answered from nonce
// memory: nothing is added, nothing is undone.
TEST_F(RollupOnceNonceTest, WithNonceMemoryTheRetryAddsNothing) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, Now() - 1000);
  HookedStore with_nonces(store());
  const std::string timeline = tables().events.timeline;
  auto after_rollup = std::make_shared<bool>(false);
  with_nonces.SetWriteHook([&, after_rollup](std::string_view table, std::string_view op) {
    if (table == tables().events.rollups && op == "Increment") *after_rollup = true;
    return table == timeline && *after_rollup ? absl::UnavailableError("crashed")
                                              : absl::OkStatus();
  });
  EXPECT_FALSE(EventStore(with_nonces, clock(), nullptr, StoreOptions()).Record(e).ok());
  prometheus::Registry registry;
  EventStore retry(store(), clock(), &registry, StoreOptions());
  ASSERT_TRUE(retry.Record(e).ok());
  EXPECT_EQ(DayCount(e), 1);
  EXPECT_EQ(CounterValue(registry, "bidder_events_rollup_recounts_total"), 0);
  EXPECT_EQ(RollupColumns(e), std::vector<std::string>{"click"});
}

}  // namespace
}  // namespace rtb::bidder::events::testing
