// The hbase backend against a real HBase Thrift2 gateway.
//
//   RTB_HBASE_THRIFT=127.0.0.1:9090      the gateway (required; see below)
//   RTB_HBASE_THRIFT_TRANSPORT=framed    when the gateway runs framed
//
// Without RTB_HBASE_THRIFT every test here is skipped, except under CI=true,
// where they fail: CI must have started HBase (deploy/hbase/hbase.sh).
#include "storage/hbase_store.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "gtest/gtest.h"
#include "storage/hbase/options.h"
#include "tests/storage/hbase/forwarding_proxy.h"
#include "tests/storage/hbase/hbase_test_support.h"
#include "tests/storage/hbase/stalled_listener.h"

namespace rtb::storage {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

using hbase_testing::BaseOptions;
using hbase_testing::DataSchema;
using hbase_testing::Env;
using hbase_testing::UniqueName;

// One table shared by the data tests; each test uses rows under its own
// prefix.
class HBaseStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (Env("RTB_HBASE_THRIFT").empty()) return;
    stats_ = std::make_shared<HBaseStoreStats>();
    HBaseStoreOptions o = BaseOptions();
    o.stats = stats_;
    absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = store->release();
    table_ = new std::string(UniqueName("data"));
    absl::Status s = store_->CreateTable(DataSchema(*table_));
    ASSERT_TRUE(s.ok()) << s;
  }

  static void TearDownTestSuite() {
    if (store_ != nullptr) {
      EXPECT_TRUE(store_->DeleteTable(*table_).ok());
      delete store_;
      store_ = nullptr;
    }
    delete table_;
    table_ = nullptr;
  }

  void SetUp() override {
    RTB_REQUIRE_HBASE();
    ASSERT_NE(store_, nullptr);
    prefix_ = std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "|";
  }

  Store& store() { return *store_; }
  const std::string& table() { return *table_; }
  std::string Row(const std::string& suffix) { return prefix_ + suffix; }

  void PutCell(const std::string& row, const std::string& family, const std::string& qualifier,
               const std::string& value, std::optional<int64_t> ts = std::nullopt) {
    Put p;
    p.row = row;
    p.values = {{family, qualifier, value, ts}};
    absl::Status s = store().Put(table(), p);
    ASSERT_TRUE(s.ok()) << s;
  }

  RowResult GetRow(const std::string& row, int versions = 1) {
    Get g;
    g.row = row;
    g.max_versions = versions;
    absl::StatusOr<RowResult> r = store().Get(table(), g);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RowResult{};
  }

  static std::vector<std::string> Rows(const std::vector<RowResult>& rows) {
    std::vector<std::string> out;
    for (const RowResult& r : rows) out.push_back(r.row);
    return out;
  }

  static inline Store* store_ = nullptr;
  static inline std::string* table_ = nullptr;
  static inline std::shared_ptr<HBaseStoreStats> stats_;
  std::string prefix_;
};

TEST_F(HBaseStoreTest, PutThenGetReturnsTheCell) {
  PutCell(Row("a"), "f", "q", std::string("v\0\xff", 3));
  RowResult r = GetRow(Row("a"));
  EXPECT_EQ(r.row, Row("a"));
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.Value("f", "q"), std::string("v\0\xff", 3));
  EXPECT_GT(r.cells[0].timestamp, 0);
  EXPECT_FALSE(r.stale);
}

TEST_F(HBaseStoreTest, AbsentRowIsAnEmptyResultNotAnError) {
  RowResult r = GetRow(Row("missing"));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.row, Row("missing"));
}

TEST_F(HBaseStoreTest, VersionsComeNewestFirstAndTimeRangesSelect) {
  for (int64_t ts : {10, 20, 30}) PutCell(Row("v"), "f", "q", "at" + std::to_string(ts), ts);
  RowResult all = GetRow(Row("v"), 5);
  ASSERT_EQ(all.cells.size(), 3u);
  EXPECT_EQ(all.cells[0].timestamp, 30);
  EXPECT_EQ(all.cells[2].timestamp, 10);

  Get g;
  g.row = Row("v");
  g.max_versions = 5;
  g.time_range = {15, 30};  // [15, 30)
  absl::StatusOr<RowResult> r = store().Get(table(), g);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->cells.size(), 1u);
  EXPECT_EQ(r->cells[0].value, "at20");
}

