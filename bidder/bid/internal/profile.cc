#include "bidder/bid/internal/profile.h"

#include <functional>

namespace rtb::bidder {

// The cells of `family`: a contiguous run, found by bisection since cells
// are ordered by family (a profile row has ~100 cells; a scan compared each
// one's family).
Profile::CellRange Profile::FamilyCells(std::string_view family) const {
  auto first_not_before = [this](std::string_view wanted, size_t from, auto before) {
    size_t low = from, high = cells_->size();
    while (low < high) {
      const size_t mid = low + (high - low) / 2;
      if (before(cells_->view(mid).family, wanted)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  };
  const size_t first = first_not_before(family, 0, std::less<std::string_view>());
  const size_t last = first_not_before(family, first, std::less_equal<std::string_view>());
  return {first, last};
}

Profile::Profile(const storage::RowResult& row)
    : cells_(&row.cells),
      segments_(FamilyCells(storage::kProfileSegmentFamily)),
      counters_(FamilyCells(storage::kProfileFrequencyCapFamily)) {}

std::optional<storage::CellView> Profile::Find(CellRange cells, std::string_view qualifier) const {
  // Qualifiers compare as unsigned bytes; std::string_view compares chars
  // with char_traits<char>::compare, which is memcmp: unsigned too.
  size_t low = cells.first, high = cells.last;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (cells_->view(mid).qualifier < qualifier) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (low == cells.last) return std::nullopt;
  const storage::CellView cell = cells_->view(low);
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
