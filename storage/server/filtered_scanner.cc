#include "storage/server/filtered_scanner.h"

#include <utility>

namespace rtb::storage::server {

RowFiltering::RowFiltering(std::unique_ptr<Filter> filter, int max_versions, bool reversed)
    : filter_(std::move(filter)), max_versions_(max_versions) {
  filter_->SetReversed(reversed);
  filter_->Reset();
}

std::optional<RowResult> RowFiltering::Apply(const RowResult& row) {
  if (done_ || filter_->FilterAllRemaining()) {
    done_ = true;
    return std::nullopt;
  }
  std::optional<RowResult> out;
  if (!filter_->FilterRowKey(row.row)) {
    const std::vector<Cell> cells = row.cells.ToVector();
    std::vector<Cell> kept;
    for (size_t begin = 0; begin < cells.size();) {
      size_t end = begin;
      while (end < cells.size() && cells[end].family == cells[begin].family) ++end;
      if (!closed_families_.contains(cells[begin].family)) {
        ApplyFamily(cells, begin, end, &kept);
        // The store scanner reads the family's next cell (in a later row)
        // before the row ends and the filter is reset: a filter done by then
        // closes the family for the rest of the scan (ColumnCountGetFilter
        // past its count in a scan).
        if (filter_->FilterAllRemaining()) closed_families_.insert(cells[begin].family);
      }
      begin = end;
    }
    const bool empty = kept.empty();
    bool excluded = empty;
    if (filter_->HasFilterRow()) {
      filter_->FilterRowCells(kept);
      if (!kept.empty() && filter_->FilterRow()) excluded = true;
    } else if (!excluded) {
      excluded = filter_->FilterRow();
    }
    if (!excluded && !kept.empty()) out = RowResult{row.row, CellList(std::move(kept)), row.stale};
  }
  filter_->Reset();
  if (filter_->FilterAllRemaining()) done_ = true;
  return out;
}

void RowFiltering::ApplyFamily(const std::vector<Cell>& cells, size_t begin, size_t end,
                               std::vector<Cell>* out) {
  size_t i = begin;
  const std::string* column = nullptr;
  int versions = 0;
  auto skip_column = [&] {
    const std::string& q = cells[i].qualifier;
    while (i < end && cells[i].qualifier == q) ++i;
  };
  while (i < end) {
    const Cell& cell = cells[i];
    if (filter_->FilterAllRemaining()) {
      // A region server's store scanner stops here for good.
      closed_families_.insert(cell.family);
      return;
    }
    if (column == nullptr || *column != cell.qualifier) {
      column = &cell.qualifier;
      versions = 0;
    }
    const ReturnCode rc = filter_->FilterCell(cell);
    switch (rc) {
      case ReturnCode::kSkip:
        ++i;
        continue;
      case ReturnCode::kNextColumn:
        skip_column();
        continue;
      case ReturnCode::kNextRow:
        return;
      case ReturnCode::kSeekNextUsingHint: {
        std::optional<CellPosition> hint = filter_->NextCellHint(cell);
        if (!hint) {
          ++i;
          continue;
        }
        ++i;
        while (i < end && Before(cells[i], *hint)) ++i;
        continue;
      }
      case ReturnCode::kInclude:
      case ReturnCode::kIncludeAndNextColumn:
      case ReturnCode::kIncludeAndSeekNextRow:
        break;
    }
    if (versions >= max_versions_) {
      skip_column();
      continue;
    }
    ++versions;
    Cell kept = cell;
    filter_->TransformCell(kept);
    out->push_back(std::move(kept));
    if (rc == ReturnCode::kIncludeAndNextColumn) {
      skip_column();
    } else if (rc == ReturnCode::kIncludeAndSeekNextRow) {
      return;
    } else {
      ++i;
    }
  }
}

FilteredScanner::FilteredScanner(std::unique_ptr<Scanner> inner, RowFiltering filtering, int limit)
    : inner_(std::move(inner)),
      filtering_(std::move(filtering)),
      remaining_(limit > 0 ? limit : -1) {}

absl::StatusOr<std::vector<RowResult>> FilteredScanner::Next(int max_rows) {
  std::vector<RowResult> out;
  constexpr int kBatch = 256;
  while (static_cast<int>(out.size()) < max_rows && remaining_ != 0 && !filtering_.done()) {
    if (next_pending_ == pending_.size()) {
      absl::StatusOr<std::vector<RowResult>> rows = inner_->Next(kBatch);
      if (!rows.ok()) return rows.status();
      if (rows->empty()) break;
      pending_ = *std::move(rows);
      next_pending_ = 0;
    }
    std::optional<RowResult> kept = filtering_.Apply(pending_[next_pending_++]);
    if (kept) {
      out.push_back(*std::move(kept));
      if (remaining_ > 0) --remaining_;
    }
  }
  return out;
}

}  // namespace rtb::storage::server
