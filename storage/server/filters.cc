// The filters of one kind each (storage/server/filters.h); those that
// combine others are in filters_combined.cc.
#include "storage/server/filters.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "storage/key_bytes.h"

namespace rtb::storage::server {
namespace {

using RC = ReturnCode;

// ---- Single-cell and row-key filters -----------------------------------------

class KeyOnlyFilter final : public Filter {
 public:
  explicit KeyOnlyFilter(bool length_as_value) : length_as_value_(length_as_value) {}
  RC FilterCell(const Cell&) override { return RC::kInclude; }
  void TransformCell(Cell& cell) override {
    if (!length_as_value_) {
      cell.value.clear();
      return;
    }
    const uint32_t n = static_cast<uint32_t>(cell.value.size());
    cell.value.clear();
    AppendBigEndian32(n, &cell.value);
  }

 private:
  const bool length_as_value_;
};

class FirstKeyOnlyFilter final : public Filter {
 public:
  void Reset() override { found_ = false; }
  RC FilterCell(const Cell&) override {
    if (found_) return RC::kNextRow;
    found_ = true;
    return RC::kInclude;
  }

 private:
  bool found_ = false;
};

class PrefixFilter final : public Filter {
 public:
  explicit PrefixFilter(std::string prefix) : prefix_(std::move(prefix)) {}
  void Reset() override { filter_row_ = true; }
  bool FilterAllRemaining() override { return passed_prefix_; }
  bool FilterRowKey(std::string_view row) override {
    if (passed_prefix_) return true;
    if (row.size() < prefix_.size()) {
      // A shorter row sorts before or after the prefix by its own bytes.
      const int cmp = row.compare(prefix_.substr(0, row.size()));
      if ((!reversed_ && cmp > 0) || (reversed_ && cmp < 0)) passed_prefix_ = true;
      filter_row_ = true;
      return true;
    }
    const int cmp = row.substr(0, prefix_.size()).compare(prefix_);
    if ((!reversed_ && cmp > 0) || (reversed_ && cmp < 0)) passed_prefix_ = true;
    filter_row_ = cmp != 0;
    return filter_row_;
  }
  RC FilterCell(const Cell&) override { return filter_row_ ? RC::kNextRow : RC::kInclude; }
  void SetReversed(bool reversed) override { reversed_ = reversed; }

 private:
  const std::string prefix_;
  bool passed_prefix_ = false;
  bool filter_row_ = true;
  bool reversed_ = false;
};

class ColumnPrefixFilter final : public Filter {
 public:
  explicit ColumnPrefixFilter(std::string prefix) : prefix_(std::move(prefix)) {}
  RC FilterCell(const Cell& cell) override {
    const std::string_view q = cell.qualifier;
    if (q.size() < prefix_.size()) {
      return q.compare(std::string_view(prefix_).substr(0, q.size())) <= 0 ? RC::kSeekNextUsingHint
                                                                           : RC::kNextRow;
    }
    const int cmp = q.substr(0, prefix_.size()).compare(prefix_);
    if (cmp < 0) return RC::kSeekNextUsingHint;
    return cmp > 0 ? RC::kNextRow : RC::kInclude;
  }
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    return CellPosition{cell.family, prefix_, kLatestTimestamp};
  }

 private:
  const std::string prefix_;
};

class MultipleColumnPrefixFilter final : public Filter {
 public:
  explicit MultipleColumnPrefixFilter(std::set<std::string> prefixes)
      : prefixes_(std::move(prefixes)) {}
  // As HBase: only the largest prefix not above the qualifier is tried.
  RC FilterCell(const Cell& cell) override {
    if (prefixes_.empty()) return RC::kInclude;
    auto above = prefixes_.upper_bound(cell.qualifier);
    if (above == prefixes_.begin()) {
      hint_ = *prefixes_.begin();
      return RC::kSeekNextUsingHint;
    }
    const std::string& largest = *std::prev(above);
    if (std::string_view(cell.qualifier).starts_with(largest)) return RC::kInclude;
    if (above == prefixes_.end()) return RC::kNextRow;
    hint_ = *above;
    return RC::kSeekNextUsingHint;
  }
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    return CellPosition{cell.family, hint_, kLatestTimestamp};
  }

