// EventStore against real tables: the event-tracking failure modes (late
// events, replays, a crash between the timeline and index writes, index
// drift, erased users at ingest) and the bounded reads. Built for the
// embedded store and for HBase (see event_tables.h).
#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bidder/events/erasure.h"
#include "bidder/events/events.h"
#include "bidder/events/internal/keys.h"
#include "gtest/gtest.h"
#include "tests/bidder/events/event_tables.h"
#include "tests/bidder/events/metric_value.h"
#include "tests/storage/hooked_store.h"

namespace rtb::bidder::events::testing {
namespace {

using ::rtb::testing::HookedStore;

std::vector<std::string> Ids(const std::vector<Event>& events) {
  std::vector<std::string> ids;
  for (const Event& e : events) ids.push_back(e.event_id);
  return ids;
}

class EventStoreTest : public EventTablesTest {
 protected:
  void SetUp() override {
    EventTablesTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    events_ = std::make_unique<EventStore>(store(), clock(), &registry_, StoreOptions());
  }
  void TearDown() override {
    events_.reset();
    EventTablesTest::TearDown();
  }

  EventStore& events() { return *events_; }
  void MustRecord(const Event& e) {
    absl::Status s = events_->Record(e);
    ASSERT_TRUE(s.ok()) << s;
  }
  std::vector<Event> Last(const std::string& user, int limit = 100) {
    auto r = events_->LastEvents(user, limit);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : std::vector<Event>{};
  }
  std::vector<Event> OfType(EventType type, int64_t from, int64_t to, int limit = 1000) {
    auto r = events_->EventsOfType(type, from, to, limit);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : std::vector<Event>{};
  }
  int64_t DayCount(const std::string& user, EventType type, int64_t time) {
    auto r = events_->DailyCounts(user, time, time + 1);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || r->empty()) return 0;
    auto it = r->front().counts.find(type);
    return it == r->front().counts.end() ? 0 : it->second;
  }
  EventStore::ReconcileReport MustReconcile(int users) {
    auto r = events_->Reconcile(users);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : EventStore::ReconcileReport{};
  }
  double Metric(const std::string& name, const std::map<std::string, std::string>& labels = {}) {
    return CounterValue(registry_, name, labels);
  }
  // An EventStore whose index writes fail: the timeline row is written alone,
  // as when the writer crashes between the two writes.
  std::unique_ptr<EventStore> CrashingBeforeIndex(HookedStore& hooked) {
    const std::string index = tables().events.index;
    hooked.SetWriteHook([index](std::string_view table, std::string_view) {
      return table == index ? absl::UnavailableError("writer crashed before the index write")
                            : absl::OkStatus();
    });
    return std::make_unique<EventStore>(hooked, clock(), nullptr, StoreOptions());
  }

  prometheus::Registry registry_;
  std::unique_ptr<EventStore> events_;
};

// Tests that move the store's clock to watch TTLs: the embedded store only,
// since HBase stamps cells with its own clock. Skipped before any table is
// made.
class EventStoreClockTest : public EventStoreTest {
 protected:
  void SetUp() override {
    if (kOnHBase) GTEST_SKIP() << "moves the store's clock, which HBase does not share";
    EventStoreTest::SetUp();
  }
};

TEST_F(EventStoreTest, LateEventIsNotExpiredOnArrival) {
  // Older than the timeline's 90-day TTL when it arrives.
  const int64_t late = Now() - 91 * kDayMs;
  const Event e = MakeEvent(UserKey(1), 1, EventType::kImpression, late);
  MustRecord(e);

  std::vector<Event> last = Last(e.user_key);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0], e);
  std::vector<Event> typed = OfType(EventType::kImpression, late, late + 1);
  ASSERT_EQ(typed.size(), 1u);
  EXPECT_EQ(typed[0].summary, e.summary);
  EXPECT_EQ(DayCount(e.user_key, EventType::kImpression, late), 1);

  // The cells carry the ingest time, not the event time.
  storage::RowResult row =
      Row(tables().events.timeline, internal::TimelineKey(e.user_key, late, e.event_id));
  ASSERT_FALSE(row.empty());
  for (const storage::Cell& cell : row.cells) {
    EXPECT_GT(cell.timestamp, late + 90 * kDayMs) << cell.qualifier;
  }
}

