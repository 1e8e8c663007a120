#include "bidder/bid/internal/profile.h"

#include <algorithm>

namespace rtb::bidder {

// The cells of `family`: a contiguous run, found by bisection since cells
// are ordered by family (a profile row has ~100 cells; a scan compared each
// one's family).
Profile::CellRange Profile::FamilyCells(const storage::CellList& cells, std::string_view family) {
  auto first = std::partition_point(cells.begin(), cells.end(), [family](const storage::Cell& c) {
    return std::string_view(c.family) < family;
  });
  auto last = std::partition_point(first, cells.end(), [family](const storage::Cell& c) {
    return std::string_view(c.family) == family;
  });
  return {first, last};
}

Profile::Profile(const storage::RowResult& row)
    : present_(!row.empty()),
      segments_(FamilyCells(row.cells, storage::kProfileSegmentFamily)),
      counters_(FamilyCells(row.cells, storage::kProfileFrequencyCapFamily)) {}

const storage::Cell* Profile::Find(CellRange cells, std::string_view qualifier) {
  // Qualifiers compare as unsigned bytes; std::string_view compares chars
  // with char_traits<char>::compare, which is memcmp: unsigned too.
  auto it = std::lower_bound(
      cells.begin(), cells.end(), qualifier,
      [](const storage::Cell& c, std::string_view q) { return std::string_view(c.qualifier) < q; });
  return it != cells.end() && it->qualifier == qualifier ? &*it : nullptr;
}

bool Profile::HasSegment(std::string_view segment_id) const {
  return Find(segments_, segment_id) != nullptr;
}

int64_t Profile::Counter(std::string_view qualifier) const {
  const storage::Cell* cell = Find(counters_, qualifier);
  if (cell == nullptr) return 0;
  return storage::DecodeCounter(cell->value).value_or(0);
}

}  // namespace rtb::bidder