 private:
  const std::set<std::string> prefixes_;
  std::string hint_;
};

class ColumnRangeFilter final : public Filter {
 public:
  ColumnRangeFilter(std::string min, bool min_inclusive, std::string max, bool max_inclusive)
      : min_(std::move(min)),
        min_inclusive_(min_inclusive),
        max_(std::move(max)),
        max_inclusive_(max_inclusive) {}
  RC FilterCell(const Cell& cell) override {
    if (!min_.empty()) {
      const int cmp_min = cell.qualifier.compare(min_);
      if (cmp_min < 0) return RC::kSeekNextUsingHint;
      if (!min_inclusive_ && cmp_min == 0) return RC::kNextColumn;
    }
    if (max_.empty()) return RC::kInclude;
    const int cmp_max = cell.qualifier.compare(max_);
    if ((max_inclusive_ && cmp_max <= 0) || (!max_inclusive_ && cmp_max < 0)) return RC::kInclude;
    return RC::kNextRow;
  }
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    return CellPosition{cell.family, min_, kLatestTimestamp};
  }

 private:
  const std::string min_;
  const bool min_inclusive_;
  const std::string max_;
  const bool max_inclusive_;
};

// Counts the columns of a row; past the limit it declares the scan over,
// which a region server reads as "this store is done" (see ApplyFilter).
class ColumnCountGetFilter final : public Filter {
 public:
  explicit ColumnCountGetFilter(int limit) : limit_(limit) {}
  void Reset() override { count_ = 0; }
  bool FilterAllRemaining() override { return count_ > limit_; }
  RC FilterCell(const Cell&) override {
    ++count_;
    return FilterAllRemaining() ? RC::kNextColumn : RC::kIncludeAndNextColumn;
  }

 private:
  const int limit_;
  int count_ = 0;
};

class PageFilter final : public Filter {
 public:
  explicit PageFilter(int64_t page_size) : page_size_(page_size) {}
  bool FilterAllRemaining() override { return rows_accepted_ >= page_size_; }
  RC FilterCell(const Cell&) override { return RC::kInclude; }
  bool HasFilterRow() override { return true; }
  bool FilterRow() override {
    ++rows_accepted_;
    return rows_accepted_ > page_size_;
  }

 private:
  const int64_t page_size_;
  int64_t rows_accepted_ = 0;
};

class RowFilter final : public Filter {
 public:
  RowFilter(CompareOperator op, Comparator comparator)
      : op_(op), comparator_(std::move(comparator)) {}
  void Reset() override { filter_out_row_ = false; }
  bool FilterRowKey(std::string_view row) override {
    if (CompareFails(op_, comparator_, row)) filter_out_row_ = true;
    return filter_out_row_;
  }
  RC FilterCell(const Cell&) override { return filter_out_row_ ? RC::kNextRow : RC::kInclude; }
  bool FilterRow() override { return filter_out_row_; }

 private:
  const CompareOperator op_;
  const Comparator comparator_;
  bool filter_out_row_ = false;
};

class QualifierFilter final : public Filter {
 public:
  QualifierFilter(CompareOperator op, Comparator comparator)
      : op_(op), comparator_(std::move(comparator)) {}
  RC FilterCell(const Cell& cell) override {
    return CompareFails(op_, comparator_, cell.qualifier) ? RC::kSkip : RC::kInclude;
  }

 private:
  const CompareOperator op_;
  const Comparator comparator_;
};

class FamilyFilter final : public Filter {
 public:
  FamilyFilter(CompareOperator op, Comparator comparator)
      : op_(op), comparator_(std::move(comparator)) {}
  RC FilterCell(const Cell& cell) override {
    if (!cell.family.empty() && CompareFails(op_, comparator_, cell.family)) return RC::kNextRow;
    return RC::kInclude;
  }

