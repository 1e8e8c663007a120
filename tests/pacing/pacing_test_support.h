// Test support for pacing: a temporary embedded store on a manual clock with
// the bidder's tables, a store wrapper that injects failures, and configs.
#ifndef RTB_TESTS_PACING_PACING_TEST_SUPPORT_H_
#define RTB_TESTS_PACING_PACING_TEST_SUPPORT_H_

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "config/config.h"
#include "gtest/gtest.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::pacing::testing {

// 2026-10-04T12:00:00Z.
inline constexpr int64_t kNoon = 1791115200000;

inline int64_t UnixMillis(absl::CivilSecond when, const std::string& zone_name) {
  absl::TimeZone zone;
  EXPECT_TRUE(absl::LoadTimeZone(zone_name, &zone)) << zone_name;
  return absl::ToUnixMillis(absl::FromCivil(when, zone));
}

inline std::string TempDir(const std::string& name) {
  static std::atomic<int> counter{0};
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("rtb-pacing-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// An embedded store at a temporary path with every bidder table; removed on
// destruction.
class TempStore {
 public:
  explicit TempStore(std::shared_ptr<storage::Clock> clock,
                     storage::Durability durability = storage::Durability::kSyncWal)
      : path_(TempDir("store")) {
    storage::EmbeddedStoreOptions options;
    options.path = path_;
    options.clock = std::move(clock);
    options.block_cache_bytes = 8 << 20;
    options.row_cache_bytes = 4 << 20;
    options.write_buffer_bytes = 4 << 20;
    options.default_durability = durability;
    options.async_threads = 1;
    auto store = storage::OpenEmbeddedStore(options);
    EXPECT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    absl::Status s = storage::ApplySchemas(*store_, storage::BidderTables());
    EXPECT_TRUE(s.ok()) << s;
  }
  ~TempStore() {
    store_.reset();
    std::filesystem::remove_all(path_);
  }
  storage::Store& store() { return *store_; }

 private:
  std::string path_;
  std::unique_ptr<storage::Store> store_;
};

// Forwards to another store; Increment, Scan, Get and Put fail on demand.
class FaultyStore final : public storage::Store {
 public:
  explicit FaultyStore(storage::Store& inner) : inner_(inner) {}

  // The next `n` Increments fail without being applied.
  std::atomic<int> fail_increments{0};
  // The next `n` Increments are applied, then reported as timed out (the
  // ambiguous failure a nonce exists for).
  std::atomic<int> lose_increment_answers{0};
  // While true, Scan, Get and Put fail.
  std::atomic<bool> fail_reads{false};
  std::atomic<bool> fail_puts{false};
  std::atomic<int> increments_sent{0};
  std::atomic<int> scans_sent{0};
  std::vector<storage::Increment> increments;  // every Increment received

  absl::Status CreateTable(const storage::TableSchema& schema) override {
    return inner_.CreateTable(schema);
  }
  absl::StatusOr<bool> TableExists(std::string_view table) override {
    return inner_.TableExists(table);
  }
  absl::Status DeleteTable(std::string_view table) override { return inner_.DeleteTable(table); }
  absl::StatusOr<storage::RowResult> Get(std::string_view table, const storage::Get& get) override {
    if (fail_reads) return absl::UnavailableError("injected");
    return inner_.Get(table, get);
  }
  absl::StatusOr<std::vector<storage::RowResult>> MultiGet(
      std::string_view table, std::span<const storage::Get> gets) override {
    if (fail_reads) return absl::UnavailableError("injected");
    return inner_.MultiGet(table, gets);
  }
  absl::Status Put(std::string_view table, const storage::Put& put) override {
    if (fail_puts) return absl::UnavailableError("injected");
    return inner_.Put(table, put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    if (fail_puts) return absl::UnavailableError("injected");
    return inner_.PutBatch(table, puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    return inner_.Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    return inner_.DeleteBatch(table, deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    ++increments_sent;
    increments.push_back(increment);
    if (fail_increments > 0) {
      --fail_increments;
      return absl::UnavailableError("injected");
    }
    absl::StatusOr<storage::RowResult> result = inner_.Increment(table, increment);
    if (result.ok() && lose_increment_answers > 0) {
      --lose_increment_answers;
      return absl::DeadlineExceededError("injected: applied, answer lost");
    }
    return result;
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    return inner_.CheckAndMutate(table, cam);
  }
  absl::StatusOr<std::vector<storage::RowResult>> Scan(std::string_view table,
                                                       const storage::Scan& scan) override {
    ++scans_sent;
    if (fail_reads) return absl::UnavailableError("injected");
    return inner_.Scan(table, scan);
  }
  absl::StatusOr<std::unique_ptr<storage::Scanner>> OpenScanner(
      std::string_view table, const storage::Scan& scan) override {
    if (fail_reads) return absl::UnavailableError("injected");
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
  storage::Store& inner_;
};

inline config::CampaignConfig Campaign(const std::string& id, int64_t budget_micros,
                                       config::PacingMode mode = config::PacingMode::kEven,
                                       const std::string& zone = "UTC") {
  config::CampaignConfig campaign;
  campaign.id = id;
  campaign.daily_budget_micros = budget_micros;
  campaign.pacing_mode = mode;
  campaign.time_zone = zone;
  campaign.currency = "USD";
  return campaign;
}

// A bidder config holding only what pacing reads.
inline config::BidderConfig PacingOnlyConfig(std::vector<config::CampaignConfig> campaigns,
                                             int worker_id = 0) {
  config::BidderConfig config;
  config.campaigns = std::move(campaigns);
  config.pacing.worker_id = worker_id;
  return config;
}

}  // namespace rtb::pacing::testing

#endif  // RTB_TESTS_PACING_PACING_TEST_SUPPORT_H_
