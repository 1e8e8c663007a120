// The sessions tests' world: the bidder's session tables on either backend,
// behind a HookedStore whose hook runs before every write and can fail it (a
// crash at that point) or do something in between (a concurrent update).
// The same test sources build twice:
//   - bidder_sessions_tests: an embedded store in a temporary directory with
//     the bidder tables, on a ManualClock that is also the store's clock (so
//     family and cell TTLs move with it); the clock starts at kStart;
//   - bidder_sessions_hbase_tests (RTB_SESSIONS_TEST_HBASE): real HBase
//     through the Thrift2 gateway named by RTB_HBASE_THRIFT (host:port), the
//     sessions and user_sessions tables of storage/schemas.h (families, TTLs,
//     bloom; without the pre-splits) under a prefix of this test's own, which
//     the HookedStore adds so the session store keeps its fixed names. HBase
//     stamps cells and expires them by its own clock; the ManualClock, which
//     only the code under test reads, starts at the real time. Tests that
//     need HBase's clock to move skip there. Without RTB_HBASE_THRIFT the
//     tests skip, except under CI=true, where they fail.
#ifndef RTB_TESTS_BIDDER_SESSIONS_SESSION_FIXTURE_H_
#define RTB_TESTS_BIDDER_SESSIONS_SESSION_FIXTURE_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "bidder/sessions/session_store.h"
#include "gtest/gtest.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"
#include "tests/storage/hooked_store.h"
#include "tests/storage/test_hbase.h"

namespace rtb::bidder::sessions::testing {

using ::rtb::testing::HookedStore;

// 2026-10-04T00:00:00Z: "now" of the embedded tests.
inline constexpr int64_t kStart = 1791072000000;
inline constexpr int64_t kMinute = 60 * 1000;
inline constexpr int64_t kHour = 60 * kMinute;

#ifdef RTB_SESSIONS_TEST_HBASE
inline constexpr bool kOnHBase = true;
#else
inline constexpr bool kOnHBase = false;
#endif

inline int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SessionTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    if (kOnHBase) {
      RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE();
      auto store = ::rtb::testing::OpenTestHBase();
      ASSERT_TRUE(store.ok()) << store.status();
      backend_ = *std::move(store);
      start_ms_ = WallClockMillis();
      hooked_ = std::make_unique<HookedStore>(*backend_, "rtb_test_sessions_" +
                                                             std::to_string(::getpid()) + "_" +
                                                             std::to_string(counter++) + "_");
      for (storage::TableSchema schema : storage::BidderTables()) {
        if (schema.name != storage::kSessionsTable && schema.name != storage::kUserSessionsTable) {
          continue;
        }
        // The families are what these tests exercise; 16 regions per table
        // would make every test spend seconds creating and dropping them.
        schema.split_keys.clear();
        schema.region_replication = 1;
        absl::Status s = hooked_->CreateTable(schema);
        ASSERT_TRUE(s.ok()) << schema.name << ": " << s;
        created_.push_back(schema.name);
      }
      clock_ = std::make_shared<storage::ManualClock>(start_ms_);
    } else {
      dir_ = std::filesystem::temp_directory_path() /
             ("rtb-sessions-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
      std::filesystem::remove_all(dir_);
      start_ms_ = kStart;
      clock_ = std::make_shared<storage::ManualClock>(start_ms_);
      storage::EmbeddedStoreOptions options;
      options.path = dir_.string();
      options.clock = clock_;
      options.block_cache_bytes = 8 << 20;
      options.row_cache_bytes = 0;
      auto store = storage::OpenEmbeddedStore(options);
      ASSERT_TRUE(store.ok()) << store.status();
      backend_ = *std::move(store);
      ASSERT_TRUE(storage::ApplySchemas(*backend_, storage::BidderTables()).ok());
      hooked_ = std::make_unique<HookedStore>(*backend_);
    }
  }

  void TearDown() override {
    if (hooked_ != nullptr) {
      hooked_->SetWriteHook(nullptr);
      for (const std::string& table : created_) {
        absl::Status s = hooked_->DeleteTable(table);
        EXPECT_TRUE(s.ok()) << table << ": " << s;
      }
    }
    hooked_.reset();
    backend_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  SessionStoreOptions Options() const {
    SessionStoreOptions options;
    options.clock = clock_;
    options.sleep = [](std::chrono::milliseconds) {};  // retries need no real wait here
    return options;
  }

  // Where the test's clock started: kStart, or the real time on HBase.
  int64_t Start() const { return start_ms_; }

  // One row of a session table as stored, read past the hook.
  storage::RowResult StoredRow(std::string_view table, const std::string& row) {
    storage::Get get;
    get.row = row;
    auto result = hooked_->Get(table, get);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *std::move(result) : storage::RowResult{};
  }

  // Every row and cell of a table, for scanning it for secrets.
  std::vector<storage::RowResult> Dump(std::string_view table) {
    storage::Scan scan;
    scan.limit = 10000;
    scan.max_versions = 10;
    auto rows = hooked_->Scan(table, scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : std::vector<storage::RowResult>{};
  }

  std::filesystem::path dir_;
  std::shared_ptr<storage::ManualClock> clock_;
  // The embedded store or HBase; the tests reach it through hooked_.
  std::unique_ptr<storage::Store> backend_;
  std::unique_ptr<HookedStore> hooked_;

 private:
  int64_t start_ms_ = kStart;
  // Tables this test made on HBase, dropped at the end.
  std::vector<std::string> created_;
};

}  // namespace rtb::bidder::sessions::testing

#endif  // RTB_TESTS_BIDDER_SESSIONS_SESSION_FIXTURE_H_
