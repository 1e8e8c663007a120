// Which stored cells a reader sees: HBase's rules for delete markers,
// versions, time ranges and TTL, applied to the cells of one family of one
// row as they come out of the engine in key order.
//
// Masking: a DeleteFamily marker hides every cell of the family at or before
// its timestamp; DeleteFamilyVersion hides cells at exactly its timestamp;
// DeleteColumn hides versions of its column at or before its timestamp;
// Delete hides the one version at its timestamp. Markers apply whatever the
// reader's time range, and until a major compaction removes them, so a put
// with an older explicit timestamp written after a delete stays hidden.
//
// Expiry: a cell expires when now - timestamp exceeds its TTL, the smaller of
// the family TTL (seconds) and the cell TTL (milliseconds): a cell TTL can
// shorten a family TTL, never extend it. The newest `min_versions` versions of
// a column are kept even when expired; a read that names the column (rather
// than its family) also gets the first expired version past them, as HBase's
// ExplicitColumnTracker returns it.
//
// Thread-safety: one instance per reader thread.
#ifndef RTB_STORAGE_INTERNAL_VISIBILITY_H_
#define RTB_STORAGE_INTERNAL_VISIBILITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/internal/cell_key.h"
#include "storage/types.h"

namespace rtb::storage::internal {

// Milliseconds a cell lives, or 0 for ever.
int64_t EffectiveTtlMs(const FamilyOptions& family, std::optional<int64_t> cell_ttl_ms);
bool IsExpired(int64_t timestamp, int64_t ttl_ms, int64_t now_ms);

class VisibleCellFilter {
 public:
  // `qualifiers` (sorted, may be empty for "all") must outlive the filter.
  VisibleCellFilter(const FamilyOptions& family, const std::vector<std::string>* qualifiers,
                    TimeRange time_range, int max_versions, int64_t now_ms);

  // Call before the first cell of every row.
  void StartRow();
  // Feeds one stored cell; appends it to `out` when the reader sees it.
  void Add(const CellSuffix& cell, const DecodedValue& value, CellList* out);
  // True once the current column has yielded all the versions a reader
  // asked for: its remaining cells can be skipped.
  bool ColumnDone() const {
    return in_column_ && (versions_seen_ >= max_versions_ || column_stopped_);
  }
  bool Wanted(std::string_view qualifier) const;
  // The first selected qualifier after `qualifier`, when only some are selected.
  std::optional<std::string_view> NextWanted(std::string_view qualifier) const;
  bool InColumn(std::string_view qualifier) const { return in_column_ && qualifier == column_; }

 private:
  void StartColumn(std::string_view qualifier);

  const FamilyOptions& family_;
  const std::vector<std::string>* qualifiers_;
  TimeRange time_range_;
  int max_versions_;
  int64_t now_ms_;

  int64_t family_deleted_through_ = -1;
  std::vector<int64_t> family_version_deletes_;
  bool in_column_ = false;
  std::string column_;
  int64_t column_deleted_through_ = -1;
  std::vector<int64_t> version_deletes_;
  int versions_seen_ = 0;
  bool column_stopped_ = false;  // no further version of the column is visible
};

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_VISIBILITY_H_
