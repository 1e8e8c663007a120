// The embedded backend: an HBase-semantics engine on RocksDB inside the
// process, durable across restarts. Each table family is one RocksDB column
// family; cells are ordered exactly as HBase orders them (see
// storage/internal/cell_key.h) and read with HBase's rules for versions,
// delete markers and TTL (storage/internal/visibility.h).
//
// Thread-safety: the returned Store is safe for concurrent use. Increment,
// CheckAndMutate and Put are atomic per row.
#ifndef RTB_STORAGE_EMBEDDED_STORE_H_
#define RTB_STORAGE_EMBEDDED_STORE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::storage {

struct EmbeddedStoreOptions {
  // Directory of the database; created when missing. Required.
  std::string path;
  // Shared block cache for all families, bytes. Default 256 MiB.
  int64_t block_cache_bytes = int64_t{256} << 20;
  // Share of the block cache reserved for IN_MEMORY families (HBase's
  // in-memory priority), so scans of other families cannot evict them.
  // Default 0.25.
  double in_memory_cache_fraction = 0.25;
  // Cache of the stored cells of hot rows, bytes; 0 disables it. Reads of
  // whole families are served from it (see storage/internal/row_cache.h).
  // Default 64 MiB.
  int64_t row_cache_bytes = int64_t{64} << 20;
  // Memtable size per family, bytes. Default 32 MiB.
  int64_t write_buffer_bytes = int64_t{32} << 20;
  // All families' memtables together, bytes; 0 leaves only the per-family
  // bound (which grows with the number of families). When set, the largest
  // memtable is flushed once the sum passes it, and the memtables' memory is
  // charged to the block cache: blocks are evicted to make room for writes,
  // so the store's memory stays near block_cache_bytes + row_cache_bytes
  // however the load mixes reads and writes. At most the block cache's share
  // for families that are not IN_MEMORY. Negative: a third of that share
  // (64 MiB for the default cache). Default negative.
  int64_t memtable_budget_bytes = -1;
  // How often ASYNC_WAL writes are pushed from the process to the OS, ms.
  // Default 100: a process kill loses at most about this much of them.
  int async_wal_flush_interval_ms = 100;
  // Durability of mutations that say kUseDefault. Default SYNC_WAL, as HBase.
  Durability default_durability = Durability::kSyncWal;
  // Threads that serve AsyncGet/AsyncScan. Default 2.
  int async_threads = 2;
  // Time source for server timestamps, TTL and nonce expiry. Default system.
  std::shared_ptr<Clock> clock;
};

// Store::MemoryUsage of the embedded engine, one part each:
//   block_cache         blocks cached for reads, both caches (at most
//                       block_cache_bytes less what memtables have reserved
//                       in it)
//   block_cache_pinned  the part of those held by open iterators and
//                       readers, which eviction cannot free
//   memtables           writes not yet flushed, every family, and flushed
//                       memtables readers still hold (about
//                       memtable_budget_bytes together; without a budget up
//                       to write_buffer_bytes each, two while one flushes)
//   table_readers       index and filter blocks of open files outside the
//                       block cache
//   row_cache           the row cache's own count of what it holds (at most
//                       row_cache_bytes)
absl::StatusOr<std::unique_ptr<Store>> OpenEmbeddedStore(const EmbeddedStoreOptions& options);

}  // namespace rtb::storage

#endif  // RTB_STORAGE_EMBEDDED_STORE_H_
