// Filters (storage/server/filters.h) applied to the rows a Store reads, the
// way an HBase region server applies them: the row key first, then each cell
// of each family in order with the filter's return code deciding what is
// kept and what is skipped (a column, the rest of the family, up to a hint),
// versions counted only among the cells the filter kept, then the row as a
// whole. A filter that says the scan is over ends it, and one that says so
// in the middle of a family, or by the end of the family's cells in a row
// (when the store scanner reads on, before the filter is reset for the next
// row), closes that family for the rest of the scan, as a region server's
// store scanner closes.
//
// The store must be read with every version (the filter sees versions a
// reader would not, as in HBase); `max_versions` is the reader's.
//
// Thread-safety: none; one per scan or get.
#ifndef RTB_STORAGE_SERVER_FILTERED_SCANNER_H_
#define RTB_STORAGE_SERVER_FILTERED_SCANNER_H_

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/server/filters.h"
#include "storage/store.h"

namespace rtb::storage::server {

class RowFiltering {
 public:
  RowFiltering(std::unique_ptr<Filter> filter, int max_versions, bool reversed);

  // The row as the filter leaves it, or nullopt when it drops the row.
  std::optional<RowResult> Apply(const RowResult& row);
  // True once the filter has ended the scan.
  bool done() const { return done_; }

 private:
  // Feeds the cells of one family, [begin, end) of `cells`, to the filter.
  void ApplyFamily(const std::vector<Cell>& cells, size_t begin, size_t end,
                   std::vector<Cell>* out);

  std::unique_ptr<Filter> filter_;
  const int max_versions_;
  std::set<std::string> closed_families_;
  bool done_ = false;
};

// The rows of `inner` that pass the filter, at most `limit` (0: no limit).
class FilteredScanner final : public Scanner {
 public:
  FilteredScanner(std::unique_ptr<Scanner> inner, RowFiltering filtering, int limit);
  absl::StatusOr<std::vector<RowResult>> Next(int max_rows) override;

 private:
  std::unique_ptr<Scanner> inner_;
  RowFiltering filtering_;
  int remaining_;
  // Rows read from `inner_` and not yet filtered.
  std::vector<RowResult> pending_;
  size_t next_pending_ = 0;
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_FILTERED_SCANNER_H_
