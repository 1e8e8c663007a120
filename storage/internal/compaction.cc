#include "storage/internal/compaction.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "storage/internal/cell_key.h"
#include "storage/internal/visibility.h"

namespace rtb::storage::internal {
namespace {

class HBaseCompactionFilter : public rocksdb::CompactionFilter {
 public:
  HBaseCompactionFilter(FamilyOptions family, int64_t now_ms, bool major)
      : family_(std::move(family)), now_ms_(now_ms), major_(major) {}

  const char* Name() const override { return "rtb.HBaseCompactionFilter"; }

  Decision FilterV2(int /*level*/, const rocksdb::Slice& key, ValueType value_type,
                    const rocksdb::Slice& existing_value, std::string* /*new_value*/,
                    std::string* /*skip_until*/) const override {
    if (value_type != kValue) return Decision::kKeep;
    if (!DecodeKey(std::string_view(key.data(), key.size()), &key_)) return Decision::kKeep;
    if (key_.row != row_) {
      row_ = key_.row;
      family_deleted_through_ = -1;
      family_version_deletes_.clear();
      column_valid_ = false;
    }
    if (!column_valid_ || key_.qualifier != column_) {
      column_valid_ = true;
      column_ = key_.qualifier;
      column_deleted_through_ = -1;
      version_deletes_.clear();
      versions_seen_ = 0;
    }
    const int64_t ts = key_.timestamp;
    switch (key_.type) {
      case CellType::kDeleteFamily:
        family_deleted_through_ = std::max(family_deleted_through_, ts);
        return major_ ? Decision::kRemove : Decision::kKeep;
      case CellType::kDeleteFamilyVersion:
        family_version_deletes_.insert(ts);
        return major_ ? Decision::kRemove : Decision::kKeep;
      case CellType::kDeleteColumn:
        column_deleted_through_ = std::max(column_deleted_through_, ts);
        return major_ ? Decision::kRemove : Decision::kKeep;
      case CellType::kDeleteVersion:
        version_deletes_.insert(ts);
        return major_ ? Decision::kRemove : Decision::kKeep;
      case CellType::kPut:
        break;
    }
    if (ts <= family_deleted_through_ || ts <= column_deleted_through_ ||
        family_version_deletes_.contains(ts) || version_deletes_.contains(ts)) {
      return Decision::kRemove;
    }
    // Versions counted here are at most the true rank of this cell (newer
    // versions may sit in files outside this compaction), so dropping on
    // these counts never drops a cell a reader could still see.
    ++versions_seen_;
    if (versions_seen_ > std::max(family_.max_versions, 1)) return Decision::kRemove;
    DecodedValue value;
    if (!DecodeValue(std::string_view(existing_value.data(), existing_value.size()), &value)) {
      return Decision::kKeep;
    }
    if (IsExpired(ts, EffectiveTtlMs(family_, value.ttl_ms), now_ms_) &&
        versions_seen_ > family_.min_versions) {
      return Decision::kRemove;
    }
    return Decision::kKeep;
  }

 private:
  const FamilyOptions family_;
  const int64_t now_ms_;
  const bool major_;
  // RocksDB calls FilterV2 in key order from one thread per filter instance.
  mutable DecodedKey key_;
  mutable std::string row_;
  mutable int64_t family_deleted_through_ = -1;
  mutable absl::flat_hash_set<int64_t> family_version_deletes_;
  mutable bool column_valid_ = false;
  mutable std::string column_;
  mutable int64_t column_deleted_through_ = -1;
  mutable absl::flat_hash_set<int64_t> version_deletes_;
  mutable int versions_seen_ = 0;
};

class HBaseCompactionFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  HBaseCompactionFilterFactory(std::shared_ptr<const CompactionSettings> settings,
                               std::shared_ptr<Clock> clock)
      : settings_(std::move(settings)), clock_(std::move(clock)) {}

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override {
    return std::make_unique<HBaseCompactionFilter>(settings_->Get(), clock_->NowMillis(),
                                                   context.is_full_compaction);
  }

  // Flushes drop extra versions, expired cells and cells masked within the
  // flush too, as HBase's memstore flush does; markers stay until a major
  // compaction.
  bool ShouldFilterTableFileCreation(rocksdb::TableFileCreationReason reason) const override {
    return reason == rocksdb::TableFileCreationReason::kCompaction ||
           reason == rocksdb::TableFileCreationReason::kFlush;
  }

  const char* Name() const override { return "rtb.HBaseCompactionFilterFactory"; }

 private:
  const std::shared_ptr<const CompactionSettings> settings_;
  const std::shared_ptr<Clock> clock_;
};

class RowPrefixTransform : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "rtb.RowPrefix"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return rocksdb::Slice(key.data(), Length(key));
  }
  bool InDomain(const rocksdb::Slice& key) const override { return Length(key) > 0; }

 private:
  static size_t Length(const rocksdb::Slice& key) {
    return RowPrefixLength(std::string_view(key.data(), key.size()));
  }
};

}  // namespace

FamilyOptions CompactionSettings::Get() const {
  absl::MutexLock lock(&mutex_);
  return family_;
}

void CompactionSettings::Set(FamilyOptions family) {
  absl::MutexLock lock(&mutex_);
  family_ = std::move(family);
}

std::shared_ptr<rocksdb::CompactionFilterFactory> NewHBaseCompactionFilterFactory(
    std::shared_ptr<const CompactionSettings> settings, std::shared_ptr<Clock> clock) {
  return std::make_shared<HBaseCompactionFilterFactory>(std::move(settings), std::move(clock));
}

std::shared_ptr<const rocksdb::SliceTransform> NewRowPrefixTransform() {
  return std::make_shared<RowPrefixTransform>();
}

}  // namespace rtb::storage::internal
