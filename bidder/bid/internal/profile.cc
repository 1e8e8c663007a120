#include "bidder/bid/internal/profile.h"

#include <cstddef>

namespace rtb::bidder {

namespace {

// The first index of [low, high) for which `before` is false; `before` is
// true for a prefix of the range (cells are in storage order).
template <typename Before>
size_t FirstNotBefore(size_t low, size_t high, Before before) {
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (before(mid)) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

}  // namespace

// The cells of `family`: a contiguous run, found by bisection since cells
// are ordered by family (a profile row has ~100 cells; a scan compared each
// one's family).
Profile::CellRange Profile::FamilyCells(std::string_view family) const {
  const size_t first =
      FirstNotBefore(0, cells_->size(), [&](size_t i) { return cells_->view(i).family < family; });
  const size_t last = FirstNotBefore(first, cells_->size(),
                                     [&](size_t i) { return cells_->view(i).family == family; });
  return {first, last};
}

Profile::Profile(const storage::RowResult& row)
    : cells_(&row.cells),
      segments_(FamilyCells(storage::kProfileSegmentFamily)),
      counters_(FamilyCells(storage::kProfileFrequencyCapFamily)) {}

std::optional<storage::CellView> Profile::Find(CellRange cells, std::string_view qualifier) const {
  // Qualifiers compare as unsigned bytes; std::string_view compares chars
  // with char_traits<char>::compare, which is memcmp: unsigned too.
  const size_t at = FirstNotBefore(cells.first, cells.last,
                                   [&](size_t i) { return cells_->view(i).qualifier < qualifier; });
  if (at == cells.last) return std::nullopt;
  const storage::CellView cell = cells_->view(at);
  if (cell.qualifier != qualifier) return std::nullopt;
  return cell;
}

bool Profile::HasSegment(std::string_view segment_id) const {
  return Find(segments_, segment_id).has_value();
}

int64_t Profile::Counter(std::string_view qualifier) const {
  std::optional<storage::CellView> cell = Find(counters_, qualifier);
  if (!cell.has_value()) return 0;
  return storage::DecodeCounter(cell->value).value_or(0);
}

}  // namespace rtb::bidder