TEST_F(HBaseStoreTest, GetSelectsFamiliesAndColumns) {
  PutCell(Row("c"), "f", "a", "1");
  PutCell(Row("c"), "f", "b", "2");
  PutCell(Row("c"), "g", "a", "3");
  Get g;
  g.row = Row("c");
  g.columns = {{"f", std::string("b")}, {"g", std::nullopt}};
  absl::StatusOr<RowResult> r = store().Get(table(), g);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->cells.size(), 2u);
  EXPECT_EQ(r->Value("f", "b"), "2");
  EXPECT_EQ(r->Value("g", "a"), "3");
  EXPECT_FALSE(r->Value("f", "a").has_value());
}

TEST_F(HBaseStoreTest, CellTtlTravelsAsTheTtlAttribute) {
  Put p;
  p.row = Row("ttl");
  p.values = {{"f", "short", "gone soon", std::nullopt}};
  p.ttl_ms = 1500;
  ASSERT_TRUE(store().Put(table(), p).ok());
  PutCell(Row("ttl"), "f", "long", "stays");
  EXPECT_TRUE(GetRow(Row("ttl")).Value("f", "short").has_value());
  std::this_thread::sleep_for(milliseconds(2500));
  RowResult r = GetRow(Row("ttl"));
  EXPECT_FALSE(r.Value("f", "short").has_value());
  EXPECT_EQ(r.Value("f", "long"), "stays");
}

TEST_F(HBaseStoreTest, EveryDurabilityIsAccepted) {
  for (Durability d : {Durability::kUseDefault, Durability::kSkipWal, Durability::kAsyncWal,
                       Durability::kSyncWal, Durability::kFsyncWal}) {
    Put p;
    p.row = Row("d");
    p.values = {{"f", "q", std::to_string(static_cast<int>(d)), std::nullopt}};
    p.durability = d;
    absl::Status s = store().Put(table(), p);
    EXPECT_TRUE(s.ok()) << static_cast<int>(d) << ": " << s;
  }
  EXPECT_EQ(GetRow(Row("d")).Value("f", "q"), "4");
}

TEST_F(HBaseStoreTest, PutBatchAndMultiGet) {
  std::vector<Put> puts;
  for (int i = 0; i < 5; ++i) {
    Put p;
    p.row = Row(std::to_string(i));
    p.values = {{"f", "n", std::to_string(i), std::nullopt}};
    puts.push_back(p);
  }
  ASSERT_TRUE(store().PutBatch(table(), puts).ok());
  std::vector<Get> gets(3);
  gets[0].row = Row("4");
  gets[1].row = Row("missing");
  gets[2].row = Row("0");
  absl::StatusOr<std::vector<RowResult>> rows = store().MultiGet(table(), gets);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].Value("f", "n"), "4");
  EXPECT_TRUE((*rows)[1].empty());
  EXPECT_EQ((*rows)[1].row, Row("missing"));
  EXPECT_EQ((*rows)[2].Value("f", "n"), "0");
}

