// The storage conformance suite's scans (see conformance_test.h): ranges,
// limits, prefixes, row ranges, reversed scans, selections and scanners. What
// a test expects is what HBase 2.x does.
#include <string>

#include "gmock/gmock.h"
#include "tests/storage/conformance/conformance_test.h"

namespace rtb::storage::conformance {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kTwoDays = 2 * 24 * 60 * 60 * 1000;

class ScanTest : public ConformanceTest {
 protected:
  void SetUp() override {
    ConformanceTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* key : {"a", "b", "c", "d", "e"}) PutCell(Row(key), "f", "q", key);
  }
  Scan Between(const std::string& start, const std::string& stop) const {
    Scan s;
    s.start_row = Row(start);
    s.stop_row = Row(stop);
    return s;
  }
};

TEST_P(ScanTest, StartRowIsInclusiveAndStopRowExclusive) {
  EXPECT_THAT(ScanKeys(Between("b", "d")), ElementsAre("b", "c"));
  EXPECT_THAT(ScanKeys(Between("b0", "d0")), ElementsAre("c", "d"));
}

TEST_P(ScanTest, LimitStopsAfterThatManyRows) {
  Scan s = OwnRows();
  s.limit = 3;
  EXPECT_THAT(ScanKeys(s), ElementsAre("a", "b", "c"));
  s.limit = 1;
  EXPECT_THAT(ScanKeys(s), ElementsAre("a"));
}

TEST_P(ScanTest, LimitCountsRowsNotCells) {
  Put p;
  p.row = Row("a");
  p.values = {{"f", "q2", "x", std::nullopt}, {"v", "q", "y", std::nullopt}};
  ASSERT_TRUE(store().Put(kTable, p).ok());
  Scan s = OwnRows();
  s.limit = 2;
  absl::StatusOr<std::vector<RowResult>> rows = store().Scan(kTable, s);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].cells.size(), 3u);
}

TEST_P(ScanTest, RowsComeInUnsignedByteOrder) {
  for (const std::string& key :
       {std::string("a\x00", 2), std::string("a\x01"), std::string("a\x7f"), std::string("a\x80"),
        std::string("a\xff"), std::string("aa")}) {
    PutCell(Row(key), "f", "q", "x");
  }
  EXPECT_THAT(ScanKeys(Between("a", "b")),
              ElementsAre("a", std::string("a\x00", 2), "a\x01", "aa", "a\x7f", "a\x80", "a\xff"));
}

TEST_P(ScanTest, PrefixScanStaysInsideThePrefix) {
  PutCell(Row("p"), "f", "q", "x");
  PutCell(Row("p1"), "f", "q", "x");
  PutCell(Row("p\xff"), "f", "q", "x");
  PutCell(Row("q"), "f", "q", "x");
  PutCell(Row("o\xff"), "f", "q", "x");
  Scan s;
  s.prefix = Row("p");
  EXPECT_THAT(ScanKeys(s), ElementsAre("p", "p1", "p\xff"));
  s.limit = 2;
  EXPECT_THAT(ScanKeys(s), ElementsAre("p", "p1"));
}

TEST_P(ScanTest, MultipleRowRangesReturnOnlyTheRowsInside) {
  Scan s;
  s.ranges = {RowRange{Row("d"), true, Row("e"), true},  // given out of order
              RowRange{Row("a"), false, Row("b"), true}, RowRange{Row("c"), true, Row("c"), true}};
  s.limit = 100;
  EXPECT_THAT(ScanKeys(s), ElementsAre("b", "c", "d", "e"));
  s.ranges = {RowRange{Row("a"), true, Row("b"), false},
              RowRange{Row("c"), false, Row("e"), false}};
  EXPECT_THAT(ScanKeys(s), ElementsAre("a", "d"));
}

TEST_P(ScanTest, OverlappingRowRangesReturnEachRowOnce) {
  Scan s;
  s.ranges = {RowRange{Row("a"), true, Row("c"), true}, RowRange{Row("b"), true, Row("d"), false}};
  s.limit = 100;
  EXPECT_THAT(ScanKeys(s), ElementsAre("a", "b", "c"));
}

TEST_P(ScanTest, RowRangesWithALimit) {
  Scan s;
  s.ranges = {RowRange{Row("a"), true, Row("b"), true}, RowRange{Row("d"), true, Row("e"), true}};
  s.limit = 3;
  EXPECT_THAT(ScanKeys(s), ElementsAre("a", "b", "d"));
}

TEST_P(ScanTest, ReversedScanStartsAtTheStartRowAndWalksDown) {
  Scan s;
  s.reversed = true;
  s.start_row = Row("d");
  s.stop_row = Row("a");
  EXPECT_THAT(ScanKeys(s), ElementsAre("d", "c", "b")) << "start inclusive, stop exclusive";
  s.start_row = Row("c0");
  s.stop_row = prefix();
  s.limit = 2;
  EXPECT_THAT(ScanKeys(s), ElementsAre("c", "b"));
}

