#include "storage/hbase/row_range_filter.h"

#include <string>

#include "gtest/gtest.h"

namespace rtb::storage::hbase {
namespace {

TEST(MultiRowRangeFilterTest, EncodesTheProtobufHBaseReads) {
  RowRange r{"a", true, "b", false};
  const std::string range(
      "\x0a\x01"
      "a"
      "\x10\x01"
      "\x1a\x01"
      "b"
      "\x20\x00",
      10);
  const std::string filter = std::string("\x0a\x0a", 2) + range;
  const std::string expected = std::string("\x0a\x32", 2) +
                               "org.apache.hadoop.hbase.filter.MultiRowRangeFilter" +
                               std::string("\x12\x0c", 2) + filter;
  EXPECT_EQ(EncodeMultiRowRangeFilter({&r, 1}), expected);
}

TEST(MultiRowRangeFilterTest, KeepsBinaryKeysAndLongLengths) {
  // A 200-byte key needs a two-byte varint length; zero bytes stay as they are.
  std::string start(200, '\0');
  start[199] = '\xff';
  RowRange r{start, false, "", true};
  std::string encoded = EncodeMultiRowRangeFilter({&r, 1});
  EXPECT_NE(encoded.find(std::string("\x0a\xc8\x01", 3) + start), std::string::npos);
  EXPECT_NE(encoded.find(std::string("\x10\x00\x1a\x00\x20\x01", 6)), std::string::npos);
}

TEST(MultiRowRangeFilterTest, DropsRangesThatHoldNoRow) {
  std::vector<RowRange> ranges = {
      {"a", true, "a", false},                     // [a, a)
      {"a", false, "a", true},                     // (a, a]
      {"a", true, "a", true},                      // [a, a] holds "a"
      {"b", false, std::string("b\0", 2), false},  // (b, b\0)
      {"c", true, "", false},                      // to the end
      {"e", true, "d", false},                     // backwards
      {"f", true, "g", false},
  };
  std::vector<RowRange> kept = RangesThatCanHoldRows(ranges);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].start, "a");
  EXPECT_EQ(kept[1].start, "c");
  EXPECT_EQ(kept[2].start, "f");
}

}  // namespace
}  // namespace rtb::storage::hbase
