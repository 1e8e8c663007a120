#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/types.h"

namespace rtb::storage {
namespace {

using ::testing::ElementsAre;

Cell C(std::string qualifier) { return Cell{"f", qualifier, 1, "v" + qualifier}; }

std::string Qualifiers(const CellList& cells) {
  std::string out;
  for (const Cell& c : cells) out += c.qualifier;
  return out;
}

TEST(CellListTest, BehavesAsASequenceAcrossSharedSegments) {
  CellList first{C("a"), C("b")};
  CellList second{C("c")};
  CellList joined;
  joined.AppendShared(first);
  joined.AppendShared(CellList{});
  joined.AppendShared(second);
  joined.push_back(C("d"));

  EXPECT_EQ(joined.size(), 4u);
  EXPECT_EQ(Qualifiers(joined), "abcd");
  EXPECT_EQ(joined[2].qualifier, "c");
  EXPECT_EQ(joined.front().qualifier, "a");
  EXPECT_EQ(joined.back().qualifier, "d");
  EXPECT_EQ(joined.end() - joined.begin(), 4);
  EXPECT_EQ((joined.begin() + 3)->qualifier, "d");
  EXPECT_EQ((--joined.end())->qualifier, "d");
  EXPECT_THAT(joined, ElementsAre(C("a"), C("b"), C("c"), C("d")));
  EXPECT_EQ(joined, (CellList{C("a"), C("b"), C("c"), C("d")}));
  EXPECT_EQ(joined.ToVector(), (std::vector<Cell>{C("a"), C("b"), C("c"), C("d")}));
}

TEST(CellListTest, AppendingNeverChangesAListItShares) {
  CellList cached{C("a"), C("b")};
  CellList result;
  result.AppendShared(cached);
  result.push_back(C("z"));
  CellList copy = result;
  copy.emplace_back("f", "y", 2, "w");
  result.push_back(C("x"));

  EXPECT_EQ(Qualifiers(cached), "ab");
  EXPECT_EQ(Qualifiers(result), "abzx");
  EXPECT_EQ(Qualifiers(copy), "abzy");
}

TEST(CellListTest, BinarySearchWorksOnRandomAccessIterators) {
  CellList left{C("a"), C("c")};
  CellList cells;
  cells.AppendShared(left);
  cells.AppendShared(CellList{C("e"), C("g")});
  auto by_qualifier = [](const Cell& c, const std::string& q) { return c.qualifier < q; };
  EXPECT_EQ(std::lower_bound(cells.begin(), cells.end(), std::string("d"), by_qualifier)->qualifier,
            "e");
  EXPECT_EQ(std::lower_bound(cells.begin(), cells.end(), std::string("c"), by_qualifier)->qualifier,
            "c");
  EXPECT_EQ(std::lower_bound(cells.begin(), cells.end(), std::string("h"), by_qualifier),
            cells.end());
}

TEST(CellListTest, EmptyAndCleared) {
  CellList cells;
  EXPECT_TRUE(cells.empty());
  EXPECT_EQ(cells.begin(), cells.end());
  cells.push_back(C("a"));
  EXPECT_FALSE(cells.empty());
  cells.clear();
  EXPECT_TRUE(cells.empty());
  EXPECT_EQ(cells.size(), 0u);
}

}  // namespace
}  // namespace rtb::storage