TEST_F(EventStoreClockTest, RetentionTiersCountFromIngest) {
  const int64_t when = Now() - 10 * kDayMs;
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, when);
  MustRecord(e);
  clock().Advance(31 * kDayMs);
  EXPECT_EQ(Last(e.user_key).size(), 1u) << "timeline keeps 90 days";
  EXPECT_TRUE(OfType(EventType::kClick, when, when + 1).empty()) << "index keeps 30 days";
  EXPECT_EQ(DayCount(e.user_key, EventType::kClick, when), 1);
  clock().Advance(60 * kDayMs);
  EXPECT_TRUE(Last(e.user_key).empty());
  EXPECT_EQ(DayCount(e.user_key, EventType::kClick, when), 1) << "rollups keep two years";
  clock().Advance(640 * kDayMs);
  EXPECT_EQ(DayCount(e.user_key, EventType::kClick, when), 0);
}

TEST_F(EventStoreTest, ReplayedRecordChangesNothing) {
  const Event e = MakeEvent(UserKey(1), 7, EventType::kClick, Now() - 5000);
  MustRecord(e);
  const std::string timeline_key = internal::TimelineKey(e.user_key, e.event_time_ms, e.event_id);
  const std::string index_key =
      internal::IndexKey(static_cast<uint32_t>(e.type), e.event_time_ms, e.user_key, e.event_id);
  const std::string rollup_key = internal::RollupKey(e.user_key, e.event_time_ms);
  const storage::RowResult timeline = Row(tables().events.timeline, timeline_key);
  const storage::RowResult index = Row(tables().events.index, index_key);
  const storage::RowResult rollup = Row(tables().events.rollups, rollup_key);
  ASSERT_FALSE(timeline.empty());
  ASSERT_FALSE(index.empty());

  clock().Advance(1000);
  MustRecord(e);
  MustRecord(e);

  // Same cells, timestamps included: nothing was rewritten.
  EXPECT_EQ(Row(tables().events.timeline, timeline_key).cells, timeline.cells);
  EXPECT_EQ(Row(tables().events.index, index_key).cells, index.cells);
  EXPECT_EQ(Row(tables().events.rollups, rollup_key).cells, rollup.cells);
  EXPECT_EQ(DayCount(e.user_key, EventType::kClick, e.event_time_ms), 1);
  EXPECT_EQ(Last(e.user_key).size(), 1u);
  EXPECT_EQ(Metric("bidder_events_replayed_total"), 2);
  EXPECT_EQ(Metric("bidder_events_recorded_total", {{"type", "click"}}), 1);
}

TEST_F(EventStoreTest, CrashBetweenTimelineAndIndexIsRepairedByReplay) {
  const Event e = MakeEvent(UserKey(1), 1, EventType::kImpression, Now() - 1000);
  HookedStore hooked(store());
  std::unique_ptr<EventStore> crashing = CrashingBeforeIndex(hooked);
  EXPECT_FALSE(crashing->Record(e).ok());
  ASSERT_EQ(Last(e.user_key).size(), 1u) << "the timeline row was written";
  EXPECT_TRUE(OfType(e.type, e.event_time_ms, e.event_time_ms + 1).empty());
  EXPECT_EQ(DayCount(e.user_key, e.type, e.event_time_ms), 0);

  // The beacon is replayed from the log once the writer is back.
  MustRecord(e);
  std::vector<Event> typed = OfType(e.type, e.event_time_ms, e.event_time_ms + 1);
  ASSERT_EQ(typed.size(), 1u);
  EXPECT_EQ(typed[0].event_id, e.event_id);
  EXPECT_EQ(DayCount(e.user_key, e.type, e.event_time_ms), 1);
  EXPECT_EQ(Last(e.user_key).size(), 1u);
}