TEST_F(HBaseStoreTest, DeleteKindsMaskWhatHBaseSays) {
  const std::string row = Row("del");
  for (int64_t ts : {1, 2, 3}) {
    PutCell(row, "f", "a", "a" + std::to_string(ts), ts);
    PutCell(row, "f", "b", "b" + std::to_string(ts), ts);
    PutCell(row, "g", "x", "x" + std::to_string(ts), ts);
  }
  auto del = [&](DeleteTarget t) {
    Delete d;
    d.row = row;
    d.targets = {t};
    absl::Status s = store().Delete(table(), d);
    ASSERT_TRUE(s.ok()) << s;
  };
  auto versions = [&](const std::string& family, const std::string& qualifier) {
    std::vector<int64_t> out;
    for (const Cell& c : GetRow(row, 5).cells) {
      if (c.family == family && c.qualifier == qualifier) out.push_back(c.timestamp);
    }
    return out;
  };
  del({"f", std::string("a"), DeleteKind::kColumnVersion, int64_t{2}});
  EXPECT_EQ(versions("f", "a"), (std::vector<int64_t>{3, 1}));
  del({"f", std::string("a"), DeleteKind::kColumnVersion, std::nullopt});  // the latest
  EXPECT_EQ(versions("f", "a"), (std::vector<int64_t>{1}));
  del({"f", std::string("b"), DeleteKind::kColumnAll, int64_t{2}});
  EXPECT_EQ(versions("f", "b"), (std::vector<int64_t>{3}));
  del({"g", std::nullopt, DeleteKind::kFamilyVersion, int64_t{3}});
  EXPECT_EQ(versions("g", "x"), (std::vector<int64_t>{2, 1}));
  del({"g", std::nullopt, DeleteKind::kFamily, std::nullopt});
  EXPECT_TRUE(versions("g", "x").empty());

  Delete whole;
  whole.row = row;
  ASSERT_TRUE(store().Delete(table(), whole).ok());
  EXPECT_TRUE(GetRow(row).empty());
}

TEST_F(HBaseStoreTest, DeleteWithSeveralKindsIsAppliedAsOne) {
  const std::string row = Row("mixed");
  PutCell(row, "f", "a", "1");
  PutCell(row, "f", "b", "2");
  PutCell(row, "g", "x", "3");
  Delete d;
  d.row = row;
  d.targets = {{"f", std::string("a"), DeleteKind::kColumnAll, std::nullopt},
               {"g", std::nullopt, DeleteKind::kFamily, std::nullopt}};
  ASSERT_TRUE(store().Delete(table(), d).ok());
  RowResult r = GetRow(row);
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.Value("f", "b"), "2");

  std::vector<Delete> batch(2);
  batch[0].row = row;
  batch[0].targets = {{"f", std::string("b"), DeleteKind::kColumnAll, std::nullopt},
                      {"g", std::nullopt, DeleteKind::kFamily, std::nullopt}};
  PutCell(Row("other"), "f", "a", "1");
  batch[1].row = Row("other");
  ASSERT_TRUE(store().DeleteBatch(table(), batch).ok());
  EXPECT_TRUE(GetRow(row).empty());
  EXPECT_TRUE(GetRow(Row("other")).empty());
}

TEST_F(HBaseStoreTest, IncrementReturnsNewValuesAndHonoursTtl) {
  Increment inc;
  inc.row = Row("fc");
  inc.columns = {{"c", "camp1|20240101", 1}, {"c", "camp2|20240101", 5}};
  absl::StatusOr<RowResult> r = store().Increment(table(), inc);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Counter("c", "camp1|20240101"), 1);
  EXPECT_EQ(r->Counter("c", "camp2|20240101"), 5);
  inc.columns = {{"c", "camp1|20240101", 41}};
  r = store().Increment(table(), inc);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Counter("c", "camp1|20240101"), 42);
  EXPECT_EQ(GetRow(Row("fc")).Counter("c", "camp1|20240101"), 42);

  Increment brief;
  brief.row = Row("fc-ttl");
  brief.columns = {{"c", "n", 7}};
  brief.ttl_ms = 1200;
  ASSERT_TRUE(store().Increment(table(), brief).ok());
  EXPECT_EQ(GetRow(Row("fc-ttl")).Counter("c", "n"), 7);
  std::this_thread::sleep_for(milliseconds(2000));
  EXPECT_TRUE(GetRow(Row("fc-ttl")).empty());
}

TEST_F(HBaseStoreTest, IncrementOfANonCounterIsInvalidArgument) {
  PutCell(Row("nc"), "c", "n", "abc");
  Increment inc;
  inc.row = Row("nc");
  inc.columns = {{"c", "n", 1}};
  absl::StatusOr<RowResult> r = store().Increment(table(), inc);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
}