 private:
  const CompareOperator op_;
  const Comparator comparator_;
};

class ValueFilter final : public Filter {
 public:
  ValueFilter(CompareOperator op, Comparator comparator)
      : op_(op), comparator_(std::move(comparator)) {}
  RC FilterCell(const Cell& cell) override {
    return CompareFails(op_, comparator_, cell.value) ? RC::kSkip : RC::kInclude;
  }

 private:
  const CompareOperator op_;
  const Comparator comparator_;
};

class SingleColumnValueFilter final : public Filter {
 public:
  SingleColumnValueFilter(std::string family, std::string qualifier, CompareOperator op,
                          Comparator comparator, bool filter_if_missing, bool latest_version_only)
      : family_(std::move(family)),
        qualifier_(std::move(qualifier)),
        op_(op),
        comparator_(std::move(comparator)),
        filter_if_missing_(filter_if_missing),
        latest_version_only_(latest_version_only) {}
  void Reset() override {
    found_column_ = false;
    matched_column_ = false;
  }
  RC FilterCell(const Cell& cell) override {
    if (matched_column_) return RC::kInclude;
    if (latest_version_only_ && found_column_) return RC::kNextRow;
    if (cell.family != family_ || cell.qualifier != qualifier_) return RC::kInclude;
    found_column_ = true;
    if (CompareFails(op_, comparator_, cell.value)) {
      return latest_version_only_ ? RC::kNextRow : RC::kInclude;
    }
    matched_column_ = true;
    return RC::kInclude;
  }
  bool FilterRow() override { return found_column_ ? !matched_column_ : filter_if_missing_; }
  bool HasFilterRow() override { return true; }

 private:
  const std::string family_;
  const std::string qualifier_;
  const CompareOperator op_;
  const Comparator comparator_;
  const bool filter_if_missing_;
  const bool latest_version_only_;
  bool found_column_ = false;
  bool matched_column_ = false;
};

class TimestampsFilter final : public Filter {
 public:
  explicit TimestampsFilter(std::vector<int64_t> timestamps)
      : timestamps_(timestamps.begin(), timestamps.end()) {}
  RC FilterCell(const Cell& cell) override {
    if (timestamps_.contains(cell.timestamp)) return RC::kInclude;
    if (timestamps_.empty() || cell.timestamp < *timestamps_.begin()) return RC::kNextColumn;
    return RC::kSeekNextUsingHint;
  }
  // The newest wanted timestamp below the cell's, in the same column.
  std::optional<CellPosition> NextCellHint(const Cell& cell) override {
    auto below = timestamps_.lower_bound(cell.timestamp);
    if (below == timestamps_.begin()) return std::nullopt;
    return CellPosition{cell.family, cell.qualifier, *std::prev(below)};
  }

 private:
  const std::set<int64_t> timestamps_;
};

class InclusiveStopFilter final : public Filter {
 public:
  explicit InclusiveStopFilter(std::string stop_row) : stop_row_(std::move(stop_row)) {}
  bool FilterAllRemaining() override { return done_; }
  bool FilterRowKey(std::string_view row) override {
    const int cmp = row.compare(stop_row_);
    done_ = reversed_ ? cmp < 0 : cmp > 0;
    return done_;
  }
  RC FilterCell(const Cell&) override { return done_ ? RC::kNextRow : RC::kInclude; }
  void SetReversed(bool reversed) override { reversed_ = reversed; }

 private:
  const std::string stop_row_;
  bool done_ = false;
  bool reversed_ = false;
};

}  // namespace

bool Before(const Cell& cell, const CellPosition& position) {
  if (cell.family != position.family) return cell.family < position.family;
  if (cell.qualifier != position.qualifier) return cell.qualifier < position.qualifier;
  return cell.timestamp > position.timestamp;
}