TEST_F(EventStoreTest, CrashBetweenTimelineAndIndexIsRepairedByReconcile) {
  const int64_t base = Now() - kDayMs;
  for (int u = 1; u <= 3; ++u) {
    MustRecord(MakeEvent(UserKey(u), u * 10 + 1, EventType::kWin, base + u));
    MustRecord(MakeEvent(UserKey(u), u * 10 + 2, EventType::kBilling, base + u));
  }
  const Event lost = MakeEvent(UserKey(4), 41, EventType::kWin, base + 4);
  HookedStore hooked(store());
  EXPECT_FALSE(CrashingBeforeIndex(hooked)->Record(lost).ok());
  EXPECT_EQ(OfType(EventType::kWin, base, base + 10).size(), 3u);

  EventStore::ReconcileReport report = MustReconcile(10);
  EXPECT_EQ(report.users, 4);
  EXPECT_EQ(report.timeline_rows_checked, 7);
  EXPECT_EQ(report.index_rows_added, 1);
  EXPECT_EQ(report.index_rows_removed, 0);
  std::vector<Event> wins = OfType(EventType::kWin, base, base + 10);
  ASSERT_EQ(wins.size(), 4u);
  EXPECT_EQ(wins[0].event_id, lost.event_id) << "newest first";
  EXPECT_EQ(wins[0].summary, lost.summary) << "the summary comes from the timeline row";
  EXPECT_EQ(Metric("bidder_events_index_repairs_total", {{"action", "added"}}), 1);
  EXPECT_EQ(Metric("bidder_events_reconcile_users_total"), 4);

  EXPECT_EQ(MustReconcile(10).index_rows_added, 0) << "nothing left to repair";
}

TEST_F(EventStoreTest, ReconcileRemovesIndexRowsWhoseTimelineRowIsGone) {
  const int64_t base = Now() - kDayMs;
  const Event kept = MakeEvent(UserKey(1), 1, EventType::kLoss, base + 1);
  const Event gone = MakeEvent(UserKey(1), 2, EventType::kLoss, base + 2);
  MustRecord(kept);
  MustRecord(gone);
  storage::Delete del;
  del.row = internal::TimelineKey(gone.user_key, gone.event_time_ms, gone.event_id);
  ASSERT_TRUE(store().Delete(tables().events.timeline, del).ok());

  EventStore::ReconcileReport report = MustReconcile(5);
  EXPECT_EQ(report.index_rows_removed, 1);
  EXPECT_EQ(report.index_rows_added, 0);
  EXPECT_EQ(Ids(OfType(EventType::kLoss, base, base + 10)),
            std::vector<std::string>{kept.event_id});
  EXPECT_EQ(Metric("bidder_events_index_repairs_total", {{"action", "removed"}}), 1);
}

TEST_F(EventStoreClockTest, ReconcileGivesARepairedIndexRowOnlyTheRetentionItHadLeft) {
  const int64_t when = Now() - kDayMs;
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, when);
  MustRecord(e);
  clock().Advance(20 * kDayMs);
  storage::Delete del;
  del.row = internal::IndexKey(static_cast<uint32_t>(e.type), when, e.user_key, e.event_id);
  ASSERT_TRUE(store().Delete(tables().events.index, del).ok());
  clock().Advance(1);
  EXPECT_EQ(MustReconcile(1).index_rows_added, 1);
  EXPECT_EQ(OfType(e.type, when, when + 1).size(), 1u);
  clock().Advance(10 * kDayMs);
  EXPECT_TRUE(OfType(e.type, when, when + 1).empty()) << "30 days after ingest, as if never lost";
  EXPECT_EQ(MustReconcile(1).index_rows_added, 0) << "an index row past its TTL is not re-added";
  EXPECT_EQ(Last(e.user_key).size(), 1u);
}

