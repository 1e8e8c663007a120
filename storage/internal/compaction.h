// The embedded engine's compaction: what leaves disk when RocksDB rewrites
// files. Expired cells (beyond min_versions), versions beyond max_versions and
// cells hidden by a marker in the same compaction are dropped. Delete markers
// themselves are dropped only by a compaction that includes every file of the
// family (HBase's major compaction), because only then can nothing they mask
// remain elsewhere.
//
// Thread-safety: RocksDB creates one filter per compaction, with the family
// settings of that moment; the settings change under a lock when a table is
// altered.
#ifndef RTB_STORAGE_INTERNAL_COMPACTION_H_
#define RTB_STORAGE_INTERNAL_COMPACTION_H_

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/slice_transform.h"
#include "storage/clock.h"
#include "storage/types.h"

namespace rtb::storage::internal {

// The settings of one family that its compactions follow.
class CompactionSettings {
 public:
  explicit CompactionSettings(FamilyOptions family) : family_(std::move(family)) {}
  FamilyOptions Get() const;
  void Set(FamilyOptions family);

 private:
  mutable absl::Mutex mutex_;
  FamilyOptions family_ ABSL_GUARDED_BY(mutex_);
};

std::shared_ptr<rocksdb::CompactionFilterFactory> NewHBaseCompactionFilterFactory(
    std::shared_ptr<const CompactionSettings> settings, std::shared_ptr<Clock> clock);

// Prefix extractor for row bloom filters: the escaped row of a cell key.
// ROWCOL families use it too, since every read of the engine seeks a row.
std::shared_ptr<const rocksdb::SliceTransform> NewRowPrefixTransform();

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_COMPACTION_H_
