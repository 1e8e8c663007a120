// A temporary embedded store on a manual clock, for storage tests.
#ifndef RTB_TESTS_STORAGE_TEST_STORE_H_
#define RTB_TESTS_STORAGE_TEST_STORE_H_

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/store.h"

namespace rtb::storage::testing {

// 2026-10-04T00:00:00Z: a fixed, realistic "now".
inline constexpr int64_t kNow = 1791072000000;

inline std::string TempDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("rtb-" + name + "-" + std::to_string(::getpid()) + "-" +
                               std::to_string(reinterpret_cast<uintptr_t>(&name) & 0xffff));
  std::filesystem::remove_all(dir);
  return dir.string();
}

class EmbeddedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    clock_ = std::make_shared<ManualClock>(kNow);
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_);
  }
  void Reopen() {
    store_.reset();
    EmbeddedStoreOptions options;
    options.path = path_;
    options.clock = clock_;
    options.block_cache_bytes = 8 << 20;
    auto store = OpenEmbeddedStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  void Create(const TableSchema& schema) {
    absl::Status s = store_->CreateTable(schema);
    ASSERT_TRUE(s.ok()) << s;
  }
  static TableSchema Schema(const std::string& name, std::vector<FamilyOptions> families) {
    TableSchema t;
    t.name = name;
    t.families = std::move(families);
    return t;
  }
  static FamilyOptions Fam(const std::string& name, int versions = 1, int64_t ttl_seconds = 0) {
    FamilyOptions f;
    f.name = name;
    f.max_versions = versions;
    f.ttl_seconds = ttl_seconds;
    return f;
  }
  static Put PutOf(const std::string& row, const std::string& family, const std::string& qualifier,
                   const std::string& value, std::optional<int64_t> ts = std::nullopt) {
    Put p;
    p.row = row;
    p.values.push_back(PutValue{family, qualifier, value, ts});
    return p;
  }
  void MustPut(const std::string& table, const Put& put) {
    absl::Status s = store_->Put(table, put);
    ASSERT_TRUE(s.ok()) << s;
  }
  RowResult MustGet(const std::string& table, const Get& get) {
    auto r = store_->Get(table, get);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RowResult{};
  }
  RowResult MustGet(const std::string& table, const std::string& row, int versions = 1) {
    Get g;
    g.row = row;
    g.max_versions = versions;
    return MustGet(table, g);
  }
  std::vector<RowResult> MustScan(const std::string& table, const Scan& scan) {
    auto r = store_->Scan(table, scan);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : std::vector<RowResult>{};
  }
  // Raw RocksDB keys left on disk for one table family (store must be closed).
  size_t RawKeyCount(const std::string& table, const std::string& family) {
    return RawColumnFamilyKeyCount(table + ":" + family);
  }
  // Raw RocksDB keys left on disk in one column family (store must be closed).
  size_t RawColumnFamilyKeyCount(const std::string& column_family);

  std::string path_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_TEST_STORE_H_