TEST_F(EventStoreTest, ReconcileVisitsEveryUserInTurn) {
  const int64_t base = Now() - kDayMs;
  HookedStore hooked(store());
  std::unique_ptr<EventStore> crashing = CrashingBeforeIndex(hooked);
  for (int u = 1; u <= 5; ++u) {
    EXPECT_FALSE(crashing->Record(MakeEvent(UserKey(u), u, EventType::kClick, base + u)).ok());
  }
  int added = 0;
  for (int round = 0; round < 3; ++round) {
    EventStore::ReconcileReport report = MustReconcile(2);
    EXPECT_EQ(report.users, 2);
    added += report.index_rows_added;
  }
  EXPECT_EQ(added, 5) << "three rounds of two users cover all five, wrapping once";
  EXPECT_EQ(OfType(EventType::kClick, base, base + 10).size(), 5u);
}

TEST_F(EventStoreTest, ReconcileGoesOnWhereTheLastProcessLeftOff) {
  const int64_t base = Now() - kDayMs;
  HookedStore hooked(store());
  std::unique_ptr<EventStore> crashing = CrashingBeforeIndex(hooked);
  for (int u = 1; u <= 4; ++u) {
    EXPECT_FALSE(crashing->Record(MakeEvent(UserKey(u), u, EventType::kClick, base + u)).ok());
  }
  EXPECT_EQ(MustReconcile(2).index_rows_added, 2) << "users 1 and 2";
  // The next process (a restart, or the fleet's next leader) starts from
  // the stored cursors: users 3 and 4, not 1 and 2 again.
  prometheus::Registry registry;
  EventStore next(store(), clock(), &registry, StoreOptions());
  absl::StatusOr<EventStore::ReconcileReport> report = next.Reconcile(2);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->index_rows_added, 2);
  EXPECT_EQ(OfType(EventType::kClick, base, base + 10).size(), 4u);
}

