#include "pricing/internal/bid_tally.h"

#include <atomic>
#include <string>
#include <utility>

#include "pricing/internal/pricing_rows.h"

namespace rtb::pricing::internal {

size_t BidTally::ThreadShard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t shard = next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shard;
}

void BidTally::Add(uint64_t bucket, uint32_t hour, int bin) {
  Shard& shard = shards_[ThreadShard()];
  absl::MutexLock lock(&shard.mutex);
  ++shard.counts[TallyKey{bucket, hour, static_cast<uint16_t>(bin)}];
}

std::vector<TallyCount> BidTally::Take() {
  absl::flat_hash_map<TallyKey, int64_t> merged;
  for (Shard& shard : shards_) {
    absl::flat_hash_map<TallyKey, int64_t> taken;
    {
      // The replacement is sized outside the lock, so the bid path keeps
      // adding without allocating.
      size_t size;
      {
        absl::MutexLock lock(&shard.mutex);
        size = shard.counts.size();
      }
      absl::flat_hash_map<TallyKey, int64_t> fresh;
      fresh.reserve(size);
      absl::MutexLock lock(&shard.mutex);
      taken.swap(shard.counts);
      shard.counts.swap(fresh);
    }
    for (const auto& [key, bids] : taken) merged[key] += bids;
  }
  std::vector<TallyCount> counts;
  counts.reserve(merged.size());
  for (const auto& [key, bids] : merged) counts.push_back({key, bids});
  return counts;
}

std::vector<storage::Increment> BidCountIncrements(const std::vector<TallyCount>& counts) {
  absl::flat_hash_map<std::pair<uint64_t, uint32_t>, size_t> rows;
  std::vector<storage::Increment> increments;
  const std::string family(kOutcomeFamily);
  for (const TallyCount& count : counts) {
    auto [it, inserted] =
        rows.emplace(std::make_pair(count.key.bucket, count.key.hour), increments.size());
    if (inserted) {
      increments.emplace_back();
      increments.back().row = OutcomeRow(count.key.bucket, count.key.hour);
      increments.back().durability = storage::Durability::kAsyncWal;
    }
    increments[it->second].columns.push_back(
        {family, OutcomeQualifier(OutcomeKind::kBids, count.key.bin), count.bids});
  }
  return increments;
}

}  // namespace rtb::pricing::internal
