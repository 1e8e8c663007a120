// The filters that combine others (storage/server/filters.h): SKIP, WHILE
// and HBase's FilterList for AND and OR, with its rules for merging the
// return codes of its filters.
#include <algorithm>
#include <optional>
#include <utility>

#include "storage/server/filters.h"

namespace rtb::storage::server {
namespace {

using RC = ReturnCode;

bool IsInclude(RC rc) {
  return rc == RC::kInclude || rc == RC::kIncludeAndNextColumn || rc == RC::kIncludeAndSeekNextRow;
}

bool In(RC rc, std::initializer_list<RC> codes) {
  return std::find(codes.begin(), codes.end(), rc) != codes.end();
}

// ---- Wrappers ----------------------------------------------------------------

class SkipFilter final : public Filter {
 public:
  explicit SkipFilter(std::unique_ptr<Filter> inner) : inner_(std::move(inner)) {}
  void Reset() override {
    inner_->Reset();
    filter_row_ = false;
  }
  bool FilterAllRemaining() override { return inner_->FilterAllRemaining(); }
  bool FilterRowKey(std::string_view row) override { return inner_->FilterRowKey(row); }
  RC FilterCell(const Cell& cell) override {
    RC rc = inner_->FilterCell(cell);
    filter_row_ = filter_row_ || rc != RC::kInclude;
    return rc;
  }
  void TransformCell(Cell& cell) override { inner_->TransformCell(cell); }
  bool FilterRow() override { return filter_row_; }
  bool HasFilterRow() override { return true; }
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    return inner_->NextCellHint(cell);
  }
  void SetReversed(bool reversed) override { inner_->SetReversed(reversed); }

 private:
  std::unique_ptr<Filter> inner_;
  bool filter_row_ = false;
};

class WhileMatchFilter final : public Filter {
 public:
  explicit WhileMatchFilter(std::unique_ptr<Filter> inner) : inner_(std::move(inner)) {}
  void Reset() override { inner_->Reset(); }
  bool FilterAllRemaining() override { return all_remaining_ || inner_->FilterAllRemaining(); }
  bool FilterRowKey(std::string_view row) override {
    if (FilterAllRemaining()) return true;
    const bool filtered = inner_->FilterRowKey(row);
    all_remaining_ = all_remaining_ || filtered;
    return filtered;
  }
  RC FilterCell(const Cell& cell) override {
    RC rc = inner_->FilterCell(cell);
    all_remaining_ = all_remaining_ || rc != RC::kInclude;
    return rc;
  }
  void TransformCell(Cell& cell) override { inner_->TransformCell(cell); }
  void FilterRowCells(std::vector<Cell>& cells) override { inner_->FilterRowCells(cells); }
  bool FilterRow() override {
    const bool filtered = inner_->FilterRow();
    all_remaining_ = all_remaining_ || filtered;
    return filtered;
  }
  bool HasFilterRow() override { return true; }
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    return inner_->NextCellHint(cell);
  }
  void SetReversed(bool reversed) override { inner_->SetReversed(reversed); }

 private:
  std::unique_ptr<Filter> inner_;
  bool all_remaining_ = false;
};

// ---- Lists -------------------------------------------------------------------

// HBase's FilterListWithAND: the strictest answer wins; a hint from any
// filter moves past the cells every hinting filter rejects.
RC MergeAnd(RC rc, RC local) {
  if (rc == RC::kSeekNextUsingHint || local == RC::kSeekNextUsingHint) {
    return RC::kSeekNextUsingHint;
  }
  switch (local) {
    case RC::kInclude:
      return rc;
    case RC::kIncludeAndNextColumn:
      if (In(rc, {RC::kInclude, RC::kIncludeAndNextColumn})) return RC::kIncludeAndNextColumn;
      if (rc == RC::kIncludeAndSeekNextRow) return RC::kIncludeAndSeekNextRow;
      if (In(rc, {RC::kSkip, RC::kNextColumn})) return RC::kNextColumn;
      return RC::kNextRow;
    case RC::kIncludeAndSeekNextRow:
      if (IsInclude(rc)) return RC::kIncludeAndSeekNextRow;
      return RC::kNextRow;
    case RC::kSkip:
      if (In(rc, {RC::kInclude, RC::kSkip})) return RC::kSkip;
      if (In(rc, {RC::kIncludeAndNextColumn, RC::kNextColumn})) return RC::kNextColumn;
      return RC::kNextRow;
    case RC::kNextColumn:
      if (In(rc, {RC::kInclude, RC::kIncludeAndNextColumn, RC::kSkip, RC::kNextColumn})) {
        return RC::kNextColumn;
      }
      return RC::kNextRow;
    case RC::kNextRow:
    case RC::kSeekNextUsingHint:
      break;
  }
  return RC::kNextRow;
}

