#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <thread>
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

std::shared_ptr<const PackedCells> Packed(const std::vector<Cell>& cells) {
  return std::make_shared<const PackedCells>(*PackedCells::Of(CellList(cells)));
}

bool SameCell(const CellView& view, const Cell& cell) {
  return view.family == cell.family && view.qualifier == cell.qualifier &&
         view.timestamp == cell.timestamp && view.value == cell.value;
}

TEST(PackedCellsTest, ReadsBackEveryCellInOrder) {
  const std::vector<Cell> cells{Cell("fc", "c1|20261206", 7, EncodeCounter(3)),
                                Cell("seg", "s1", 5, "Z"), Cell("seg", "", 4, ""),
                                Cell("seg", std::string(300, 'q'), -1, std::string(5000, 'v')),
                                Cell("fc", "c2|20261206", 9, std::string("\0\xff", 2))};
  std::shared_ptr<const PackedCells> packed = Packed(cells);
  ASSERT_NE(packed, nullptr);
  ASSERT_EQ(packed->size(), cells.size());
  for (size_t i = 0; i < cells.size(); ++i) EXPECT_TRUE(SameCell((*packed)[i], cells[i])) << i;
}

TEST(PackedCellsTest, HoldsAProfileInAThirdOfTheMemoryOfItsCells) {
  std::vector<Cell> cells;
  for (int i = 0; i < 80; ++i) cells.emplace_back("seg", "s" + std::to_string(1000 + i), 1, "Z");
  for (int i = 0; i < 6; ++i) {
    cells.emplace_back("fc", "campaign-" + std::to_string(i) + "|20261206", 1, EncodeCounter(i));
  }
  std::shared_ptr<const PackedCells> packed = Packed(cells);
  ASSERT_NE(packed, nullptr);
  EXPECT_LT(packed->bytes() * 3, cells.size() * sizeof(Cell));
}

TEST(PackedCellsTest, AnEmptyBuilderBuildsNoCells) {
  std::optional<PackedCells> packed = PackedCells::Builder().Build();
  ASSERT_TRUE(packed.has_value());
  EXPECT_TRUE(packed->empty());
}

TEST(CellListTest, PackedSegmentsReadInPlaceAndAsCells) {
  CellList cells{C("a")};
  cells.AppendShared(Packed({C("b"), C("c")}));
  cells.AppendShared(std::shared_ptr<const PackedCells>());  // nothing
  cells.push_back(C("d"));

  EXPECT_EQ(cells.size(), 4u);
  EXPECT_TRUE(SameCell(cells.view(1), C("b")));
  EXPECT_TRUE(SameCell((cells.begin() + 2).view(), C("c")));
  EXPECT_TRUE(SameCell(cells.view(3), C("d")));
  EXPECT_EQ(Qualifiers(cells), "abcd");
  EXPECT_EQ(cells[2].value, "vc");
  EXPECT_EQ(cells, (CellList{C("a"), C("b"), C("c"), C("d")}));
  RowResult row{"r", cells};
  EXPECT_EQ(row.Value("f", "c"), "vc");
  EXPECT_EQ(row.Value("f", "e"), std::nullopt);
}

TEST(CellListTest, CopiesShareWhatAPackedSegmentUnpacked) {
  CellList cells;
  cells.AppendShared(Packed({C("a"), C("b")}));
  const CellList copy = cells;
  const Cell* unpacked = &cells[1];
  EXPECT_EQ(&copy[1], unpacked);
  EXPECT_EQ(unpacked->qualifier, "b");
}

TEST(CellListTest, ConcurrentReadersUnpackAPackedSegmentOnce) {
  std::vector<Cell> expected;
  for (int i = 0; i < 500; ++i) expected.push_back(C("q" + std::to_string(i)));
  CellList cells;
  cells.AppendShared(Packed(expected));
  std::vector<const Cell*> seen(8);
  std::vector<std::thread> readers;
  for (size_t t = 0; t < seen.size(); ++t) {
    readers.emplace_back([&cells, &seen, t] { seen[t] = &cells[499]; });
  }
  for (std::thread& reader : readers) reader.join();
  for (const Cell* cell : seen) EXPECT_EQ(cell, seen[0]);
  EXPECT_EQ(cells.ToVector(), expected);
}

}  // namespace
}  // namespace rtb::storage