TEST_P(ScanTest, ReversedPrefixScanStaysInsideThePrefix) {
  PutCell(Row("p"), "f", "q", "x");
  PutCell(Row("p1"), "f", "q", "x");
  PutCell(Row("p2"), "f", "q", "x");
  PutCell(Row("q"), "f", "q", "x");
  Scan s;
  s.prefix = Row("p");
  s.reversed = true;
  EXPECT_THAT(ScanKeys(s), ElementsAre("p2", "p1", "p"));
}

TEST_P(ScanTest, ReversedScanOverRowRanges) {
  Scan s;
  s.reversed = true;
  s.ranges = {RowRange{Row("a"), true, Row("b"), true}, RowRange{Row("d"), false, Row("e"), true}};
  s.limit = 100;
  EXPECT_THAT(ScanKeys(s), ElementsAre("e", "b", "a"));
}

TEST_P(ScanTest, TimeRangeSelectsCellsAndSkipsRowsWithoutAny) {
  PutCell(Row("t1"), "v", "q", "old", 1000);
  PutCell(Row("t2"), "v", "q", "mid", 2000);
  PutCell(Row("t3"), "v", "q", "new", 3000);
  Scan s = Between("t", "u");
  s.time_range = TimeRange{2000, 3000};
  EXPECT_THAT(ScanKeys(s), ElementsAre("t2"));
}

TEST_P(ScanTest, ColumnsSelectAndRowsWithoutThemAreSkipped) {
  PutCell(Row("b"), "v", "only", "x");
  Scan s = OwnRows();
  s.columns = {Column{"v", std::nullopt}};
  EXPECT_THAT(ScanKeys(s), ElementsAre("b"));
  s.columns = {Column{"f", "q"}};
  EXPECT_THAT(ScanKeys(s), ElementsAre("a", "b", "c", "d", "e"));
}

TEST_P(ScanTest, MaxVersionsInAScan) {
  for (int i = 1; i <= 4; ++i) PutCell(Row("m"), "v", "q", absl::StrCat("v", i), 1000 * i);
  Scan s = Between("m", "n");
  s.max_versions = 2;
  absl::StatusOr<std::vector<RowResult>> rows = store().Scan(kTable, s);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  std::vector<std::string> values;
  for (const Cell& c : (*rows)[0].cells) values.push_back(c.value);
  EXPECT_THAT(values, ElementsAre("v4", "v3"));
}

TEST_P(ScanTest, DeletedAndExpiredRowsAreNotReturned) {
  MustDelete(Delete{Row("b"), {}});
  PutCell(Row("bb"), "t", "q", "expired", Now() - kTwoDays);
  EXPECT_THAT(ScanKeys(OwnRows()), ElementsAre("a", "c", "d", "e"));
}

TEST_P(ScanTest, ScannerStreamsInBatchesUntilDone) {
  absl::StatusOr<std::unique_ptr<Scanner>> scanner = store().OpenScanner(kTable, OwnRows());
  ASSERT_TRUE(scanner.ok()) << scanner.status();
  std::vector<size_t> batches;
  std::vector<std::string> keys;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<std::vector<RowResult>> batch = (*scanner)->Next(2);
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (batch->empty()) break;
    batches.push_back(batch->size());
    for (const RowResult& r : *batch) keys.push_back(r.row.substr(prefix().size()));
  }
  EXPECT_THAT(batches, ElementsAre(2u, 2u, 1u));
  EXPECT_THAT(keys, ElementsAre("a", "b", "c", "d", "e"));
}

TEST_P(ScanTest, ScannerStopsAtItsLimit) {
  Scan s = OwnRows();
  s.limit = 3;
  absl::StatusOr<std::unique_ptr<Scanner>> scanner = store().OpenScanner(kTable, s);
  ASSERT_TRUE(scanner.ok()) << scanner.status();
  size_t total = 0;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<std::vector<RowResult>> batch = (*scanner)->Next(2);
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (batch->empty()) break;
    total += batch->size();
  }
  EXPECT_EQ(total, 3u);
}

TEST_P(ScanTest, ReversedScannerStreamsDown) {
  Scan s;
  s.reversed = true;
  s.start_row = Row("e");
  s.stop_row = prefix();
  absl::StatusOr<std::unique_ptr<Scanner>> scanner = store().OpenScanner(kTable, s);
  ASSERT_TRUE(scanner.ok()) << scanner.status();
  std::vector<std::string> keys;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<std::vector<RowResult>> batch = (*scanner)->Next(3);
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (batch->empty()) break;
    for (const RowResult& r : *batch) keys.push_back(r.row.substr(prefix().size()));
  }
  EXPECT_THAT(keys, ElementsAre("e", "d", "c", "b", "a"));
}

TEST_P(ScanTest, AScanWithNeitherALimitNorAStopRowIsInvalidArgument) {
  Scan s;
  s.start_row = Row("a");
  EXPECT_TRUE(absl::IsInvalidArgument(store().Scan(kTable, s).status()));
}

INSTANTIATE_TEST_SUITE_P(Backend, ScanTest, ::testing::Values(RTB_CONFORMANCE_BACKENDS),
                         BackendName);

}  // namespace
}  // namespace rtb::storage::conformance
