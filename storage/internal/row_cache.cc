#include "storage/internal/row_cache.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace rtb::storage::internal {

RowCache::RowCache(size_t capacity_bytes) : capacity_per_shard_(capacity_bytes / kShards) {}

namespace {

// What a string holds outside itself: nothing while its text fits in place.
size_t HeapBytes(const std::string& s) {
  return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

}  // namespace

size_t RowCache::SizeOf(const CachedRow& row) {
  size_t n = sizeof(CachedRow);
  for (const StoredCell& c : row.stored) {
    n += sizeof(StoredCell) + HeapBytes(c.qualifier) + HeapBytes(c.value);
  }
  for (const Cell& c : row.latest) {
    n += sizeof(Cell) + HeapBytes(c.family) + HeapBytes(c.qualifier) + HeapBytes(c.value);
  }
  return n;
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
  return shards_[absl::HashOf(key.view()) % kShards];
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
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
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
  absl::MutexLock lock(&shard.mutex);
  if (shard.generation != generation) return;
  if (auto it = shard.entries.find(key.view()); it != shard.entries.end()) {
    shard.bytes -= it->second.bytes;
    shard.lru.erase(it->second.lru);
    shard.entries.erase(it);
  }
  shard.lru.emplace_front(key.view().data(), key.view().size());
  shard.entries.emplace(shard.lru.front(), Entry{std::move(cells), bytes, shard.lru.begin()});
  shard.bytes += bytes;
  while (shard.bytes > capacity_per_shard_ && !shard.lru.empty()) {
    auto victim = shard.entries.find(shard.lru.back());
    shard.bytes -= victim->second.bytes;
    shard.entries.erase(victim);
    shard.lru.pop_back();
  }
}

void RowCache::Invalidate(uint32_t family_id, std::string_view row) {
  Key key(family_id, row);
  Shard& shard = ShardFor(key);
  absl::MutexLock lock(&shard.mutex);
  ++shard.generation;
  if (auto it = shard.entries.find(key.view()); it != shard.entries.end()) {
    shard.bytes -= it->second.bytes;
    shard.lru.erase(it->second.lru);
    shard.entries.erase(it);
  }
}

void RowCache::Clear() {
  for (Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mutex);
    ++shard.generation;
    shard.entries.clear();
    shard.lru.clear();
    shard.bytes = 0;
  }
}

}  // namespace rtb::storage::internal
