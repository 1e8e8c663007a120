// HBase's filter language as the storage server parses it
// (storage/server/filter_language.h).
#include "storage/server/filter_language.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/server/filtered_scanner.h"

namespace rtb::storage::server {
namespace {

using ::testing::HasSubstr;

// The rows that pass `filter_string`, each as "row:family:qualifier=value,...".
std::vector<std::string> Passing(const std::string& filter_string,
                                 const std::vector<RowResult>& rows, int max_versions = 1) {
  absl::StatusOr<std::unique_ptr<Filter>> filter = ParseFilterString(filter_string);
  EXPECT_TRUE(filter.ok()) << filter.status();
  if (!filter.ok()) return {};
  RowFiltering filtering(*std::move(filter), max_versions, false);
  std::vector<std::string> out;
  for (const RowResult& row : rows) {
    std::optional<RowResult> kept = filtering.Apply(row);
    if (!kept) continue;
    std::string text = kept->row + ":";
    for (const Cell& c : kept->cells) {
      text += c.family + ":" + c.qualifier + "=" + c.value + ",";
    }
    out.push_back(text);
  }
  return out;
}

std::vector<RowResult> Rows() {
  return {
      RowResult{"a1", {Cell("f", "q1", 2, "x"), Cell("f", "q2", 2, "y")}, false},
      RowResult{"a2", {Cell("f", "q1", 2, "z")}, false},
      RowResult{"b1", {Cell("f", "q1", 2, "x")}, false},
  };
}

TEST(FilterLanguageTest, EveryFilterOfTheLanguageParses) {
  for (const char* text : {"KeyOnlyFilter()",
                           "KeyOnlyFilter(true)",
                           "FirstKeyOnlyFilter()",
                           "PrefixFilter('a')",
                           "ColumnPrefixFilter('q')",
                           "MultipleColumnPrefixFilter('a', 'b')",
                           "ColumnRangeFilter('a', true, 'c', false)",
                           "ColumnCountGetFilter(2)",
                           "PageFilter(10)",
                           "RowFilter(<=, 'binary:b')",
                           "QualifierFilter(=, 'binaryprefix:q')",
                           "FamilyFilter(!=, 'binary:f')",
                           "ValueFilter(=, 'substring:X')",
                           "SingleColumnValueFilter('f', 'q', >=, 'binary:5')",
                           "SingleColumnValueFilter('f', 'q', =, 'binary:5', true, false)",
                           "TimestampsFilter(1, 2, 3)",
                           "InclusiveStopFilter('m')",
                           "SKIP ValueFilter(=, 'binary:x')",
                           "WHILE RowFilter(<, 'binary:b')",
                           "(PrefixFilter('a') OR PrefixFilter('b')) AND KeyOnlyFilter()"}) {
    EXPECT_TRUE(ParseFilterString(text).ok()) << text;
  }
}

TEST(FilterLanguageTest, UnparsableStringsNameTheProblemAndItsPosition) {
  EXPECT_THAT(ParseFilterString("PrefixFilter('abc").status().message(),
              HasSubstr("unterminated quoted argument at position 13"));
  EXPECT_THAT(ParseFilterString("KeyOnlyFilter() AND").status().message(),
              HasSubstr("expected a filter name at position 19"));
  EXPECT_THAT(ParseFilterString("NoSuchFilter()").status().message(),
              HasSubstr("filter NoSuchFilter is not supported at position 0"));
  EXPECT_THAT(ParseFilterString("ValueFilter(<, 'substring:x')").status().message(),
              HasSubstr("only be used with = and != at position 15"));
  EXPECT_THAT(ParseFilterString("PageFilter('x')").status().message(),
              HasSubstr("expected a number at position 11"));
  EXPECT_THAT(ParseFilterString("PageFilter(1) garbage").status().message(),
              HasSubstr("at position 14"));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseFilterString("RowFilter(=, 'regex:a.*')").status()));
}

TEST(FilterLanguageTest, AndBindsTighterThanOr) {
  // a1 (prefix a, value x) passes the AND; b1 passes through OR's left side.
  EXPECT_THAT(
      Passing("PrefixFilter('b') OR PrefixFilter('a') AND ValueFilter(=, 'binary:x')", Rows()),
      ::testing::ElementsAre("a1:f:q1=x,", "b1:f:q1=x,"));
  EXPECT_THAT(
      Passing("(PrefixFilter('b') OR PrefixFilter('a')) AND ValueFilter(=, 'binary:z')", Rows()),
      ::testing::ElementsAre("a2:f:q1=z,"));
}

TEST(FilterLanguageTest, QuotesAreDoubledInsideArguments) {
  std::vector<RowResult> rows = {RowResult{"it's", {Cell("f", "q", 1, "v")}, false},
                                 RowResult{"its", {Cell("f", "q", 1, "v")}, false}};
  EXPECT_THAT(Passing("PrefixFilter('it''s')", rows), ::testing::ElementsAre("it's:f:q=v,"));
}

TEST(FilterLanguageTest, SkipDropsWholeRowsAndWhileEndsTheScan) {
  EXPECT_THAT(Passing("SKIP ValueFilter(=, 'binary:x')", Rows()),
              ::testing::ElementsAre("b1:f:q1=x,"));
  EXPECT_THAT(Passing("WHILE RowFilter(<, 'binary:a2')", Rows()),
              ::testing::ElementsAre("a1:f:q1=x,f:q2=y,"));
}

}  // namespace
}  // namespace rtb::storage::server
