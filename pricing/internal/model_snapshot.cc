#include "pricing/internal/model_snapshot.h"

#include <utility>

#include "absl/container/flat_hash_map.h"

namespace rtb::pricing::internal {
namespace {

uint64_t NextSlotId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

ModelSnapshot::ModelSnapshot(const PricingModel& model,
                             const std::vector<std::string>& campaign_ids)
    : computed_at_ms_(model.computed_at_ms), exchanges_(model.exchanges) {
  size_t values = 0;
  for (const BucketCurve& curve : model.curves) values += curve.values.size();
  values_.reserve(values);
  index_.reserve(model.curves.size());
  for (const BucketCurve& curve : model.curves) {
    if (curve.values.size() < 2) continue;
    Entry entry;
    entry.offset = static_cast<uint32_t>(values_.size());
    entry.start = static_cast<uint16_t>(curve.start);
    entry.count = static_cast<uint16_t>(curve.values.size() - 1);
    if (!index_.emplace(curve.bucket, entry).second) continue;
    values_.insert(values_.end(), curve.values.begin(), curve.values.end());
  }
  absl::flat_hash_map<std::string, size_t> position;
  for (size_t i = 0; i < campaign_ids.size(); ++i) position.emplace(campaign_ids[i], i);
  rates_.resize(campaign_ids.size());
  for (const CampaignRates& rates : model.campaigns) {
    auto it = position.find(rates.campaign_id);
    if (it != position.end()) rates_[it->second] = rates;
  }
}

SnapshotSlot::SnapshotSlot() : id_(NextSlotId()) {}

const ModelSnapshot* SnapshotSlot::Get() const {
  struct Cached {
    uint64_t slot = 0;
    uint64_t version = 0;
    std::shared_ptr<const ModelSnapshot> snapshot;
  };
  thread_local Cached cached;
  const uint64_t version = version_.load(std::memory_order_acquire);
  if (cached.slot != id_ || cached.version != version) {
    cached.snapshot = current_.load(std::memory_order_acquire);
    cached.slot = id_;
    cached.version = version;
  }
  return cached.snapshot.get();
}

std::shared_ptr<const ModelSnapshot> SnapshotSlot::Load() const {
  return current_.load(std::memory_order_acquire);
}

void SnapshotSlot::Publish(std::shared_ptr<const ModelSnapshot> snapshot) {
  current_.store(std::move(snapshot), std::memory_order_release);
  version_.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace rtb::pricing::internal