// HBase reads the check as "value <op> stored": kLess passes when the value
// given is less than the stored one.
TEST_F(HBaseStoreTest, CheckAndMutateComparesValueOpStored) {
  const std::string row = Row("cam");
  PutCell(row, "f", "ver", "5");
  auto attempt = [&](CompareOp op, std::optional<std::string> value) {
    CheckAndMutate cam;
    cam.row = row;
    cam.family = "f";
    cam.qualifier = "ver";
    cam.op = op;
    cam.value = value;
    Put p;
    p.row = row;
    p.values = {{"f", "hits", "x", std::nullopt}};
    cam.puts = {p};
    absl::StatusOr<bool> applied = store().CheckAndMutate(table(), cam);
    EXPECT_TRUE(applied.ok()) << applied.status();
    return applied.ok() && *applied;
  };
  EXPECT_TRUE(attempt(CompareOp::kLess, "3"));  // "3" < "5"
  EXPECT_FALSE(attempt(CompareOp::kLess, "7"));
  EXPECT_TRUE(attempt(CompareOp::kGreater, "7"));  // "7" > "5"
  EXPECT_FALSE(attempt(CompareOp::kGreater, "3"));
  EXPECT_TRUE(attempt(CompareOp::kLessOrEqual, "5"));
  EXPECT_TRUE(attempt(CompareOp::kGreaterOrEqual, "5"));
  EXPECT_TRUE(attempt(CompareOp::kEqual, "5"));
  EXPECT_FALSE(attempt(CompareOp::kEqual, "4"));
  EXPECT_TRUE(attempt(CompareOp::kNotEqual, "4"));
  EXPECT_FALSE(attempt(CompareOp::kNotEqual, "5"));
  // An unset value checks that the column is absent.
  EXPECT_FALSE(attempt(CompareOp::kEqual, std::nullopt));
  PutCell(Row("cam-none"), "f", "other", "1");
  CheckAndMutate absent;
  absent.row = Row("cam-none");
  absent.family = "f";
  absent.qualifier = "ver";
  Put p;
  p.row = Row("cam-none");
  p.values = {{"f", "ver", "1", std::nullopt}};
  absent.puts = {p};
  absl::StatusOr<bool> applied = store().CheckAndMutate(table(), absent);
  ASSERT_TRUE(applied.ok());
  EXPECT_TRUE(*applied);
  applied = store().CheckAndMutate(table(), absent);  // now present
  ASSERT_TRUE(applied.ok());
  EXPECT_FALSE(*applied);
  // Any compared value fails on an absent column.
  absent.qualifier = "nothing-here";
  absent.value = "1";
  absent.op = CompareOp::kNotEqual;
  applied = store().CheckAndMutate(table(), absent);
  ASSERT_TRUE(applied.ok());
  EXPECT_FALSE(*applied);
}

TEST_F(HBaseStoreTest, CheckAndMutateAppliesPutsAndDeletesTogether) {
  const std::string row = Row("session");
  PutCell(row, "f", "state", "active");
  PutCell(row, "f", "ver", "1");
  CheckAndMutate cam;
  cam.row = row;
  cam.family = "f";
  cam.qualifier = "ver";
  cam.value = "1";
  Put p;
  p.row = row;
  p.values = {{"f", "ver", "2", std::nullopt}};
  Delete d;
  d.row = row;
  d.targets = {{"f", std::string("state"), DeleteKind::kColumnAll, std::nullopt}};
  cam.puts = {p};
  cam.deletes = {d};
  absl::StatusOr<bool> applied = store().CheckAndMutate(table(), cam);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_TRUE(*applied);
  RowResult r = GetRow(row);
  EXPECT_EQ(r.Value("f", "ver"), "2");
  EXPECT_FALSE(r.Value("f", "state").has_value());
}

