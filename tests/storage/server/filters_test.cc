// HBase's filters and how they meet versions, families and rows
// (storage/server/filters.h, storage/server/filtered_scanner.h).
#include "storage/server/filters.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/server/filter_language.h"
#include "storage/server/filtered_scanner.h"

namespace rtb::storage::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Cells(const std::optional<RowResult>& row) {
  std::vector<std::string> out;
  if (!row) return out;
  for (const Cell& c : row->cells) {
    out.push_back(c.family + ":" + c.qualifier + "@" + std::to_string(c.timestamp) + "=" + c.value);
  }
  return out;
}

std::optional<RowResult> One(const std::string& filter, const RowResult& row,
                             int max_versions = 1) {
  absl::StatusOr<std::unique_ptr<Filter>> parsed = ParseFilterString(filter);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  RowFiltering filtering(*std::move(parsed), max_versions, false);
  return filtering.Apply(row);
}

// Two families, versions newest first within each column, as a Store reads
// them with every version.
RowResult Row() {
  return RowResult{"r",
                   {Cell("a", "c1", 30, "new"), Cell("a", "c1", 20, "old"),
                    Cell("a", "c2", 30, "x"), Cell("a", "d1", 30, "y"), Cell("b", "c1", 30, "z")},
                   false};
}

TEST(FiltersTest, ValueFilterFindsAnOlderVersionWhenTheLatestFails) {
  // As a region server: versions count only among the cells the filter kept.
  EXPECT_THAT(Cells(One("ValueFilter(=, 'binary:old')", Row())), ElementsAre("a:c1@20=old"));
}

TEST(FiltersTest, VersionsAreCountedAfterTheFilter) {
  EXPECT_THAT(Cells(One("QualifierFilter(=, 'binary:c1')", Row(), 2)),
              ElementsAre("a:c1@30=new", "a:c1@20=old", "b:c1@30=z"));
  EXPECT_THAT(Cells(One("QualifierFilter(=, 'binary:c1')", Row(), 1)),
              ElementsAre("a:c1@30=new", "b:c1@30=z"));
}

TEST(FiltersTest, KeyOnlyFilterEmptiesValuesOrGivesTheirLength) {
  EXPECT_THAT(Cells(One("KeyOnlyFilter()", Row())),
              ElementsAre("a:c1@30=", "a:c2@30=", "a:d1@30=", "b:c1@30="));
  std::optional<RowResult> lengths = One("KeyOnlyFilter(true)", Row());
  ASSERT_TRUE(lengths);
  EXPECT_EQ(lengths->cells[0].value, std::string("\0\0\0\3", 4));
}

TEST(FiltersTest, FirstKeyOnlyFilterKeepsTheRowsFirstCell) {
  EXPECT_THAT(Cells(One("FirstKeyOnlyFilter()", Row())), ElementsAre("a:c1@30=new"));
}

TEST(FiltersTest, ColumnPrefixFilterSkipsToThePrefixAndLeavesTheFamilyAfterIt) {
  EXPECT_THAT(Cells(One("ColumnPrefixFilter('c')", Row())),
              ElementsAre("a:c1@30=new", "a:c2@30=x", "b:c1@30=z"));
  EXPECT_THAT(Cells(One("ColumnPrefixFilter('d')", Row())), ElementsAre("a:d1@30=y"));
}

TEST(FiltersTest, MultipleColumnPrefixAndColumnRangeFilters) {
  EXPECT_THAT(Cells(One("MultipleColumnPrefixFilter('c2', 'd')", Row())),
              ElementsAre("a:c2@30=x", "a:d1@30=y"));
  EXPECT_THAT(Cells(One("ColumnRangeFilter('c1', false, 'd1', true)", Row())),
              ElementsAre("a:c2@30=x", "a:d1@30=y"));
  EXPECT_THAT(Cells(One("ColumnRangeFilter('', true, 'c2', false)", Row())),
              ElementsAre("a:c1@30=new", "b:c1@30=z"));
}

TEST(FiltersTest, ColumnCountGetFilterKeepsTheFirstColumnsAndClosesTheFamily) {
  EXPECT_THAT(Cells(One("ColumnCountGetFilter(2)", Row())),
              ElementsAre("a:c1@30=new", "a:c2@30=x"));
}

// In a scan, a family whose store scanner finds ColumnCountGetFilter past its
// count when it reads on is closed for the rest of the scan; the others go
// on, their count starting again each row. HBase 2.6 answers this way: after
// a row with two f columns under ColumnCountGetFilter(1), rows with only f
// cells vanish and the later rows give their g cell instead of their f one.
TEST(FiltersTest, ColumnCountGetFilterInAScanClosesAFamilyItRanPast) {
  RowFiltering filtering(*ParseFilterString("ColumnCountGetFilter(1)"), 1, false);
  std::vector<std::vector<std::string>> kept;
  for (const RowResult& row :
       {RowResult{"a", {Cell("f", "x", 1, "1")}}, RowResult{"b", {Cell("f", "x", 1, "1")}},
        RowResult{"c", {Cell("f", "x", 1, "1"), Cell("f", "y", 1, "2")}},
        RowResult{"d", {Cell("f", "x", 1, "1")}},
        RowResult{"e", {Cell("f", "x", 1, "1"), Cell("g", "z", 1, "3")}}}) {
    kept.push_back(Cells(filtering.Apply(row)));
  }
  EXPECT_THAT(kept, ElementsAre(ElementsAre("f:x@1=1"), ElementsAre("f:x@1=1"),
                                ElementsAre("f:x@1=1"), IsEmpty(), ElementsAre("g:z@1=3")));
  EXPECT_FALSE(filtering.done());
}