// HBase's FilterListWithOR: the most permissive answer wins.
RC MergeOr(std::optional<RC> merged, RC local) {
  if (!merged) return local;
  const RC rc = *merged;
  switch (local) {
    case RC::kInclude:
      return RC::kInclude;
    case RC::kIncludeAndNextColumn:
      if (In(rc, {RC::kInclude, RC::kSkip, RC::kSeekNextUsingHint})) return RC::kInclude;
      return RC::kIncludeAndNextColumn;
    case RC::kIncludeAndSeekNextRow:
      if (In(rc, {RC::kInclude, RC::kSkip, RC::kSeekNextUsingHint})) return RC::kInclude;
      if (In(rc, {RC::kIncludeAndNextColumn, RC::kNextColumn})) return RC::kIncludeAndNextColumn;
      return RC::kIncludeAndSeekNextRow;
    case RC::kSkip:
      if (IsInclude(rc)) return RC::kInclude;
      return RC::kSkip;
    case RC::kNextColumn:
      if (rc == RC::kInclude) return RC::kInclude;
      if (In(rc, {RC::kNextColumn, RC::kNextRow})) return RC::kNextColumn;
      if (In(rc, {RC::kIncludeAndNextColumn, RC::kIncludeAndSeekNextRow})) {
        return RC::kIncludeAndNextColumn;
      }
      return RC::kSkip;
    case RC::kNextRow:
      if (IsInclude(rc)) return rc;
      if (In(rc, {RC::kSkip, RC::kSeekNextUsingHint})) return RC::kSkip;
      return rc;
    case RC::kSeekNextUsingHint:
      if (IsInclude(rc)) return RC::kInclude;
      if (In(rc, {RC::kSkip, RC::kNextColumn, RC::kNextRow})) return RC::kSkip;
      return RC::kSeekNextUsingHint;
  }
  return rc;
}

class FilterList final : public Filter {
 public:
  FilterList(bool must_pass_all, std::vector<std::unique_ptr<Filter>> filters)
      : and_(must_pass_all), filters_(std::move(filters)) {
    prev_code_.resize(filters_.size());
    prev_cell_.resize(filters_.size());
    included_.resize(filters_.size());
  }