class HBaseScanTest : public HBaseStoreTest {
 protected:
  void SetUp() override {
    HBaseStoreTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::vector<Put> puts;
    for (int i = 0; i < 10; ++i) {
      Put p;
      p.row = Row("0" + std::to_string(i));
      p.values = {{"f", "n", std::to_string(i), std::nullopt}, {"g", "x", "y", std::nullopt}};
      puts.push_back(p);
    }
    // The key right after the prefix: must never show up in prefix scans.
    Put after;
    after.row = PrefixSuccessor(prefix_);
    after.values = {{"f", "n", "after", std::nullopt}};
    puts.push_back(after);
    ASSERT_TRUE(store().PutBatch(table(), puts).ok());
  }

  std::vector<std::string> ScanRows(const Scan& scan) {
    absl::StatusOr<std::vector<RowResult>> rows = store().Scan(table(), scan);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? Rows(*rows) : std::vector<std::string>{};
  }

  std::vector<std::string> Expect(std::initializer_list<int> ids) {
    std::vector<std::string> out;
    for (int i : ids) out.push_back(Row("0" + std::to_string(i)));
    return out;
  }
};

TEST_F(HBaseScanTest, PrefixScanWithLimit) {
  Scan scan;
  scan.prefix = prefix_;
  scan.limit = 3;
  EXPECT_EQ(ScanRows(scan), Expect({0, 1, 2}));
  scan.limit = 0;
  EXPECT_EQ(ScanRows(scan), Expect({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(HBaseScanTest, StartAndStopRows) {
  Scan scan;
  scan.start_row = Row("03");
  scan.stop_row = Row("06");
  EXPECT_EQ(ScanRows(scan), Expect({3, 4, 5}));
}

TEST_F(HBaseScanTest, ReversedScanWalksDownFromStartRow) {
  Scan scan;
  scan.reversed = true;
  scan.start_row = Row("07");  // inclusive upper bound
  scan.stop_row = Row("03");   // exclusive lower bound
  EXPECT_EQ(ScanRows(scan), Expect({7, 6, 5, 4}));
}

TEST_F(HBaseScanTest, ReversedPrefixScanStaysInsideThePrefix) {
  Scan scan;
  scan.reversed = true;
  scan.prefix = prefix_;
  scan.limit = 4;
  EXPECT_EQ(ScanRows(scan), Expect({9, 8, 7, 6}));
}

TEST_F(HBaseScanTest, RowRangesAreScannedTogether) {
  Scan scan;
  scan.ranges = {{Row("01"), true, Row("03"), false},
                 {Row("05"), true, Row("05"), true},
                 {Row("07"), false, Row("09"), true}};
  EXPECT_EQ(ScanRows(scan), Expect({1, 2, 5, 8, 9}));
  scan.limit = 4;
  EXPECT_EQ(ScanRows(scan), Expect({1, 2, 5, 8}));
}

TEST_F(HBaseScanTest, RowRangesInAReversedScan) {
  Scan scan;
  scan.reversed = true;
  scan.ranges = {{Row("01"), true, Row("03"), false}, {Row("07"), true, Row("08"), true}};
  EXPECT_EQ(ScanRows(scan), Expect({8, 7, 2, 1}));
}

TEST_F(HBaseScanTest, RowRangesWithBinaryKeys) {
  const std::string base = Row("bin");
  std::vector<std::string> keys = {
      base + std::string("\x00\x00", 2), base + std::string("\x00\xff", 2),
      base + std::string("\x7f\x00", 2), base + std::string("\xff\x00", 2),
      base + std::string("\xff\xff", 2)};
  for (const std::string& k : keys) PutCell(k, "f", "n", "b");
  Scan scan;
  scan.ranges = {{keys[0], false, keys[2], true}, {keys[4], true, "", false}};
  scan.limit = 10;
  absl::StatusOr<std::vector<RowResult>> rows = store().Scan(table(), scan);
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::vector<std::string> got = Rows(*rows);
  // The open range runs on past this test's rows to the end of the table.
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got[0], keys[1]);
  EXPECT_EQ(got[1], keys[2]);
  EXPECT_EQ(got[2], keys[4]);
}

TEST_F(HBaseScanTest, ColumnsAndVersionsInScans) {
  Scan scan;
  scan.prefix = prefix_;
  scan.columns = {{"g", std::nullopt}};
  scan.limit = 2;
  absl::StatusOr<std::vector<RowResult>> rows = store().Scan(table(), scan);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  ASSERT_EQ((*rows)[0].cells.size(), 1u);
  EXPECT_EQ((*rows)[0].cells[0].family, "g");
}

TEST_F(HBaseScanTest, UnboundedScanIsInvalidArgument) {
  Scan scan;
  EXPECT_EQ(store().Scan(table(), scan).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(HBaseScanTest, ScannerReturnsBatchesUntilDone) {
  Scan scan;
  scan.prefix = prefix_;
  scan.caching = 2;
  absl::StatusOr<std::unique_ptr<Scanner>> scanner = store().OpenScanner(table(), scan);
  ASSERT_TRUE(scanner.ok()) << scanner.status();
  std::vector<std::string> got;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<std::vector<RowResult>> batch = (*scanner)->Next(3);
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (batch->empty()) break;
    EXPECT_LE(batch->size(), 3u);
    for (const RowResult& r : *batch) got.push_back(r.row);
  }
  EXPECT_EQ(got, Expect({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  absl::StatusOr<std::vector<RowResult>> after = (*scanner)->Next(3);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
}

TEST_F(HBaseScanTest, ScannerStopsAtItsLimit) {
  Scan scan;
  scan.prefix = prefix_;
  scan.limit = 5;
  absl::StatusOr<std::unique_ptr<Scanner>> scanner = store().OpenScanner(table(), scan);
  ASSERT_TRUE(scanner.ok());
  absl::StatusOr<std::vector<RowResult>> batch = (*scanner)->Next(4);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->size(), 4u);
  batch = (*scanner)->Next(4);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(Rows(*batch), Expect({4}));
  batch = (*scanner)->Next(4);
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch->empty());
}

TEST_F(HBaseScanTest, AsyncGetAndAsyncScanAnswerOnTheExecutor) {
  boost::asio::io_context executor;
  auto work = boost::asio::make_work_guard(executor);
  std::thread runner([&] { executor.run(); });
  std::promise<absl::StatusOr<RowResult>> got;
  Get g;
  g.row = Row("04");
  store().AsyncGet(table(), g, Clock::now() + std::chrono::seconds(10), executor.get_executor(),
                   [&](absl::StatusOr<RowResult> r) { got.set_value(std::move(r)); });
  absl::StatusOr<RowResult> r = got.get_future().get();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Value("f", "n"), "4");

  std::promise<absl::StatusOr<std::vector<RowResult>>> scanned;
  Scan scan;
  scan.prefix = prefix_;
  scan.limit = 2;
  store().AsyncScan(
      table(), scan, Clock::now() + std::chrono::seconds(10), executor.get_executor(),
      [&](absl::StatusOr<std::vector<RowResult>> rows) { scanned.set_value(std::move(rows)); });
  absl::StatusOr<std::vector<RowResult>> rows = scanned.get_future().get();
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(Rows(*rows), Expect({0, 1}));
  work.reset();
  runner.join();
}

TEST_F(HBaseStoreTest, ConcurrentCallersShareThePool) {
  HBaseStoreOptions o = BaseOptions();
  o.pool_size_per_endpoint = 3;  // fewer connections than callers
  o.io_threads = 2;
  absl::StatusOr<std::unique_ptr<Store>> shared = OpenHBaseStore(o);
  ASSERT_TRUE(shared.ok());
  Store& s = **shared;
  boost::asio::io_context executor;
  auto work = boost::asio::make_work_guard(executor);
  std::thread runner([&] { executor.run(); });
  constexpr int kThreads = 6;
  constexpr int kRounds = 40;
  std::atomic<int> failures{0};
  std::atomic<int> async_answers{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        Increment inc;
        inc.row = Row("shared-counter");
        inc.columns = {{"c", "n", 1}};
        if (!s.Increment(table(), inc).ok()) ++failures;
        Put p;
        p.row = Row("t" + std::to_string(t));
        p.values = {{"f", "i", std::to_string(i), std::nullopt}};
        if (!s.Put(table(), p).ok()) ++failures;
        Get g;
        g.row = p.row;
        absl::StatusOr<RowResult> r = s.Get(table(), g);
        if (!r.ok() || r->Value("f", "i") != std::to_string(i)) ++failures;
        s.AsyncGet(table(), g, Clock::now() + std::chrono::seconds(20), executor.get_executor(),
                   [&](absl::StatusOr<RowResult> a) {
                     if (!a.ok()) ++failures;
                     ++async_answers;
                   });
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 400 && async_answers.load() < kThreads * kRounds; ++i) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  work.reset();
  runner.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(async_answers.load(), kThreads * kRounds);
  EXPECT_EQ(GetRow(Row("shared-counter")).Counter("c", "n"), kThreads * kRounds);
}

TEST_F(HBaseStoreTest, UnknownTableAndFamilyAreInvalidArgument) {
  Get g;
  g.row = Row("x");
  const std::string absent = UniqueName("absent");
  absl::Status missing = store().Get(absent, g).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(missing.message()), "unknown table '" + absent + "'");
  Scan scan;
  scan.limit = 1;
  EXPECT_EQ(store().Scan(absent, scan).status().code(), absl::StatusCode::kInvalidArgument);
  Put p;
  p.row = Row("x");
  p.values = {{"nosuchfamily", "q", "v", std::nullopt}};
  absl::Status s = store().Put(table(), p);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST_F(HBaseStoreTest, HealthCheckAndUnimplementedAdmin) {
  EXPECT_TRUE(store().CheckHealth().ok());
  EXPECT_EQ(store().Flush(table()).code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(store().MajorCompact(table()).code(), absl::StatusCode::kUnimplemented);
}

TEST_F(HBaseStoreTest, ATimelineGetIsHedgedPastAStalledGateway) {
  PutCell(Row("hedge"), "f", "q", "v");
  testing::StalledListener stalled;
  HBaseStoreOptions o = BaseOptions();
  o.endpoints = {stalled.endpoint(), Env("RTB_HBASE_THRIFT")};
  o.hedge_delay_ms = 20;
  o.call_timeout_ms = 5000;
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  absl::StatusOr<std::unique_ptr<Store>> hedged = OpenHBaseStore(o);
  ASSERT_TRUE(hedged.ok());
  Get g;
  g.row = Row("hedge");
  g.consistency = Consistency::kTimeline;
  // Round-robin starts with the stalled gateway.
  absl::StatusOr<RowResult> r = (*hedged)->Get(table(), g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->Value("f", "q"), "v");
  EXPECT_EQ(stats->hedged_gets.load(), 1u);
  EXPECT_EQ(stats->hedge_wins.load(), 1u);
  EXPECT_EQ(stats->primary_wins.load(), 0u);
}

TEST_F(HBaseStoreTest, BrokenConnectionsAreReplaced) {
  absl::StatusOr<hbase::HostPort> target = hbase::ParseEndpoint(Env("RTB_HBASE_THRIFT"));
  ASSERT_TRUE(target.ok());
  testing::ForwardingProxy proxy(target->host, target->port);
  HBaseStoreOptions o = BaseOptions();
  o.endpoints = {proxy.endpoint()};
  auto stats = std::make_shared<HBaseStoreStats>();
  o.stats = stats;
  absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
  ASSERT_TRUE(store.ok());
  PutCell(Row("re"), "f", "q", "v");
  Get g;
  g.row = Row("re");
  for (int round = 0; round < 3; ++round) {
    absl::StatusOr<RowResult> r = (*store)->Get(table(), g);
    ASSERT_TRUE(r.ok()) << round << ": " << r.status();
    EXPECT_EQ(r->Value("f", "q"), "v");
    proxy.DropAll();
    // Let the FIN arrive before the next call looks at the idle connection.
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(stats->connects.load(), 3u);
  EXPECT_EQ(stats->errors.load(), 0u);
}

}  // namespace
}  // namespace rtb::storage
