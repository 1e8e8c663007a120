// A cache of the stored cells of recently read rows, per table family, in
// front of the embedded engine's RocksDB iterators. Reading a row cell by
// cell costs one iterator step per cell; a profile row of a hundred cells
// is then many times slower than one RocksDB Get of the same bytes. Hot rows
// (a Zipf-distributed device population) are served from here instead.
//
// It caches what is stored, delete markers and TTLs included, not what a
// reader saw: visibility (versions, masking, expiry against "now") is
// computed on every read, so a cached row never serves an expired cell.
// Writers invalidate the rows they touch while holding the row lock; a
// reader only inserts what it read if no writer touched the shard since it
// began reading, so a stale row can never be cached.
//
// Thread-safety: safe for concurrent use.
#ifndef RTB_STORAGE_INTERNAL_ROW_CACHE_H_
#define RTB_STORAGE_INTERNAL_ROW_CACHE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/mutex.h"
#include "storage/internal/cell_key.h"
#include "storage/types.h"

namespace rtb::storage::internal {

struct StoredCell {
  std::string qualifier;
  int64_t timestamp = 0;
  CellType type = CellType::kPut;
  std::optional<int64_t> ttl_ms;
  std::string value;
};
using StoredRow = std::vector<StoredCell>;

// A cached family row: what is stored, and what the commonest read (latest
// version of every column, any time) sees, valid until a cell's TTL ends.
//
// Most rows store one version of each column and nothing else (a profile's
// segments): then every stored cell is in `latest`, which alone is kept
// (`stored` empty) and stands for what is stored. That halves such a row's
// memory, so the cache holds twice as many of them. `latest` is packed, a
// third of the memory of the same cells as Cell values, and handed to
// readers without being copied or unpacked.
struct CachedRow {
  StoredRow stored;  // empty when `latest` stands for it
  PackedCells latest;
  int64_t latest_valid_until_ms = 0;

  // A row with no cell at all reads the same either way.
  bool stored_is_latest() const { return stored.empty(); }
};

class RowCache {
 public:
  // 0 disables the cache.
  explicit RowCache(size_t capacity_bytes);

  bool enabled() const { return capacity_per_shard_ > 0; }
  // Rows larger than this are read from the store every time.
  static constexpr size_t kMaxRowBytes = 64 * 1024;

  // Taken before reading the store; Insert refuses when it changed.
  uint64_t Generation(uint32_t family_id, std::string_view row);
  std::shared_ptr<const CachedRow> Lookup(uint32_t family_id, std::string_view row);
  void Insert(uint32_t family_id, std::string_view row, uint64_t generation,
              std::shared_ptr<const CachedRow> row_cells);
  void Invalidate(uint32_t family_id, std::string_view row);
  void Clear();

  static size_t SizeOf(const CachedRow& row);
  // What the cache counts against its capacity now (SizeOf of each row plus
  // its key), summed over the shards.
  size_t bytes();
  // Lookups that found their row, and those that did not, since creation.
  struct Reads {
    uint64_t hits = 0;
    uint64_t misses = 0;
  };
  Reads reads();

 private:
  static constexpr size_t kShards = 64;

  // A key as the shards hold it: in place up to 28 bytes (a profile's is
  // 4 + 16), so a hit compares it without following a pointer.
  using StoredKey = absl::InlinedVector<char, 28>;
  static absl::string_view ViewOf(absl::string_view key) { return key; }
  static absl::string_view ViewOf(const StoredKey& key) {
    return absl::string_view(key.data(), key.size());
  }
  struct KeyHash {
    using is_transparent = void;
    template <typename K>
    size_t operator()(const K& key) const {
      return absl::Hash<absl::string_view>()(ViewOf(key));
    }
  };
  struct KeyEq {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return ViewOf(a) == ViewOf(b);
    }
  };

  struct Entry {
    std::shared_ptr<const CachedRow> cells;
    size_t bytes;
    uint32_t clock_slot;  // where the shard's clock holds its key
    bool referenced;      // read since the clock's hand last passed it
  };
  // Victims are picked by CLOCK, not LRU: a hit sets a flag in the entry it
  // has just found instead of moving a list node, which touched two more
  // cache lines per hit. The hand sweeps the slots in order, sparing once
  // each row read since its last pass.
  struct Shard {
    absl::Mutex mutex;
    uint64_t generation ABSL_GUARDED_BY(mutex) = 0;
    absl::flat_hash_map<StoredKey, Entry, KeyHash, KeyEq> entries ABSL_GUARDED_BY(mutex);
    std::vector<StoredKey> clock ABSL_GUARDED_BY(mutex);  // an empty key: a free slot
    std::vector<uint32_t> free_slots ABSL_GUARDED_BY(mutex);
    size_t hand ABSL_GUARDED_BY(mutex) = 0;
    size_t bytes ABSL_GUARDED_BY(mutex) = 0;
    // Counted under the lock Lookup takes anyway: no shared counter to
    // contend on.
    uint64_t hits ABSL_GUARDED_BY(mutex) = 0;
    uint64_t misses ABSL_GUARDED_BY(mutex) = 0;
  };
  using Evicted = absl::InlinedVector<std::shared_ptr<const CachedRow>, 4>;

  // Removes `it`, keeping its row in `*evicted` to be freed after the lock.
  static void Erase(Shard& shard,
                    absl::flat_hash_map<StoredKey, Entry, KeyHash, KeyEq>::iterator it,
                    Evicted* evicted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mutex);
  // Removes the row the hand stops at, never the one in `spared_slot`;
  // false when there is no other.
  static bool EvictOne(Shard& shard, uint32_t spared_slot, Evicted* evicted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mutex);

  // The cache key, 4-byte family id + row, built in `buffer` without
  // allocating for rows up to 60 bytes.
  class Key {
   public:
    Key(uint32_t family_id, std::string_view row);
    absl::string_view view() const { return absl::string_view(data_, size_); }

   private:
    char inline_[64];
    std::string heap_;
    const char* data_;
    size_t size_;
  };
  Shard& ShardFor(const Key& key);

  const size_t capacity_per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_ROW_CACHE_H_