  void Reset() override {
    for (auto& f : filters_) f->Reset();
    std::fill(prev_code_.begin(), prev_code_.end(), std::nullopt);
    std::fill(prev_cell_.begin(), prev_cell_.end(), std::nullopt);
  }
  bool FilterAllRemaining() override {
    if (filters_.empty()) return false;
    for (auto& f : filters_) {
      if (and_ && f->FilterAllRemaining()) return true;
      if (!and_ && !f->FilterAllRemaining()) return false;
    }
    return !and_;
  }
  bool FilterRowKey(std::string_view row) override {
    if (filters_.empty()) return false;
    bool any = false, all = true;
    for (auto& f : filters_) {
      if (and_) {
        if (f->FilterAllRemaining() || f->FilterRowKey(row)) any = true;
      } else if (f->FilterAllRemaining() || f->FilterRowKey(row)) {
        // filtered by this one
      } else {
        all = false;
      }
    }
    return and_ ? any : all;
  }
  RC FilterCell(const Cell& cell) override {
    return and_ ? FilterCellAnd(cell) : FilterCellOr(cell);
  }
  void TransformCell(Cell& cell) override {
    for (size_t i = 0; i < filters_.size(); ++i) {
      if (and_ || included_[i]) filters_[i]->TransformCell(cell);
    }
  }
  void FilterRowCells(std::vector<Cell>& cells) override {
    for (auto& f : filters_) f->FilterRowCells(cells);
  }
  bool HasFilterRow() override {
    return std::any_of(filters_.begin(), filters_.end(), [](auto& f) { return f->HasFilterRow(); });
  }
  bool FilterRow() override {
    if (filters_.empty()) return false;
    for (auto& f : filters_) {
      const bool filtered = f->FilterRow();
      if (and_ && filtered) return true;
      if (!and_ && !filtered) return false;
    }
    return !and_;
  }
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    // AND: the furthest hint of the hinting filters; OR: the nearest.
    std::optional<CellPosition> out;
    for (size_t i = 0; i < filters_.size(); ++i) {
      if (and_ && !hinting_[i]) continue;
      std::optional<CellPosition> hint = filters_[i]->NextCellHint(cell);
      if (!hint) {
        if (!and_) return std::nullopt;
        continue;
      }
      if (!out || (and_ ? After(*hint, *out) : After(*out, *hint))) out = std::move(hint);
    }
    return out;
  }
  void SetReversed(bool reversed) override {
    for (auto& f : filters_) f->SetReversed(reversed);
  }

 private:
  static bool After(const CellPosition& a, const CellPosition& b) {
    if (a.family != b.family) return a.family > b.family;
    if (a.qualifier != b.qualifier) return a.qualifier > b.qualifier;
    return a.timestamp < b.timestamp;
  }

  RC FilterCellAnd(const Cell& cell) {
    if (filters_.empty()) return RC::kInclude;
    hinting_.assign(filters_.size(), false);
    RC rc = RC::kInclude;
    bool any_hint = false;
    for (size_t i = 0; i < filters_.size(); ++i) {
      if (filters_[i]->FilterAllRemaining()) return RC::kNextRow;
      const RC local = filters_[i]->FilterCell(cell);
      if (local == RC::kSeekNextUsingHint) {
        hinting_[i] = true;
        any_hint = true;
      }
      rc = MergeAnd(rc, local);
    }
    return any_hint ? RC::kSeekNextUsingHint : rc;
  }

  // A filter that asked to move past a column, a family or up to a hint is
  // not asked again before the scan gets there, as in HBase.
  std::optional<RC> Remembered(size_t i, const Cell& cell) {
    if (!prev_code_[i] || !prev_cell_[i]) return std::nullopt;
    const Cell& prev = *prev_cell_[i];
    switch (*prev_code_[i]) {
      case RC::kSeekNextUsingHint: {
        std::optional<CellPosition> hint = filters_[i]->NextCellHint(prev);
        if (hint && Before(cell, *hint)) return RC::kSeekNextUsingHint;
        return std::nullopt;
      }
      case RC::kNextColumn:
      case RC::kIncludeAndNextColumn:
        if (prev.family == cell.family && prev.qualifier == cell.qualifier) return RC::kNextColumn;
        return std::nullopt;
      case RC::kNextRow:
      case RC::kIncludeAndSeekNextRow:
        if (prev.family == cell.family) return RC::kNextRow;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  RC FilterCellOr(const Cell& cell) {
    if (filters_.empty()) return RC::kInclude;
    std::optional<RC> rc;
    bool every_hint = true;
    for (size_t i = 0; i < filters_.size(); ++i) {
      included_[i] = false;
      if (filters_[i]->FilterAllRemaining()) continue;
      std::optional<RC> local = Remembered(i, cell);
      if (!local) {
        local = filters_[i]->FilterCell(cell);
        prev_code_[i] = *local;
        prev_cell_[i] = cell;
      }
      if (*local != RC::kSeekNextUsingHint) every_hint = false;
      rc = MergeOr(rc, *local);
      if (IsInclude(*local)) included_[i] = true;
    }
    if (every_hint) return RC::kSeekNextUsingHint;
    return rc.value_or(RC::kSkip);
  }

  const bool and_;
  std::vector<std::unique_ptr<Filter>> filters_;
  std::vector<std::optional<RC>> prev_code_;
  std::vector<std::optional<Cell>> prev_cell_;
  std::vector<bool> included_;
  std::vector<bool> hinting_;
};

}  // namespace

std::unique_ptr<Filter> NewSkipFilter(std::unique_ptr<Filter> inner) {
  return std::make_unique<SkipFilter>(std::move(inner));
}
std::unique_ptr<Filter> NewWhileMatchFilter(std::unique_ptr<Filter> inner) {
  return std::make_unique<WhileMatchFilter>(std::move(inner));
}
std::unique_ptr<Filter> NewFilterList(bool must_pass_all,
                                      std::vector<std::unique_ptr<Filter>> filters) {
  return std::make_unique<FilterList>(must_pass_all, std::move(filters));
}

}  // namespace rtb::storage::server