int Comparator::CompareTo(std::string_view bytes) const {
  switch (kind) {
    case Kind::kBinary:
      return std::string_view(value).compare(bytes);
    case Kind::kBinaryPrefix:
      return std::string_view(value).compare(bytes.substr(0, std::min(bytes.size(), value.size())));
    case Kind::kSubstring:
      return absl::AsciiStrToLower(std::string(bytes)).find(absl::AsciiStrToLower(value)) ==
                     std::string::npos
                 ? 1
                 : 0;
  }
  return 1;
}

// HBase's CompareFilter.compare: `c` is comparator.compareTo(bytes), so
// LESS keeps bytes below the comparator's value, i.e. c > 0.
bool CompareFails(CompareOperator op, const Comparator& comparator, std::string_view bytes) {
  const int c = comparator.CompareTo(bytes);
  switch (op) {
    case CompareOperator::kLess:
      return c <= 0;
    case CompareOperator::kLessOrEqual:
      return c < 0;
    case CompareOperator::kEqual:
      return c != 0;
    case CompareOperator::kNotEqual:
      return c == 0;
    case CompareOperator::kGreaterOrEqual:
      return c > 0;
    case CompareOperator::kGreater:
      return c >= 0;
  }
  return true;
}

std::unique_ptr<Filter> NewKeyOnlyFilter(bool length_as_value) {
  return std::make_unique<KeyOnlyFilter>(length_as_value);
}
std::unique_ptr<Filter> NewFirstKeyOnlyFilter() { return std::make_unique<FirstKeyOnlyFilter>(); }
std::unique_ptr<Filter> NewPrefixFilter(std::string prefix) {
  return std::make_unique<PrefixFilter>(std::move(prefix));
}
std::unique_ptr<Filter> NewColumnPrefixFilter(std::string prefix) {
  return std::make_unique<ColumnPrefixFilter>(std::move(prefix));
}
std::unique_ptr<Filter> NewMultipleColumnPrefixFilter(std::set<std::string> prefixes) {
  return std::make_unique<MultipleColumnPrefixFilter>(std::move(prefixes));
}
std::unique_ptr<Filter> NewColumnRangeFilter(std::string min, bool min_inclusive, std::string max,
                                             bool max_inclusive) {
  return std::make_unique<ColumnRangeFilter>(std::move(min), min_inclusive, std::move(max),
                                             max_inclusive);
}
std::unique_ptr<Filter> NewColumnCountGetFilter(int limit) {
  return std::make_unique<ColumnCountGetFilter>(limit);
}
std::unique_ptr<Filter> NewPageFilter(int64_t page_size) {
  return std::make_unique<PageFilter>(page_size);
}
std::unique_ptr<Filter> NewRowFilter(CompareOperator op, Comparator comparator) {
  return std::make_unique<RowFilter>(op, std::move(comparator));
}
std::unique_ptr<Filter> NewQualifierFilter(CompareOperator op, Comparator comparator) {
  return std::make_unique<QualifierFilter>(op, std::move(comparator));
}
std::unique_ptr<Filter> NewFamilyFilter(CompareOperator op, Comparator comparator) {
  return std::make_unique<FamilyFilter>(op, std::move(comparator));
}
std::unique_ptr<Filter> NewValueFilter(CompareOperator op, Comparator comparator) {
  return std::make_unique<ValueFilter>(op, std::move(comparator));
}
std::unique_ptr<Filter> NewSingleColumnValueFilter(std::string family, std::string qualifier,
                                                   CompareOperator op, Comparator comparator,
                                                   bool filter_if_missing,
                                                   bool latest_version_only) {
  return std::make_unique<SingleColumnValueFilter>(std::move(family), std::move(qualifier), op,
                                                   std::move(comparator), filter_if_missing,
                                                   latest_version_only);
}
std::unique_ptr<Filter> NewTimestampsFilter(std::vector<int64_t> timestamps) {
  return std::make_unique<TimestampsFilter>(std::move(timestamps));
}
std::unique_ptr<Filter> NewInclusiveStopFilter(std::string stop_row) {
  return std::make_unique<InclusiveStopFilter>(std::move(stop_row));
}
}  // namespace rtb::storage::server