TEST_F(EventStoreTest, LastEventsAreNewestFirstAndLimited) {
  const int64_t base = Now() - kDayMs;
  std::vector<int> order = {4, 9, 0, 7, 2, 5, 1, 8, 3, 6};
  for (int i : order) MustRecord(MakeEvent(UserKey(1), i, EventType::kImpression, base + i * 1000));
  // A neighbour whose key differs only in the last byte, with newer events.
  for (int i = 0; i < 3; ++i) {
    MustRecord(MakeEvent(UserKey(2), 100 + i, EventType::kImpression, base + 50000 + i));
  }
  EXPECT_EQ(Ids(Last(UserKey(1), 3)),
            (std::vector<std::string>{EventId(9), EventId(8), EventId(7)}));
  std::vector<Event> all = Last(UserKey(1), 100);
  ASSERT_EQ(all.size(), 10u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GT(all[i - 1].event_time_ms, all[i].event_time_ms);
  EXPECT_EQ(all.back().body, MakeEvent(UserKey(1), 0, EventType::kImpression, base).body);

  EXPECT_TRUE(absl::IsInvalidArgument(events().LastEvents(UserKey(1), 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(events().LastEvents(UserKey(1), kMaxReadLimit + 1).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(events().LastEvents("short", 10).status()));
}

TEST_F(EventStoreTest, EventsInWindowIsHalfOpenAndNewestFirst) {
  const int64_t base = Now() - kDayMs;
  MustRecord(MakeEvent(UserKey(1), 1, EventType::kClick, base + 100));
  MustRecord(MakeEvent(UserKey(1), 2, EventType::kClick, base + 100));
  MustRecord(MakeEvent(UserKey(1), 3, EventType::kClick, base + 200));
  MustRecord(MakeEvent(UserKey(1), 4, EventType::kClick, base + 200));
  MustRecord(MakeEvent(UserKey(1), 5, EventType::kClick, base + 300));
  auto window = [&](int64_t from, int64_t to, int limit = 100) {
    auto r = events().EventsInWindow(UserKey(1), base + from, base + to, limit);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Ids(*r) : std::vector<std::string>{};
  };
  EXPECT_EQ(window(100, 300),
            (std::vector<std::string>{EventId(3), EventId(4), EventId(1), EventId(2)}));
  EXPECT_EQ(window(200, 301), (std::vector<std::string>{EventId(5), EventId(3), EventId(4)}));
  EXPECT_EQ(window(0, 1000, 2), (std::vector<std::string>{EventId(5), EventId(3)}));
  EXPECT_TRUE(window(300, 300).empty());
  EXPECT_TRUE(window(101, 200).empty());
  EXPECT_TRUE(absl::IsInvalidArgument(events().EventsInWindow(UserKey(1), -1, 10, 10).status()));
}

TEST_F(EventStoreTest, EventsOfTypeMergesBucketsNewestFirst) {
  const int64_t base = Now() - 2 * kDayMs;
  std::vector<int> order(48);
  for (int i = 0; i < 48; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(42));
  std::set<int> buckets;
  for (int k : order) {
    const Event e = MakeEvent(UserKey(k % 6), 1000 + k, EventType::kClick, base + k * 10);
    buckets.insert(internal::IndexBucket(e.event_id));
    MustRecord(e);
    if (k % 5 == 0) {
      MustRecord(MakeEvent(UserKey(k % 6), 2000 + k, EventType::kImpression, base + k * 10 + 5));
    }
  }
  ASSERT_GT(buckets.size(), 4u) << "the test needs events spread over buckets";

  std::vector<Event> clicks = OfType(EventType::kClick, base, base + kDayMs, 100);
  ASSERT_EQ(clicks.size(), 48u);
  for (size_t i = 0; i < clicks.size(); ++i) {
    EXPECT_EQ(clicks[i].type, EventType::kClick);
    EXPECT_EQ(clicks[i].event_time_ms, base + (47 - static_cast<int64_t>(i)) * 10);
    EXPECT_EQ(clicks[i].user_key, UserKey((47 - static_cast<int>(i)) % 6));
    EXPECT_TRUE(clicks[i].body.empty()) << "the index carries the summary only";
    EXPECT_EQ(clicks[i].summary, "click " + std::to_string(1000 + 47 - i));
  }
  std::vector<Event> newest = OfType(EventType::kClick, base, base + kDayMs, 5);
  EXPECT_EQ(Ids(newest), Ids(std::vector<Event>(clicks.begin(), clicks.begin() + 5)));
  std::vector<Event> slice = OfType(EventType::kClick, base + 100, base + 200, 100);
  ASSERT_EQ(slice.size(), 10u);
  EXPECT_EQ(slice.front().event_time_ms, base + 190);
  EXPECT_EQ(slice.back().event_time_ms, base + 100);
  EXPECT_EQ(OfType(EventType::kImpression, base, base + kDayMs, 100).size(), 10u);

  auto detail = events().GetEvent(clicks[0].user_key, clicks[0].event_time_ms, clicks[0].event_id);
  ASSERT_TRUE(detail.ok()) << detail.status();
  ASSERT_TRUE(detail->has_value());
  EXPECT_FALSE((*detail)->body.empty()) << "the detail view reads the timeline row";
}

TEST_F(EventStoreTest, DailyCountsCountEachTypePerUtcDay) {
  const int64_t day = (Now() / kDayMs - 3) * kDayMs;  // midnight UTC three days ago
  MustRecord(MakeEvent(UserKey(1), 1, EventType::kImpression, day + 10));
  MustRecord(MakeEvent(UserKey(1), 2, EventType::kImpression, day + kDayMs - 1));
  MustRecord(MakeEvent(UserKey(1), 3, EventType::kClick, day + 20));
  MustRecord(MakeEvent(UserKey(1), 4, EventType::kImpression, day + kDayMs));
  auto days = events().DailyCounts(UserKey(1), day, day + 2 * kDayMs);
  ASSERT_TRUE(days.ok()) << days.status();
  ASSERT_EQ(days->size(), 2u);
  EXPECT_EQ((*days)[0].day, internal::UtcDay(day));
  EXPECT_EQ((*days)[0].counts,
            (std::map<EventType, int64_t>{{EventType::kImpression, 2}, {EventType::kClick, 1}}));
  EXPECT_EQ((*days)[1].counts, (std::map<EventType, int64_t>{{EventType::kImpression, 1}}));
}

TEST_F(EventStoreTest, TheDailyCountsScanSumsToTheEngagementOfItsDays) {
  const int64_t day = (Now() / kDayMs - 3) * kDayMs;
  MustRecord(MakeEvent(UserKey(1), 1, EventType::kImpression, day - 1));  // the day before
  MustRecord(MakeEvent(UserKey(1), 2, EventType::kImpression, day));
  MustRecord(MakeEvent(UserKey(1), 3, EventType::kImpression, day + kDayMs + 5));
  MustRecord(MakeEvent(UserKey(1), 4, EventType::kClick, day + 2 * kDayMs + 7));
  MustRecord(MakeEvent(UserKey(1), 5, EventType::kConversion, day + 2 * kDayMs + 8));
  MustRecord(MakeEvent(UserKey(1), 6, EventType::kWin, day + 10));
  MustRecord(MakeEvent(UserKey(2), 7, EventType::kClick, day + 10));  // another user

  absl::StatusOr<storage::Scan> scan = DailyCountsScan(UserKey(1), day, day + 3 * kDayMs);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->limit, 3) << "one row per day";
  auto rows = store().Scan(tables().events.rollups, *scan);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(SumEngagement(*rows), (EngagementTotals{2, 1, 1}));

  EXPECT_EQ(DailyCountsScan(UserKey(1), day, day)->limit, 0) << "an empty window";
  EXPECT_EQ(DailyCountsScan(UserKey(1), day, day + 1)->limit, 1);
  EXPECT_EQ(DailyCountsScan("short", day, day + 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DailyCountsScan(UserKey(1), -1, day).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(EventStoreTest, ErasedUserIsSkippedAtIngest) {
  DeviceEraser eraser(store(), clock(), nullptr, EraserOptions());
  ASSERT_TRUE(eraser.Erase(UserKey(1)).ok());
  const Event e = MakeEvent(UserKey(1), 1, EventType::kImpression, Now() - 1000);
  MustRecord(e);
  EXPECT_TRUE(Last(UserKey(1)).empty());
  EXPECT_TRUE(OfType(e.type, e.event_time_ms, e.event_time_ms + 1).empty());
  EXPECT_EQ(DayCount(UserKey(1), e.type, e.event_time_ms), 0);
  EXPECT_EQ(Metric("bidder_events_skipped_erased_total"), 1);
  EXPECT_TRUE(*events().IsErased(UserKey(1)));
  EXPECT_FALSE(*events().IsErased(UserKey(2)));
  MustRecord(MakeEvent(UserKey(2), 2, EventType::kImpression, Now() - 1000));
  EXPECT_EQ(Last(UserKey(2)).size(), 1u) << "other users are recorded as usual";
}

TEST_F(EventStoreTest, ErasureLandingDuringRecordLeavesNothing) {
  DeviceEraser eraser(store(), clock(), nullptr, EraserOptions());
  HookedStore hooked(store());
  bool erased = false;
  const std::string timeline = tables().events.timeline;
  hooked.SetWriteHook([&](std::string_view table, std::string_view) {
    // After Record's first erasure check, before its first write.
    if (table == timeline && !erased) {
      erased = true;
      absl::StatusOr<ErasureStatus> s = eraser.Erase(UserKey(1));
      EXPECT_TRUE(s.ok()) << s.status();
    }
    return absl::OkStatus();
  });
  prometheus::Registry registry;
  EventStore racing(hooked, clock(), &registry, StoreOptions());
  const Event e = MakeEvent(UserKey(1), 1, EventType::kClick, Now() - 1000);
  ASSERT_TRUE(racing.Record(e).ok());
  ASSERT_TRUE(erased);
  EXPECT_TRUE(Last(UserKey(1)).empty());
  EXPECT_TRUE(OfType(e.type, e.event_time_ms, e.event_time_ms + 1).empty());
  EXPECT_TRUE(Rows(tables().events.rollups, internal::UserPrefix(UserKey(1))).empty());
  EXPECT_EQ(CounterValue(registry, "bidder_events_skipped_erased_total"), 1);
}

// RecordBatch (the stream worker's way) records what Record would, each
// event once however often it is given, and skips erased users.
TEST_F(EventStoreTest, ABatchRecordsWhatRecordWould) {
  DeviceEraser eraser(store(), clock(), nullptr, EraserOptions());
  ASSERT_TRUE(eraser.Erase(UserKey(9)).ok());
  const int64_t when = Now() - 10000;
  std::vector<Event> batch;
  for (int i = 0; i < 30; ++i) {
    batch.push_back(
        MakeEvent(UserKey(1 + i % 3), 1 + i, kEventTypes[i % kEventTypes.size()], when + i));
  }
  batch.push_back(batch[4]);  // logged twice
  batch.push_back(MakeEvent(UserKey(9), 99, EventType::kClick, when));
  ASSERT_TRUE(events().RecordBatch(batch).ok());
  for (int u = 1; u <= 3; ++u) EXPECT_EQ(Last(UserKey(u)).size(), 10u) << u;
  EXPECT_TRUE(Last(UserKey(9)).empty());
  EXPECT_EQ(OfType(EventType::kImpression, when, when + 30).size(), 5u);
  EXPECT_EQ(DayCount(UserKey(1), EventType::kImpression, when) +
                DayCount(UserKey(2), EventType::kImpression, when) +
                DayCount(UserKey(3), EventType::kImpression, when),
            5);
  EXPECT_EQ(Metric("bidder_events_replayed_total"), 1);
  EXPECT_EQ(Metric("bidder_events_skipped_erased_total"), 1);
  for (int u = 1; u <= 3; ++u) {
    for (const storage::RowResult& row :
         Rows(tables().events.rollups, internal::UserPrefix(UserKey(u)))) {
      for (const storage::Cell& cell : row.cells) {
        EXPECT_FALSE(internal::IsRollupMarker(cell.qualifier)) << "a rollup marker was left";
      }
    }
  }
  // The same batch again, as after a crash before the commit: nothing new.
  ASSERT_TRUE(events().RecordBatch(batch).ok());
  EXPECT_EQ(Metric("bidder_events_replayed_total"), 32);
  EXPECT_EQ(DayCount(UserKey(1), EventType::kImpression, when), 5);
  EXPECT_EQ(events().RecordBatch({}).code(), absl::StatusCode::kOk);
  std::vector<Event> invalid = {batch[0], MakeEvent("short", 1, EventType::kClick, when)};
  EXPECT_EQ(events().RecordBatch(invalid).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(EventStoreTest, ErasureLandingDuringABatchLeavesNothing) {
  DeviceEraser eraser(store(), clock(), nullptr, EraserOptions());
  HookedStore hooked(store());
  bool erased = false;
  const std::string index = tables().events.index;
  hooked.SetWriteHook([&](std::string_view table, std::string_view) {
    // After the batch's erasure check and its timeline rows.
    if (table == index && !erased) {
      erased = true;
      absl::StatusOr<ErasureStatus> s = eraser.Erase(UserKey(1));
      EXPECT_TRUE(s.ok()) << s.status();
    }
    return absl::OkStatus();
  });
  EventStore racing(hooked, clock(), nullptr, StoreOptions());
  const Event gone = MakeEvent(UserKey(1), 1, EventType::kClick, Now() - 1000);
  const Event kept = MakeEvent(UserKey(2), 2, EventType::kClick, Now() - 1000);
  ASSERT_TRUE(racing.RecordBatch(std::vector<Event>{gone, kept}).ok());
  ASSERT_TRUE(erased);
  EXPECT_TRUE(Last(UserKey(1)).empty());
  EXPECT_TRUE(Rows(tables().events.rollups, internal::UserPrefix(UserKey(1))).empty());
  EXPECT_EQ(Last(UserKey(2)).size(), 1u);
  EXPECT_EQ(OfType(gone.type, gone.event_time_ms, gone.event_time_ms + 1).size(), 1u)
      << "only the erased user's index row went";
}

TEST_F(EventStoreTest, HotKeysAreExportedAndKeysOverTheLimitSkipped) {
  EventStoreOptions options = StoreOptions();
  options.hot_keys.max_events_per_window = 10;
  prometheus::Registry registry;
  EventStore limited(store(), clock(), &registry, options);
  clock().Set((Now() / 60000 + 1) * 60000);  // the start of a counting window
  const int64_t base = Now() - kDayMs;
  for (int i = 0; i < 15; ++i) {
    ASSERT_TRUE(limited.Record(MakeEvent(UserKey(1), i, EventType::kImpression, base + i)).ok());
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(limited.Record(MakeEvent(UserKey(2), 100 + i, EventType::kWin, base + i)).ok());
  }
  EXPECT_EQ(Last(UserKey(1)).size(), 10u) << "events past the limit are skipped";
  EXPECT_EQ(Last(UserKey(2)).size(), 3u);
  EXPECT_EQ(CounterValue(registry, "bidder_events_rate_limited_total"), 5);

  clock().Advance(60000);
  ASSERT_TRUE(limited.Record(MakeEvent(UserKey(3), 200, EventType::kClick, base)).ok());
  std::vector<HotKey> hot = limited.HotKeys();
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot[0].user_key, UserKey(1));
  EXPECT_EQ(hot[0].events, 15);
  EXPECT_EQ(hot[1].user_key, UserKey(2));
  EXPECT_EQ(CounterValue(registry, "bidder_events_hot_key_events",
                         {{"rank", "1"}, {"key_prefix", "75757575"}}),
            15);
  EXPECT_EQ(CounterValue(registry, "bidder_events_hot_key_events",
                         {{"rank", "2"}, {"key_prefix", "75757575"}}),
            3);
}

TEST_F(EventStoreTest, MalformedEventsAreRejected) {
  Event e = MakeEvent(UserKey(1), 1, EventType::kClick, Now());
  Event short_user = e;
  short_user.user_key = "raw-device-id";
  EXPECT_TRUE(absl::IsInvalidArgument(events().Record(short_user)));
  Event short_id = e;
  short_id.event_id = "abc";
  EXPECT_TRUE(absl::IsInvalidArgument(events().Record(short_id)));
  Event negative = e;
  negative.event_time_ms = -1;
  EXPECT_TRUE(absl::IsInvalidArgument(events().Record(negative)));
  Event unknown = e;
  unknown.type = static_cast<EventType>(99);
  EXPECT_TRUE(absl::IsInvalidArgument(events().Record(unknown)));
  EXPECT_EQ(Metric("bidder_events_record_failures_total"), 4);
  EXPECT_TRUE(Last(UserKey(1)).empty());
}

}  // namespace
}  // namespace rtb::bidder::events::testing
