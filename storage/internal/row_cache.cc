#include "storage/internal/row_cache.h"

#include <algorithm>
#include <bit>

#include "absl/hash/hash.h"
#include "storage/internal/heap_bytes.h"

namespace rtb::storage::internal {

RowCache::RowCache(size_t capacity_bytes) : capacity_per_shard_(capacity_bytes / kShards) {}

size_t RowCache::SizeOf(const CachedRow& row) {
  size_t n = sizeof(CachedRow);
  for (const StoredCell& c : row.stored) {
    n += sizeof(StoredCell) + HeapBytes(c.qualifier) + HeapBytes(c.value);
  }
  return n + row.latest.bytes() - sizeof(PackedCells);
}

RowCache::Key::Key(uint32_t family_id, std::string_view row) {
  char* out = inline_;
  if (row.size() + 4 > sizeof(inline_)) {
    heap_.resize(row.size() + 4);
    out = heap_.data();
  }
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(family_id >> (24 - 8 * i));
  std::copy(row.begin(), row.end(), out + 4);
  data_ = out;
  size_ = row.size() + 4;
}

RowCache::Shard& RowCache::ShardFor(const Key& key) {
  // The hash's top bits: the shard's map uses the bottom seven as each
  // slot's tag, and taking the shard from those left every key of a shard
  // with one of two tags, so a probe compared about half the keys it met.
  static_assert((kShards & (kShards - 1)) == 0 && kShards <= 128);
  constexpr int kShardBits = std::countr_zero(kShards);
  return shards_[absl::HashOf(key.view()) >> (64 - kShardBits)];
}

uint64_t RowCache::Generation(uint32_t family_id, std::string_view row) {
  Key key(family_id, row);
  Shard& shard = ShardFor(key);
  absl::MutexLock lock(&shard.mutex);
  return shard.generation;
}

std::shared_ptr<const CachedRow> RowCache::Lookup(uint32_t family_id, std::string_view row) {
  if (!enabled()) return nullptr;
  Key key(family_id, row);
  Shard& shard = ShardFor(key);
  absl::MutexLock lock(&shard.mutex);
  auto it = shard.entries.find(key.view());
  if (it == shard.entries.end()) {
    ++shard.misses;
    return nullptr;
  }
  ++shard.hits;
  it->second.referenced = true;
  return it->second.cells;
}

RowCache::Reads RowCache::reads() {
  Reads total;
  for (Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mutex);
    total.hits += shard.hits;
    total.misses += shard.misses;
  }
  return total;
}

size_t RowCache::bytes() {
  size_t total = 0;
  for (Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mutex);
    total += shard.bytes;
  }
  return total;
}

void RowCache::Insert(uint32_t family_id, std::string_view row, uint64_t generation,
                      std::shared_ptr<const CachedRow> cells) {
  if (!enabled()) return;
  const size_t bytes = SizeOf(*cells) + row.size();
  if (bytes > kMaxRowBytes || bytes > capacity_per_shard_) return;
  Key key(family_id, row);
  Shard& shard = ShardFor(key);
  Evicted evicted;  // freed after the lock: a row's cells are many frees
  absl::MutexLock lock(&shard.mutex);
  if (shard.generation != generation) return;
  if (auto it = shard.entries.find(key.view()); it != shard.entries.end()) {
    Erase(shard, it, &evicted);
  }
  uint32_t slot;
  if (!shard.free_slots.empty()) {
    slot = shard.free_slots.back();
    shard.free_slots.pop_back();
    shard.clock[slot].assign(key.view().begin(), key.view().end());
  } else {
    slot = static_cast<uint32_t>(shard.clock.size());
    shard.clock.emplace_back(key.view().begin(), key.view().end());
  }
  // Not marked read: a row no one reads again goes at the hand's next pass,
  // before rows that are read (a device seen once does not push out one
  // seen all day). Only the evictions its own insert makes spare it.
  shard.entries.emplace(StoredKey(key.view().begin(), key.view().end()),
                        Entry{std::move(cells), bytes, slot, /*referenced=*/false});
  shard.bytes += bytes;
  while (shard.bytes > capacity_per_shard_ && EvictOne(shard, slot, &evicted)) {
  }
}

void RowCache::Erase(Shard& shard,
                     absl::flat_hash_map<StoredKey, Entry, KeyHash, KeyEq>::iterator it,
                     Evicted* evicted) {
  shard.bytes -= it->second.bytes;
  shard.clock[it->second.clock_slot].clear();
  shard.free_slots.push_back(it->second.clock_slot);
  evicted->push_back(std::move(it->second.cells));
  shard.entries.erase(it);
}

bool RowCache::EvictOne(Shard& shard, uint32_t spared_slot, Evicted* evicted) {
  // Two sweeps at most: the first clears every flag it passes.
  for (size_t step = 0; step <= 2 * shard.clock.size(); ++step) {
    if (shard.hand >= shard.clock.size()) shard.hand = 0;
    const size_t slot = shard.hand++;
    const StoredKey& key = shard.clock[slot];
    if (key.empty() || slot == spared_slot) continue;
    auto it = shard.entries.find(ViewOf(key));
    if (it->second.referenced) {
      it->second.referenced = false;
      continue;
    }
    Erase(shard, it, evicted);
    return true;
  }
  return false;
}

void RowCache::Invalidate(uint32_t family_id, std::string_view row) {
  Key key(family_id, row);
  Shard& shard = ShardFor(key);
  Evicted evicted;
  absl::MutexLock lock(&shard.mutex);
  ++shard.generation;
  if (auto it = shard.entries.find(key.view()); it != shard.entries.end()) {
    Erase(shard, it, &evicted);
  }
}

void RowCache::Clear() {
  for (Shard& shard : shards_) {
    absl::flat_hash_map<StoredKey, Entry, KeyHash, KeyEq> dropped;
    absl::MutexLock lock(&shard.mutex);
    ++shard.generation;
    dropped.swap(shard.entries);
    shard.clock.clear();
    shard.free_slots.clear();
    shard.hand = 0;
    shard.bytes = 0;
  }
}

}  // namespace rtb::storage::internal
