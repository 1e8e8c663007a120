// DeviceEraser against real tables: everything of a device goes from every
// table, the steps are recorded and advance, replays stay out, interrupted
// erasures finish. Built for the embedded store and for HBase (see
// event_tables.h).
#include "bidder/events/erasure.h"

#include <memory>
#include <string>
#include <vector>

#include "bidder/events/events.h"
#include "bidder/events/internal/keys.h"
#include "gtest/gtest.h"
#include "storage/key_bytes.h"
#include "tests/bidder/events/event_tables.h"
#include "tests/bidder/events/metric_value.h"
#include "tests/storage/hooked_store.h"

namespace rtb::bidder::events::testing {
namespace {

using ::rtb::testing::HookedStore;

std::string ImpressionId(int user, int i) {
  return "imp-" + std::to_string(user) + "-" + std::to_string(i);
}

class ErasureTest : public EventTablesTest {
 protected:
  void SetUp() override {
    EventTablesTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    events_ = std::make_unique<EventStore>(store(), clock(), nullptr, StoreOptions());
    eraser_ = std::make_unique<DeviceEraser>(store(), clock(), &registry_, EraserOptions());
  }
  void TearDown() override {
    eraser_.reset();
    events_.reset();
    EventTablesTest::TearDown();
  }

  // What the beacon handlers write for a device: a profile (segments and a
  // frequency-cap counter), `impressions` rows with their device index rows,
  // and `events` events over two UTC days.
  std::vector<Event> SeedDevice(int user, int impressions, int events) {
    const std::string key = UserKey(user);
    storage::Put seg;
    seg.row = key;
    seg.values = {{"seg", "s1", "\x05", std::nullopt}};
    EXPECT_TRUE(store().Put(tables().profiles, seg).ok());
    storage::Increment fc;
    fc.row = key;
    fc.columns = {{"fc", "c1|20261004", 1}};
    fc.ttl_ms = 2 * kDayMs;
    EXPECT_TRUE(store().Increment(tables().profiles, fc).ok());
    for (int i = 0; i < impressions; ++i) {
      const std::string id = ImpressionId(user, i);
      storage::Put reverse;
      reverse.row = key;
      storage::AppendBigEndian64(internal::ReverseTime(Now() - i), &reverse.row);
      reverse.row += id;
      reverse.values = {{"x", "c", "c1", std::nullopt}};
      EXPECT_TRUE(store().Put(tables().device_impressions, reverse).ok());
      storage::Put impression;
      impression.row = id;
      impression.values = {{"i", "device", key, std::nullopt}, {"i", "price", "1.5", std::nullopt}};
      EXPECT_TRUE(store().Put(tables().impressions, impression).ok());
    }
    std::vector<Event> written;
    const int64_t midnight = (Now() / kDayMs) * kDayMs;
    for (int i = 0; i < events; ++i) {
      // Alternating between yesterday and today (UTC).
      const int64_t when = midnight - (i % 2) * kDayMs + i;
      const EventType type = i % 3 == 0 ? EventType::kClick : EventType::kImpression;
      Event e = MakeEvent(key, user * 1000 + i, type, when);
      absl::Status s = events_->Record(e);
      EXPECT_TRUE(s.ok()) << s;
      written.push_back(std::move(e));
    }
    return written;
  }

  // Rows of the device left in each table.
  struct Left {
    size_t profiles = 0, impressions = 0, device_impressions = 0, timeline = 0, index = 0,
           rollups = 0;
    size_t total() const {
      return profiles + impressions + device_impressions + timeline + index + rollups;
    }
  };
  Left RowsLeft(int user, int impressions) {
    const std::string key = UserKey(user);
    Left left;
    left.profiles = Row(tables().profiles, key).empty() ? 0 : 1;
    for (int i = 0; i < impressions; ++i) {
      if (!Row(tables().impressions, ImpressionId(user, i)).empty()) ++left.impressions;
    }
    left.device_impressions = Rows(tables().device_impressions, key).size();
    left.timeline = Rows(tables().events.timeline, internal::UserPrefix(key)).size();
    for (const storage::RowResult& r : AllRows(tables().events.index)) {
      auto parts = internal::ParseIndexKey(r.row);
      if (parts && parts->user_key == key) ++left.index;
    }
    left.rollups = Rows(tables().events.rollups, internal::UserPrefix(key)).size();
    return left;
  }

