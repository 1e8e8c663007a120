// The bids this process sent on first-price buckets, counted in memory per
// (bucket, hour, price bin) by the bid path and taken by the pricing loop,
// which adds them to the outcome rows (internal/pricing_rows.h, kind 'b').
// Bids that never get a notice then count as price losses, so the curves
// hold even for exchanges that send no loss notices.
//
// Each thread counts into its own shard (threads are given shards
// round-robin) under the shard's mutex, which only Take contends for; a
// shard's map keeps its capacity across takes, so the bid path allocates
// only when it meets more keys than the shard held at the last take.
//
// Thread-safety: Add from any number of threads; Take from one at a time.
#ifndef RTB_PRICING_INTERNAL_BID_TALLY_H_
#define RTB_PRICING_INTERNAL_BID_TALLY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "storage/types.h"

namespace rtb::pricing::internal {

struct TallyKey {
  uint64_t bucket = 0;
  uint32_t hour = 0;
  uint16_t bin = 0;

  bool operator==(const TallyKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const TallyKey& key) {
    return H::combine(std::move(h), key.bucket, key.hour, key.bin);
  }
};

struct TallyCount {
  TallyKey key;
  int64_t bids = 0;
};

class BidTally {
 public:
  static constexpr size_t kShards = 16;

  BidTally() = default;
  BidTally(const BidTally&) = delete;
  BidTally& operator=(const BidTally&) = delete;

  void Add(uint64_t bucket, uint32_t hour, int bin);
  // Everything added since the last Take, merged over shards.
  std::vector<TallyCount> Take();

 private:
  struct alignas(64) Shard {
    absl::Mutex mutex;
    absl::flat_hash_map<TallyKey, int64_t> counts ABSL_GUARDED_BY(mutex);
  };
  static size_t ThreadShard();

  std::array<Shard, kShards> shards_;
};

// The Increments that add `counts` to the outcome rows: one per (bucket,
// hour) row, a column per bin. Nonces are left for the caller.
std::vector<storage::Increment> BidCountIncrements(const std::vector<TallyCount>& counts);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_BID_TALLY_H_
