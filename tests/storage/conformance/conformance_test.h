// The storage conformance suite: the behaviours HBase defines for the data
// model (TTL, versions, delete markers, increments, checkAndMutate, scans),
// written once against the Store interface and run against every backend
// (tests/storage/conformance/backend.h). Each test executable instantiates
// it for its backends; every test works on rows under a prefix of its own,
// so tests share the one table.
#ifndef RTB_TESTS_STORAGE_CONFORMANCE_CONFORMANCE_TEST_H_
#define RTB_TESTS_STORAGE_CONFORMANCE_CONFORMANCE_TEST_H_

#include <unistd.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/store.h"
#include "tests/storage/conformance/backend.h"

namespace rtb::storage::conformance {

class ConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    bool skip = false;
    absl::Status s = GetBackend(GetParam(), &backend_, &skip);
    if (!s.ok()) {
      if (skip) GTEST_SKIP() << s.message();
      GTEST_FAIL() << "backend " << GetParam() << ": " << s;
    }
    // Unique across processes and reruns against a long-lived HBase.
    prefix_ = absl::StrCat(::testing::UnitTest::GetInstance()->current_test_info()->name(), "|",
                           getpid(), "|", backend_->NowMillis(), "|");
  }

  Store& store() { return backend_->store(); }
  Backend& backend() { return *backend_; }
  int64_t Now() { return backend_->NowMillis(); }
  std::string Row(const std::string& suffix) const { return prefix_ + suffix; }
  const std::string& prefix() const { return prefix_; }

  void PutCell(const std::string& row, const std::string& family, const std::string& qualifier,
               const std::string& value, std::optional<int64_t> timestamp = std::nullopt,
               std::optional<int64_t> ttl_ms = std::nullopt) {
    Put p;
    p.row = row;
    p.values = {PutValue{family, qualifier, value, timestamp}};
    p.ttl_ms = ttl_ms;
    absl::Status s = store().Put(kTable, p);
    ASSERT_TRUE(s.ok()) << s;
  }

  void MustDelete(const Delete& d) {
    absl::Status s = store().Delete(kTable, d);
    ASSERT_TRUE(s.ok()) << s;
  }

  RowResult MustGet(const Get& get) {
    absl::StatusOr<RowResult> r = store().Get(kTable, get);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RowResult{};
  }

  RowResult GetRow(const std::string& row, int versions = 1) {
    Get g;
    g.row = row;
    g.max_versions = versions;
    return MustGet(g);
  }

  // Values of one column in the order returned (newest first).
  std::vector<std::string> Versions(const std::string& row, const std::string& family,
                                    const std::string& qualifier, int versions = 10) {
    Get g;
    g.row = row;
    g.columns = {Column{family, qualifier}};
    g.max_versions = versions;
    std::vector<std::string> out;
    for (const Cell& c : MustGet(g).cells) out.push_back(c.value);
    return out;
  }

  std::optional<std::string> Latest(const std::string& row, const std::string& family,
                                    const std::string& qualifier) {
    const RowResult result = GetRow(row);
    std::optional<std::string_view> v = result.Value(family, qualifier);
    if (!v) return std::nullopt;
    return std::string(*v);
  }

  // A scan over this test's rows only.
  Scan OwnRows() const {
    Scan s;
    s.start_row = prefix_;
    s.stop_row = PrefixSuccessor(prefix_);
    return s;
  }

  // Row keys of a scan, without this test's prefix.
  std::vector<std::string> ScanKeys(const Scan& scan) {
    absl::StatusOr<std::vector<RowResult>> rows = store().Scan(kTable, scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    std::vector<std::string> out;
    if (!rows.ok()) return out;
    for (const RowResult& r : *rows) {
      out.push_back(r.row.starts_with(prefix_) ? r.row.substr(prefix_.size()) : "?" + r.row);
    }
    return out;
  }

  // Lets `at_least_ms` pass, then (on a real clock) waits at most
  // `at_most_ms` more for `gone` to hold. True when it did.
  bool Eventually(const std::function<bool()>& gone, int64_t at_least_ms, int64_t at_most_ms) {
    backend_->Pass(at_least_ms);
    if (gone()) return true;
    if (!backend_->RealTime()) return false;
    for (int64_t waited = 0; waited < at_most_ms; waited += 100) {
      backend_->Pass(100);
      if (gone()) return true;
    }
    return false;
  }

 private:
  Backend* backend_ = nullptr;
  std::string prefix_;
};

// The backends a suite is instantiated for: one executable runs the local
// backends, another (labelled hbase) real HBase; see CMakeLists.txt.
#if RTB_CONFORMANCE_HBASE
#define RTB_CONFORMANCE_BACKENDS "hbase"
#else
#define RTB_CONFORMANCE_BACKENDS "embedded", "server_buffered", "server_framed"
#endif

// The name of a backend parameter in test names ("Backend/ConformanceTest.X/embedded").
inline std::string BackendName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace rtb::storage::conformance

#endif  // RTB_TESTS_STORAGE_CONFORMANCE_CONFORMANCE_TEST_H_
