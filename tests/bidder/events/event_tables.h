// The tables the events module reads and writes, on either backend, for the
// table-level tests. The same test sources build twice:
//   - bidder_events_tests: an embedded store in a temporary directory on a
//     ManualClock that is also the store's clock, tables of storage/schemas.h;
//   - bidder_events_hbase_tests (RTB_EVENTS_TEST_HBASE): real HBase through
//     the Thrift2 gateway named by RTB_HBASE_THRIFT (host:port), tables of the
//     same schemas (families, TTLs, versions; without the pre-splits) under
//     names of this test's own. HBase assigns cell
//     timestamps from its own clock; the ManualClock (which only the events
//     module reads) starts at the real time. Without RTB_HBASE_THRIFT the
//     tests skip, except under CI=true, where they fail.
#ifndef RTB_TESTS_BIDDER_EVENTS_EVENT_TABLES_H_
#define RTB_TESTS_BIDDER_EVENTS_EVENT_TABLES_H_

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bidder/events/erasure.h"
#include "bidder/events/events.h"
#include "gtest/gtest.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"
#include "tests/storage/test_hbase.h"

namespace rtb::bidder::events::testing {

inline constexpr int64_t kDayMs = 24LL * 3600 * 1000;
// 2026-10-04T00:00:00Z: "now" of the embedded tests.
inline constexpr int64_t kEmbeddedNow = 1791072000000;

#ifdef RTB_EVENTS_TEST_HBASE
inline constexpr bool kOnHBase = true;
#else
inline constexpr bool kOnHBase = false;
#endif

// 16 bytes, distinct per n; the first 15 bytes are shared, so a prefix that
// is not fixed-width would mix users up.
inline std::string UserKey(int n) {
  std::string key(16, 'u');
  key[14] = static_cast<char>(n >> 8);
  key[15] = static_cast<char>(n);
  return key;
}

inline std::string EventId(int n) {
  std::string id(16, 'e');
  id[13] = static_cast<char>(n >> 16);
  id[14] = static_cast<char>(n >> 8);
  id[15] = static_cast<char>(n);
  return id;
}

inline Event MakeEvent(const std::string& user, int id, EventType type, int64_t time_ms) {
  Event e;
  e.user_key = user;
  e.event_id = EventId(id);
  e.type = type;
  e.event_time_ms = time_ms;
  e.body =
      "{\"id\":" + std::to_string(id) + ",\"type\":\"" + std::string(EventTypeName(type)) + "\"}";
  e.summary = std::string(EventTypeName(type)) + " " + std::to_string(id);
  return e;
}

class EventTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kOnHBase) {
      RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE();
      auto store = ::rtb::testing::OpenTestHBase();
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
      clock_ = std::make_shared<storage::ManualClock>(
          std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count());
      static int counter = 0;
      const std::string prefix =
          "rtb_test_events_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_";
      tables_.events.timeline = prefix + "events";
      tables_.events.index = prefix + "events_by_type";
      tables_.events.rollups = prefix + "event_rollups";
      tables_.events.erasures = prefix + "erasures";
      tables_.events.jobs = prefix + "fleet_jobs";
      tables_.profiles = prefix + "profiles";
      tables_.impressions = prefix + "impressions";
      tables_.device_impressions = prefix + "device_impressions";
    } else {
      dir_ = (std::filesystem::temp_directory_path() /
              ("rtb-events-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                 .string();
      std::filesystem::remove_all(dir_);
      clock_ = std::make_shared<storage::ManualClock>(kEmbeddedNow);
      storage::EmbeddedStoreOptions o;
      o.path = dir_;
      o.clock = clock_;
      o.block_cache_bytes = 8 << 20;
      o.row_cache_bytes = 1 << 20;
      auto store = storage::OpenEmbeddedStore(o);
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
    }
    for (storage::TableSchema schema : storage::BidderTables()) {
      const std::string* name = Renamed(schema.name);
      if (name == nullptr) continue;
      schema.name = *name;
      if (kOnHBase) {
        // Families, TTLs and versions are what these tests exercise; the
        // regions and replicas of the production layout (16 regions per
        // table) would make every test spend seconds creating and dropping
        // them.
        schema.split_keys.clear();
        schema.region_replication = 1;
      }
      absl::Status s = store_->CreateTable(schema);
      ASSERT_TRUE(s.ok()) << schema.name << ": " << s;
      created_.push_back(schema.name);
    }
  }

  void TearDown() override {
    if (store_ != nullptr && kOnHBase) {
      for (const std::string& t : created_) {
        absl::Status s = store_->DeleteTable(t);
        EXPECT_TRUE(s.ok()) << t << ": " << s;
      }
    }
    store_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  storage::Store& store() { return *store_; }
  storage::ManualClock& clock() { return *clock_; }
  int64_t Now() const { return clock_->NowMillis(); }

  EventStoreOptions StoreOptions() const {
    EventStoreOptions o;
    o.tables = tables_.events;
    return o;
  }
  ErasureOptions EraserOptions() const { return tables_; }
  const ErasureOptions& tables() const { return tables_; }

  // Every row of a table under `prefix` (bounded: tests write few rows).
  std::vector<storage::RowResult> Rows(const std::string& table, const std::string& prefix) {
    storage::Scan scan;
    scan.prefix = prefix;
    scan.limit = 10000;
    auto rows = store_->Scan(table, scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : std::vector<storage::RowResult>{};
  }
  std::vector<storage::RowResult> AllRows(const std::string& table) {
    storage::Scan scan;
    scan.limit = 10000;
    auto rows = store_->Scan(table, scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : std::vector<storage::RowResult>{};
  }
  storage::RowResult Row(const std::string& table, const std::string& row) {
    storage::Get get;
    get.row = row;
    auto r = store_->Get(table, get);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : storage::RowResult{};
  }

 private:
  // The test's name for a table of storage/schemas.h, or null when the events
  // module does not use it.
  const std::string* Renamed(const std::string& schema_name) const {
    if (schema_name == storage::kEventsTable) return &tables_.events.timeline;
    if (schema_name == storage::kEventsByTypeTable) return &tables_.events.index;
    if (schema_name == storage::kEventRollupsTable) return &tables_.events.rollups;
    if (schema_name == storage::kErasuresTable) return &tables_.events.erasures;
    if (schema_name == storage::kFleetJobsTable) return &tables_.events.jobs;
    if (schema_name == storage::kProfilesTable) return &tables_.profiles;
    if (schema_name == storage::kImpressionsTable) return &tables_.impressions;
    if (schema_name == storage::kDeviceImpressionsTable) return &tables_.device_impressions;
    return nullptr;
  }

  std::string dir_;
  std::shared_ptr<storage::ManualClock> clock_;
  std::unique_ptr<storage::Store> store_;
  ErasureOptions tables_;
  std::vector<std::string> created_;
};

}  // namespace rtb::bidder::events::testing

#endif  // RTB_TESTS_BIDDER_EVENTS_EVENT_TABLES_H_
