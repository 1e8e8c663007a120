// The sessions tests' world: an embedded store in a temporary directory with
// the bidder tables, on a ManualClock that is also the store's clock (so
// family and cell TTLs move with it), behind a decorator whose hook runs
// before every write and can fail it (a crash at that point) or do
// something in between (a concurrent update).
#ifndef RTB_TESTS_BIDDER_SESSIONS_SESSION_FIXTURE_H_
#define RTB_TESTS_BIDDER_SESSIONS_SESSION_FIXTURE_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
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

namespace rtb::bidder::sessions::testing {

// 2026-10-04T00:00:00Z.
inline constexpr int64_t kStart = 1791072000000;
inline constexpr int64_t kMinute = 60 * 1000;
inline constexpr int64_t kHour = 60 * kMinute;

class HookedStore final : public storage::Store {
 public:
  using WriteHook = std::function<absl::Status(std::string_view table, std::string_view op)>;

  explicit HookedStore(storage::Store& inner) : inner_(inner) {}
  void SetWriteHook(WriteHook hook) { hook_ = std::move(hook); }

  absl::Status CreateTable(const storage::TableSchema& schema) override {
    return inner_.CreateTable(schema);
  }
  absl::StatusOr<bool> TableExists(std::string_view table) override {
    return inner_.TableExists(table);
  }
  absl::Status DeleteTable(std::string_view table) override { return inner_.DeleteTable(table); }
  absl::StatusOr<storage::RowResult> Get(std::string_view table, const storage::Get& get) override {
    return inner_.Get(table, get);
  }
  absl::StatusOr<std::vector<storage::RowResult>> MultiGet(
      std::string_view table, std::span<const storage::Get> gets) override {
    return inner_.MultiGet(table, gets);
  }
  absl::Status Put(std::string_view table, const storage::Put& put) override {
    if (absl::Status s = Hook(table, "Put"); !s.ok()) return s;
    return inner_.Put(table, put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    if (absl::Status s = Hook(table, "PutBatch"); !s.ok()) return s;
    return inner_.PutBatch(table, puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    if (absl::Status s = Hook(table, "Delete"); !s.ok()) return s;
    return inner_.Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    if (absl::Status s = Hook(table, "DeleteBatch"); !s.ok()) return s;
    return inner_.DeleteBatch(table, deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    if (absl::Status s = Hook(table, "Increment"); !s.ok()) return s;
    return inner_.Increment(table, increment);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    if (absl::Status s = Hook(table, "CheckAndMutate"); !s.ok()) return s;
    return inner_.CheckAndMutate(table, cam);
  }
  absl::StatusOr<std::vector<storage::RowResult>> Scan(std::string_view table,
                                                       const storage::Scan& scan) override {
    return inner_.Scan(table, scan);
  }
  absl::StatusOr<std::unique_ptr<storage::Scanner>> OpenScanner(
      std::string_view table, const storage::Scan& scan) override {
    return inner_.OpenScanner(table, scan);
  }
  void AsyncGet(std::string_view table, storage::Get get, storage::Deadline deadline,
                boost::asio::any_io_executor executor, storage::GetCallback done) override {
    inner_.AsyncGet(table, std::move(get), deadline, std::move(executor), std::move(done));
  }
  void AsyncScan(std::string_view table, storage::Scan scan, storage::Deadline deadline,
                 boost::asio::any_io_executor executor, storage::ScanCallback done) override {
    inner_.AsyncScan(table, std::move(scan), deadline, std::move(executor), std::move(done));
  }
  absl::Status Flush(std::string_view table) override { return inner_.Flush(table); }
  absl::Status MajorCompact(std::string_view table) override { return inner_.MajorCompact(table); }
  absl::Status CheckHealth() override { return inner_.CheckHealth(); }

 private:
  absl::Status Hook(std::string_view table, std::string_view op) {
    // Copied so a hook may replace itself.
    WriteHook hook = hook_;
    return hook ? hook(table, op) : absl::OkStatus();
  }

  storage::Store& inner_;
  WriteHook hook_;
};

class SessionTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("rtb-sessions-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    clock_ = std::make_shared<storage::ManualClock>(kStart);
    storage::EmbeddedStoreOptions options;
    options.path = dir_.string();
    options.clock = clock_;
    options.block_cache_bytes = 8 << 20;
    options.row_cache_bytes = 0;
    auto store = storage::OpenEmbeddedStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    embedded_ = *std::move(store);
    ASSERT_TRUE(storage::ApplySchemas(*embedded_, storage::BidderTables()).ok());
    hooked_ = std::make_unique<HookedStore>(*embedded_);
  }

  void TearDown() override {
    hooked_.reset();
    embedded_.reset();
    std::filesystem::remove_all(dir_);
  }

  SessionStoreOptions Options() const {
    SessionStoreOptions options;
    options.clock = clock_;
    options.sleep = [](std::chrono::milliseconds) {};  // retries need no real wait here
    return options;
  }

  // Every row and cell of a table, for scanning it for secrets.
  std::vector<storage::RowResult> Dump(std::string_view table) {
    storage::Scan scan;
    scan.limit = 10000;
    scan.max_versions = 10;
    auto rows = embedded_->Scan(table, scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : std::vector<storage::RowResult>{};
  }

  std::filesystem::path dir_;
  std::shared_ptr<storage::ManualClock> clock_;
  std::unique_ptr<storage::Store> embedded_;
  std::unique_ptr<HookedStore> hooked_;
};

}  // namespace rtb::bidder::sessions::testing

#endif  // RTB_TESTS_BIDDER_SESSIONS_SESSION_FIXTURE_H_