  ErasureStatus MustErase(int user) {
    auto s = eraser_->Erase(UserKey(user));
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : ErasureStatus{};
  }
  std::optional<ErasureStatus> MustStatus(int user) {
    auto s = eraser_->Status(UserKey(user));
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : std::nullopt;
  }
  DeviceEraser::AdvanceReport MustAdvance() {
    auto r = eraser_->AdvancePending();
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : DeviceEraser::AdvanceReport{};
  }

  prometheus::Registry registry_;
  std::unique_ptr<EventStore> events_;
  std::unique_ptr<DeviceEraser> eraser_;
};

TEST_F(ErasureTest, ErasureRemovesEveryRowOfTheDeviceInAllTables) {
  SeedDevice(1, 3, 4);
  SeedDevice(2, 2, 3);
  const Left before = RowsLeft(1, 3);
  ASSERT_EQ(before.profiles, 1u);
  ASSERT_EQ(before.impressions, 3u);
  ASSERT_EQ(before.timeline, 4u);
  ASSERT_EQ(before.index, 4u);
  ASSERT_EQ(before.rollups, 2u);

  const ErasureStatus status = MustErase(1);
  EXPECT_EQ(status.step(), ErasureStep::kTombstoned);
  EXPECT_EQ(status.requested_ms, Now());
  EXPECT_EQ(status.tombstoned_ms, Now());
  EXPECT_EQ(status.rows_deleted, (ErasedRows{.profiles = 1,
                                             .impressions = 3,
                                             .device_impressions = 3,
                                             .timeline = 4,
                                             .index = 4,
                                             .rollups = 2}));
  EXPECT_EQ(RowsLeft(1, 3).total(), 0u);

  const Left other = RowsLeft(2, 2);
  EXPECT_EQ(other.profiles, 1u);
  EXPECT_EQ(other.impressions, 2u);
  EXPECT_EQ(other.device_impressions, 2u);
  EXPECT_EQ(other.timeline, 3u);
  EXPECT_EQ(other.index, 3u);
  EXPECT_EQ(other.rollups, 2u);

  EXPECT_TRUE(*events_->IsErased(UserKey(1)));
  EXPECT_FALSE(MustStatus(2).has_value());
  EXPECT_EQ(CounterValue(registry_, "bidder_erasures_total", {{"step", "tombstoned"}}), 1);
  EXPECT_EQ(CounterValue(registry_, "bidder_erasure_rows_deleted_total", {{"table", "events"}}), 4);
}

TEST_F(ErasureTest, StepsAdvanceThroughCompactionAndSnapshotExpiry) {
  SeedDevice(1, 1, 2);
  const ErasureOptions options = EraserOptions();
  const ErasureStatus tombstoned = MustErase(1);

  DeviceEraser::AdvanceReport report = MustAdvance();
  EXPECT_EQ(report.pending, 1);
  std::optional<ErasureStatus> status = MustStatus(1);
  ASSERT_TRUE(status);
  if (kOnHBase) {
    // Thrift2 cannot ask for a major compaction: the periodic one is awaited.
    EXPECT_EQ(report.major_compacted, 0);
    EXPECT_TRUE(status->periodic_compaction);
    EXPECT_EQ(status->major_compaction_due_ms,
              *tombstoned.tombstoned_ms + options.periodic_major_compaction_ms);
    EXPECT_EQ(status->step(), ErasureStep::kTombstoned);
    clock().Advance(options.periodic_major_compaction_ms);
    report = MustAdvance();
    status = MustStatus(1);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->major_compacted_ms, status->major_compaction_due_ms);
  } else {
    EXPECT_FALSE(status->periodic_compaction);
    EXPECT_EQ(status->major_compacted_ms, Now());
  }
  EXPECT_EQ(report.major_compacted, 1);
  EXPECT_EQ(status->step(), ErasureStep::kMajorCompacted);
  ASSERT_TRUE(status->major_compacted_ms);
  EXPECT_EQ(status->prior_snapshots_expire_ms,
            *status->major_compacted_ms + options.snapshot_retention_ms);

  clock().Set(*status->prior_snapshots_expire_ms - 1);
  EXPECT_EQ(MustAdvance().prior_snapshots_expired, 0) << "a snapshot may still hold the cells";
  clock().Advance(1);
  EXPECT_EQ(MustAdvance().prior_snapshots_expired, 1);
  status = MustStatus(1);
  ASSERT_TRUE(status);
  EXPECT_TRUE(status->complete());
  EXPECT_EQ(status->step(), ErasureStep::kPriorSnapshotsExpired);
  EXPECT_EQ(status->prior_snapshots_expired_ms, Now());
  EXPECT_EQ(MustAdvance().pending, 0) << "a complete erasure is no longer pending";
  EXPECT_TRUE(*events_->IsErased(UserKey(1))) << "the record stays, for replays";

