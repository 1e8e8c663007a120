// The fitted model as the bid path reads it, and how it reaches the bid path
// without a lock: the loop builds an immutable ModelSnapshot and publishes it
// into a SnapshotSlot; each bid-path thread keeps its own reference to the
// current snapshot and checks one atomic version counter per read, taking a
// new reference only after a publication (once per fit).
//
// Thread-safety: ModelSnapshot is immutable. SnapshotSlot::Get from any
// number of threads; Publish from one thread at a time.
#ifndef RTB_PRICING_INTERNAL_MODEL_SNAPSHOT_H_
#define RTB_PRICING_INTERNAL_MODEL_SNAPSHOT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "pricing/internal/model_codec.h"
#include "pricing/internal/win_curve.h"

namespace rtb::pricing::internal {

class ModelSnapshot {
 public:
  // `campaign_ids` in config order: rates are looked up by that position.
  ModelSnapshot(const PricingModel& model, const std::vector<std::string>& campaign_ids);

  int64_t computed_at_ms() const { return computed_at_ms_; }
  // The bucket's curve; nullopt when the model has none for it.
  std::optional<CurveView> Curve(uint64_t bucket) const {
    auto it = index_.find(bucket);
    if (it == index_.end()) return std::nullopt;
    return CurveView{it->second.start, it->second.count, values_.data() + it->second.offset};
  }
  // The campaign's rates; null when the model has none for it.
  const CampaignRates* Rates(size_t campaign) const {
    return campaign < rates_.size() && rates_[campaign].has_value() ? &*rates_[campaign] : nullptr;
  }
  size_t curves() const { return index_.size(); }
  const std::vector<ExchangeFigures>& exchanges() const { return exchanges_; }

 private:
  struct Entry {
    uint32_t offset = 0;
    uint16_t start = 0;
    uint16_t count = 0;
  };
  int64_t computed_at_ms_ = 0;
  absl::flat_hash_map<uint64_t, Entry> index_;
  std::vector<uint16_t> values_;
  std::vector<std::optional<CampaignRates>> rates_;
  std::vector<ExchangeFigures> exchanges_;
};

class SnapshotSlot {
 public:
  SnapshotSlot();
  SnapshotSlot(const SnapshotSlot&) = delete;
  SnapshotSlot& operator=(const SnapshotSlot&) = delete;

  // The current snapshot (null before the first Publish). Valid until this
  // thread calls Get again.
  const ModelSnapshot* Get() const;
  // The current snapshot, shared (for readers off the bid path).
  std::shared_ptr<const ModelSnapshot> Load() const;
  void Publish(std::shared_ptr<const ModelSnapshot> snapshot);

 private:
  const uint64_t id_;
  std::atomic<uint64_t> version_{0};
  std::atomic<std::shared_ptr<const ModelSnapshot>> current_;
};

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_MODEL_SNAPSHOT_H_