TEST(FiltersTest, FamilyQualifierAndValueComparators) {
  EXPECT_THAT(Cells(One("FamilyFilter(=, 'binary:b')", Row())), ElementsAre("b:c1@30=z"));
  EXPECT_THAT(Cells(One("QualifierFilter(>, 'binaryprefix:c')", Row())), ElementsAre("a:d1@30=y"));
  EXPECT_THAT(Cells(One("ValueFilter(=, 'substring:NE')", Row())), ElementsAre("a:c1@30=new"));
  // "new" is skipped, so the older version of c1 takes its place.
  EXPECT_THAT(Cells(One("ValueFilter(!=, 'substring:e')", Row())),
              ElementsAre("a:c1@20=old", "a:c2@30=x", "a:d1@30=y", "b:c1@30=z"));
}

TEST(FiltersTest, SingleColumnValueFilterKeepsOrDropsTheWholeRow) {
  EXPECT_EQ(Cells(One("SingleColumnValueFilter('a', 'c2', =, 'binary:x')", Row())).size(), 4u);
  EXPECT_THAT(Cells(One("SingleColumnValueFilter('a', 'c2', =, 'binary:nope')", Row())), IsEmpty());
  // A missing column passes unless filterIfMissing.
  EXPECT_EQ(Cells(One("SingleColumnValueFilter('a', 'zz', =, 'binary:x')", Row())).size(), 4u);
  EXPECT_THAT(Cells(One("SingleColumnValueFilter('a', 'zz', =, 'binary:x', true, true)", Row())),
              IsEmpty());
  // latestVersionOnly false: an older version may match.
  EXPECT_THAT(Cells(One("SingleColumnValueFilter('a', 'c1', =, 'binary:old', false, true)", Row())),
              IsEmpty());
  EXPECT_FALSE(
      Cells(One("SingleColumnValueFilter('a', 'c1', =, 'binary:old', false, false)", Row(), 3))
          .empty());
}

TEST(FiltersTest, TimestampsFilterKeepsTheListedVersions) {
  EXPECT_THAT(Cells(One("TimestampsFilter(20)", Row(), 3)), ElementsAre("a:c1@20=old"));
  EXPECT_EQ(Cells(One("TimestampsFilter(20, 30)", Row(), 3)).size(), 5u);
}

TEST(FiltersTest, PageAndInclusiveStopFiltersEndTheScan) {
  auto rows = [] {
    std::vector<RowResult> out;
    for (const char* r : {"a", "b", "c", "d"})
      out.push_back(RowResult{r, {Cell("f", "q", 1, "v")}});
    return out;
  };
  for (const auto& [filter, expected] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"PageFilter(2)", {"a", "b"}}, {"InclusiveStopFilter('c')", {"a", "b", "c"}}}) {
    RowFiltering filtering(*ParseFilterString(filter), 1, false);
    std::vector<std::string> kept;
    for (const RowResult& row : rows()) {
      if (filtering.done()) break;
      if (std::optional<RowResult> r = filtering.Apply(row)) kept.push_back(r->row);
    }
    EXPECT_EQ(kept, expected) << filter;
    EXPECT_TRUE(filtering.done()) << filter;
  }
}

TEST(FiltersTest, FilteredScannerLosesNoRowBetweenReads) {
  class Rows final : public Scanner {
   public:
    absl::StatusOr<std::vector<RowResult>> Next(int max_rows) override {
      std::vector<RowResult> out;
      while (static_cast<int>(out.size()) < max_rows && next_ < 10) {
        out.push_back(
            RowResult{std::string(1, static_cast<char>('a' + next_++)), {Cell("f", "q", 1, "v")}});
      }
      return out;
    }
    int next_ = 0;
  };
  FilteredScanner scanner(std::make_unique<Rows>(),
                          RowFiltering(*ParseFilterString("KeyOnlyFilter()"), 1, false), 7);
  std::vector<std::string> seen;
  for (;;) {
    absl::StatusOr<std::vector<RowResult>> rows = scanner.Next(2);
    ASSERT_TRUE(rows.ok());
    if (rows->empty()) break;
    for (const RowResult& r : *rows) seen.push_back(r.row);
  }
  EXPECT_THAT(seen, ElementsAre("a", "b", "c", "d", "e", "f", "g"));
}

}  // namespace
}  // namespace rtb::storage::server