  const std::string json = ErasureStatusJson(*status);
  EXPECT_NE(json.find("\"step\":\"prior_snapshots_expired\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"complete\":true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"device_key\":\"75757575757575757575757575750001\""), std::string::npos)
      << json;
  EXPECT_EQ(CounterValue(registry_, "bidder_erasures_total", {{"step", "prior_snapshots_expired"}}),
            1);
}

TEST_F(ErasureTest, ReplayedBeaconsAfterErasureAreSkipped) {
  const std::vector<Event> seeded = SeedDevice(1, 0, 5);
  MustErase(1);
  for (const Event& e : seeded) ASSERT_TRUE(events_->Record(e).ok());
  EXPECT_EQ(RowsLeft(1, 0).total(), 0u);
  MustAdvance();
  for (const Event& e : seeded) ASSERT_TRUE(events_->Record(e).ok());
  EXPECT_EQ(RowsLeft(1, 0).total(), 0u) << "after compaction too";
}

TEST_F(ErasureTest, InterruptedErasureIsFinishedByAdvancePending) {
  SeedDevice(1, 2, 4);
  HookedStore hooked(store());
  const std::string timeline = tables().events.timeline;
  hooked.SetWriteHook([&](std::string_view table, std::string_view op) {
    return table == timeline && op == "DeleteBatch" ? absl::UnavailableError("region moved")
                                                    : absl::OkStatus();
  });
  DeviceEraser interrupted(hooked, clock(), nullptr, EraserOptions());
  EXPECT_FALSE(interrupted.Erase(UserKey(1)).ok());
  std::optional<ErasureStatus> status = MustStatus(1);
  ASSERT_TRUE(status) << "recorded before any delete";
  EXPECT_EQ(status->step(), ErasureStep::kRequested);
  EXPECT_TRUE(*events_->IsErased(UserKey(1)));
  EXPECT_GT(RowsLeft(1, 2).timeline, 0u);

  hooked.SetWriteHook(nullptr);
  DeviceEraser::AdvanceReport report = MustAdvance();
  EXPECT_EQ(report.pending, 1);
  EXPECT_EQ(report.tombstoned, 1);
  EXPECT_EQ(RowsLeft(1, 2).total(), 0u);
  status = MustStatus(1);
  ASSERT_TRUE(status);
  EXPECT_TRUE(status->tombstoned_ms);
  EXPECT_EQ(status->rows_deleted.timeline, 4);
}

TEST_F(ErasureTest, DeletesPageThroughLargeKeyRanges) {
  ErasureOptions options = EraserOptions();
  options.page_rows = 2;
  DeviceEraser paged(store(), clock(), nullptr, options);
  SeedDevice(1, 5, 7);
  absl::StatusOr<ErasureStatus> status = paged.Erase(UserKey(1));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->rows_deleted.impressions, 5);
  EXPECT_EQ(status->rows_deleted.device_impressions, 5);
  EXPECT_EQ(status->rows_deleted.timeline, 7);
  EXPECT_EQ(status->rows_deleted.index, 7);
  EXPECT_EQ(RowsLeft(1, 5).total(), 0u);
}

TEST_F(ErasureTest, ErasingAgainReturnsTheFirstErasure) {
  SeedDevice(1, 1, 1);
  const ErasureStatus first = MustErase(1);
  clock().Advance(60000);
  const ErasureStatus again = MustErase(1);
  EXPECT_EQ(again.requested_ms, first.requested_ms);
  EXPECT_EQ(again.tombstoned_ms, first.tombstoned_ms);
  EXPECT_EQ(again.rows_deleted, first.rows_deleted);
  EXPECT_EQ(CounterValue(registry_, "bidder_erasures_total", {{"step", "requested"}}), 1);
}

TEST_F(ErasureTest, UnknownDevicesHaveNoStatusAndMalformedKeysAreRejected) {
  EXPECT_FALSE(MustStatus(9).has_value());
  EXPECT_TRUE(absl::IsInvalidArgument(eraser_->Status("raw-device-id").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(eraser_->Erase("raw-device-id").status()));
  EXPECT_EQ(MustAdvance().pending, 0);
}

}  // namespace
}  // namespace rtb::bidder::events::testing
