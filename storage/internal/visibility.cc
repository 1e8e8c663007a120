#include "storage/internal/visibility.h"

#include <algorithm>

namespace rtb::storage::internal {

int64_t EffectiveTtlMs(const FamilyOptions& family, std::optional<int64_t> cell_ttl_ms) {
  int64_t family_ttl_ms = family.ttl_seconds > 0 ? family.ttl_seconds * 1000 : 0;
  if (!cell_ttl_ms || *cell_ttl_ms <= 0) return family_ttl_ms;
  if (family_ttl_ms == 0) return *cell_ttl_ms;
  return std::min(family_ttl_ms, *cell_ttl_ms);
}

bool IsExpired(int64_t timestamp, int64_t ttl_ms, int64_t now_ms) {
  return ttl_ms > 0 && now_ms - timestamp > ttl_ms;
}

VisibleCellFilter::VisibleCellFilter(const FamilyOptions& family,
                                     const std::vector<std::string>* qualifiers,
                                     TimeRange time_range, int max_versions, int64_t now_ms)
    : family_(family),
      qualifiers_(qualifiers),
      time_range_(time_range),
      max_versions_(std::min(std::max(max_versions, 1), std::max(family.max_versions, 1))),
      now_ms_(now_ms) {}

void VisibleCellFilter::StartRow() {
  family_deleted_through_ = -1;
  family_version_deletes_.clear();
  in_column_ = false;
}

void VisibleCellFilter::StartColumn(std::string_view qualifier) {
  in_column_ = true;
  column_.assign(qualifier);
  column_deleted_through_ = -1;
  version_deletes_.clear();
  versions_seen_ = 0;
  column_stopped_ = false;
}

bool VisibleCellFilter::Wanted(std::string_view qualifier) const {
  if (qualifiers_ == nullptr || qualifiers_->empty()) return true;
  return std::binary_search(qualifiers_->begin(), qualifiers_->end(), qualifier);
}

std::optional<std::string_view> VisibleCellFilter::NextWanted(std::string_view qualifier) const {
  if (qualifiers_ == nullptr || qualifiers_->empty()) return std::nullopt;
  auto it = std::upper_bound(qualifiers_->begin(), qualifiers_->end(), qualifier);
  if (it == qualifiers_->end()) return std::nullopt;
  return std::string_view(*it);
}

namespace {
bool Contains(const std::vector<int64_t>& v, int64_t ts) {
  return std::find(v.begin(), v.end(), ts) != v.end();
}
}  // namespace

void VisibleCellFilter::Add(const CellSuffix& key, const DecodedValue& value, CellList* out) {
  if (!in_column_ || key.qualifier != column_) StartColumn(key.qualifier);
  const int64_t ts = key.timestamp;
  switch (key.type) {
    case CellType::kDeleteFamily:
      family_deleted_through_ = std::max(family_deleted_through_, ts);
      return;
    case CellType::kDeleteFamilyVersion:
      family_version_deletes_.push_back(ts);
      return;
    case CellType::kDeleteColumn:
      column_deleted_through_ = std::max(column_deleted_through_, ts);
      return;
    case CellType::kDeleteVersion:
      version_deletes_.push_back(ts);
      return;
    case CellType::kPut:
      break;
  }
  if (!Wanted(key.qualifier)) return;
  if (ts <= family_deleted_through_ || ts <= column_deleted_through_ ||
      Contains(family_version_deletes_, ts) || Contains(version_deletes_, ts)) {
    return;
  }
  if (ts < time_range_.min || ts >= time_range_.max) return;
  if (column_stopped_) return;
  ++versions_seen_;
  if (versions_seen_ > max_versions_) return;
  const bool expired = IsExpired(ts, EffectiveTtlMs(family_, value.ttl_ms), now_ms_);
  if (expired && family_.min_versions > 0 && qualifiers_ != nullptr && !qualifiers_->empty()) {
    // HBase reads named columns with another tracker (ExplicitColumnTracker)
    // than whole families: it returns the first expired version once
    // min_versions are reached, then stops the column; the whole-family
    // tracker stops before it.
    if (versions_seen_ >= family_.min_versions) column_stopped_ = true;
  } else if (expired && versions_seen_ > family_.min_versions) {
    return;
  }
  out->emplace_back(family_.name, key.qualifier, ts, value.value);
}

}  // namespace rtb::storage::internal
