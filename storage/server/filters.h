// HBase's server-side filters, as the storage server evaluates them: the
// filters of HBase's filter language (storage/server/filter_language.h) with
// the hooks and return codes of HBase's Filter class, so that combinations
// (AND/OR lists, SKIP, WHILE) and their interplay with versions behave as on
// a region server. ApplyFilter (storage/server/filtered_scanner.h) drives
// them over the cells of each row.
//
// A filter keeps state across the cells of a row (Reset starts a row) and
// across rows (PageFilter counts them, WHILE stops the scan), so one
// instance serves one scan or get.
//
// Thread-safety: none; one instance per scan.
#ifndef RTB_STORAGE_SERVER_FILTERS_H_
#define RTB_STORAGE_SERVER_FILTERS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "storage/types.h"

namespace rtb::storage::server {

// What a filter says of one cell (HBase's Filter.ReturnCode).
enum class ReturnCode {
  kInclude,
  kIncludeAndNextColumn,
  kIncludeAndSeekNextRow,
  kSkip,
  kNextColumn,
  kNextRow,
  kSeekNextUsingHint,
};

// A position among the cells of a row: family, qualifier, then newest first.
struct CellPosition {
  std::string family;
  std::string qualifier;
  int64_t timestamp = kLatestTimestamp;
};

// True when `cell` sorts before `position`.
bool Before(const Cell& cell, const CellPosition& position);

// How the comparison filters compare (HBase's CompareOperator); they keep a
// cell or row when "its value <op> the comparator's" holds.
enum class CompareOperator { kLess, kLessOrEqual, kEqual, kNotEqual, kGreaterOrEqual, kGreater };

// binary:, binaryprefix: and substring: of the filter language.
struct Comparator {
  enum class Kind { kBinary, kBinaryPrefix, kSubstring };
  Kind kind = Kind::kBinary;
  std::string value;

  // HBase's ByteArrayComparable.compareTo(value): < 0 when the comparator's
  // value sorts first. Substring compares case-insensitively and answers 0
  // for "contains", 1 otherwise.
  int CompareTo(std::string_view bytes) const;
};

// True when the cell or row is filtered out: "bytes <op> comparator" fails.
bool CompareFails(CompareOperator op, const Comparator& comparator, std::string_view bytes);

class Filter {
 public:
  virtual ~Filter() = default;

  // Called before each row.
  virtual void Reset() {}
  // True once no further row can pass: the scan ends.
  virtual bool FilterAllRemaining() { return false; }
  // True to drop the row by its key alone.
  virtual bool FilterRowKey(std::string_view) { return false; }
  virtual ReturnCode FilterCell(const Cell& cell) = 0;
  // Changes a cell the filter included (KeyOnlyFilter drops its value).
  virtual void TransformCell(Cell&) {}
  // Called with every cell the row kept when HasFilterRow.
  virtual void FilterRowCells(std::vector<Cell>&) {}
  virtual bool HasFilterRow() { return false; }
  // True to drop the whole row after its cells.
  virtual bool FilterRow() { return false; }
  // Where kSeekNextUsingHint asked to go from `cell`.
  virtual std::optional<CellPosition> NextCellHint(const Cell&) { return std::nullopt; }
  // Scans walking rows backwards reverse what "past the end" means.
  virtual void SetReversed(bool) {}
};

std::unique_ptr<Filter> NewKeyOnlyFilter(bool length_as_value);
std::unique_ptr<Filter> NewFirstKeyOnlyFilter();
std::unique_ptr<Filter> NewPrefixFilter(std::string prefix);
std::unique_ptr<Filter> NewColumnPrefixFilter(std::string prefix);
std::unique_ptr<Filter> NewMultipleColumnPrefixFilter(std::set<std::string> prefixes);
// An empty min or max is no bound.
std::unique_ptr<Filter> NewColumnRangeFilter(std::string min, bool min_inclusive, std::string max,
                                             bool max_inclusive);
std::unique_ptr<Filter> NewColumnCountGetFilter(int limit);
std::unique_ptr<Filter> NewPageFilter(int64_t page_size);
std::unique_ptr<Filter> NewRowFilter(CompareOperator op, Comparator comparator);
std::unique_ptr<Filter> NewQualifierFilter(CompareOperator op, Comparator comparator);
std::unique_ptr<Filter> NewFamilyFilter(CompareOperator op, Comparator comparator);
std::unique_ptr<Filter> NewValueFilter(CompareOperator op, Comparator comparator);
std::unique_ptr<Filter> NewSingleColumnValueFilter(std::string family, std::string qualifier,
                                                   CompareOperator op, Comparator comparator,
                                                   bool filter_if_missing,
                                                   bool latest_version_only);
std::unique_ptr<Filter> NewTimestampsFilter(std::vector<int64_t> timestamps);
std::unique_ptr<Filter> NewInclusiveStopFilter(std::string stop_row);
// SKIP: drops a whole row when the inner filter skips any of its cells.
std::unique_ptr<Filter> NewSkipFilter(std::unique_ptr<Filter> inner);
// WHILE: ends the scan at the first cell or row the inner filter rejects.
std::unique_ptr<Filter> NewWhileMatchFilter(std::unique_ptr<Filter> inner);
// AND (every filter must pass) or OR (one must), HBase's FilterList.
std::unique_ptr<Filter> NewFilterList(bool must_pass_all,
                                      std::vector<std::unique_ptr<Filter>> filters);

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_FILTERS_H_
