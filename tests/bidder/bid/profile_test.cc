#include "bidder/bid/internal/profile.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/schemas.h"
#include "storage/types.h"

namespace rtb::bidder {
namespace {

using storage::Cell;
using storage::CellView;
using storage::EncodeCounter;
using storage::kProfileFrequencyCapFamily;
using storage::kProfileSegmentFamily;

std::vector<Cell> SegmentCells() {
  std::vector<Cell> cells;
  for (const char* id : {"s10", "s20", "s30", "s40"}) {
    cells.emplace_back(kProfileSegmentFamily, id, 1, "Z");
  }
  return cells;
}

std::vector<Cell> CounterCells() {
  return {Cell(kProfileFrequencyCapFamily, "c1|20261206", 1, EncodeCounter(3)),
          Cell(kProfileFrequencyCapFamily, "c2|20261206", 1, "short")};
}

// What a row cache hit answers: the family's cells packed, shared.
std::shared_ptr<const storage::PackedCells> Packed(const std::vector<Cell>& cells) {
  return std::make_shared<const storage::PackedCells>(
      *storage::PackedCells::Of(storage::CellList(cells)));
}

void ExpectTheProfile(const Profile& profile) {
  EXPECT_TRUE(profile.present());
  for (const char* id : {"s10", "s20", "s30", "s40"}) EXPECT_TRUE(profile.HasSegment(id)) << id;
  for (const char* id : {"s0", "s15", "s5", "s50", "c1|20261206", ""}) {
    EXPECT_FALSE(profile.HasSegment(id)) << id;
  }
  EXPECT_EQ(profile.Counter("c1|20261206"), 3);
  EXPECT_EQ(profile.Counter("c2|20261206"), 0);  // not 8 bytes wide
  EXPECT_EQ(profile.Counter("c3|20261206"), 0);
  EXPECT_EQ(profile.Counter("s10"), 0);
}

// Cells are ordered by family: `fc` before `seg`.
TEST(ProfileTest, ReadsSegmentsAndCountersFromCells) {
  storage::RowResult row;
  row.row = "device";
  for (const Cell& c : CounterCells()) row.cells.push_back(c);
  for (const Cell& c : SegmentCells()) row.cells.push_back(c);
  ExpectTheProfile(Profile(row));
}

TEST(ProfileTest, ReadsPackedCellsAsACacheHitAnswersThem) {
  storage::RowResult row;
  row.row = "device";
  row.cells.AppendShared(Packed(CounterCells()));
  row.cells.AppendShared(Packed(SegmentCells()));
  ExpectTheProfile(Profile(row));
}

TEST(ProfileTest, ReadsARowOfPackedAndUnpackedFamilies) {
  storage::RowResult row;
  row.row = "device";
  for (const Cell& c : CounterCells()) row.cells.push_back(c);
  row.cells.AppendShared(Packed(SegmentCells()));
  ExpectTheProfile(Profile(row));
}

TEST(ProfileTest, OneFamilyAloneAndNoneAtAll) {
  storage::RowResult segments_only;
  segments_only.cells.AppendShared(Packed(SegmentCells()));
  const Profile profile(segments_only);
  EXPECT_TRUE(profile.HasSegment("s40"));
  EXPECT_EQ(profile.Counter("c1|20261206"), 0);

  const storage::RowResult empty;
  EXPECT_FALSE(Profile(empty).present());
  EXPECT_FALSE(Profile(empty).HasSegment("s10"));
  EXPECT_FALSE(Profile().present());
  EXPECT_FALSE(Profile().HasSegment("s10"));
  EXPECT_EQ(Profile().Counter("c1|20261206"), 0);
}

}  // namespace
}  // namespace rtb::bidder
