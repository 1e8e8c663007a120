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
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
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
// memory, so the cache holds twice as many of them.
struct CachedRow {
  StoredRow stored;  // empty when `latest` stands for it
  CellList latest;
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
  struct Entry {
    std::shared_ptr<const CachedRow> cells;
    size_t bytes;
    std::list<std::string>::iterator lru;
  };
  struct Shard {
    absl::Mutex mutex;
    uint64_t generation ABSL_GUARDED_BY(mutex) = 0;
    absl::flat_hash_map<std::string, Entry> entries ABSL_GUARDED_BY(mutex);
    std::list<std::string> lru ABSL_GUARDED_BY(mutex);  // most recent first
    size_t bytes ABSL_GUARDED_BY(mutex) = 0;
    // Counted under the lock Lookup takes anyway: no shared counter to
    // contend on.
    uint64_t hits ABSL_GUARDED_BY(mutex) = 0;
    uint64_t misses ABSL_GUARDED_BY(mutex) = 0;
  };

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
