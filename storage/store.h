// The one storage layer of rtb-bidder. Every table (profiles, impressions,
// budget, events, metrics, sessions) is reached through a Store, whatever the
// backend behind it:
//   - embedded: an HBase-semantics engine on RocksDB inside the process;
//   - hbase:    Apache HBase through its Thrift2 gateway;
//   - the storage server, which serves an embedded engine over Thrift2.
//
// Errors are absl::Status values. Misuse (unknown table or family, a counter
// that is not 8 bytes wide, a negative limit, an unbounded scan) is
// InvalidArgument with a message naming the thing; an absent row is not an
// error but an empty RowResult.
//
// Thread-safety: a Store is safe to call from any number of threads.
#ifndef RTB_STORAGE_STORE_H_
#define RTB_STORAGE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "boost/asio/any_io_executor.hpp"
#include "storage/clock.h"
#include "storage/types.h"

namespace rtb::storage {

// Streams the rows of a scan in order, a batch at a time.
class Scanner {
 public:
  virtual ~Scanner() = default;
  // Up to `max_rows` further rows; an empty vector means the scan is done.
  virtual absl::StatusOr<std::vector<RowResult>> Next(int max_rows) = 0;
};

using Deadline = std::chrono::steady_clock::time_point;
using GetCallback = std::function<void(absl::StatusOr<RowResult>)>;
using ScanCallback = std::function<void(absl::StatusOr<std::vector<RowResult>>)>;

class Store {
 public:
  virtual ~Store() = default;

  // Admin. CreateTable succeeds when an identical table already exists, and
  // fails with AlreadyExists when a different one does.
  virtual absl::Status CreateTable(const TableSchema& schema) = 0;
  virtual absl::StatusOr<bool> TableExists(std::string_view table) = 0;
  virtual absl::Status DeleteTable(std::string_view table) = 0;
  // The schemas of every table, sorted by name. A backend that cannot list
  // its tables answers Unimplemented, which is what this default does.
  virtual absl::StatusOr<std::vector<TableSchema>> ListTables();
  // Replaces the definition of an existing table (NotFound when missing):
  // families `schema` no longer names are dropped with their cells, new ones
  // start empty, the others take their new settings. Unimplemented by default.
  virtual absl::Status AlterTable(const TableSchema& schema);
  // Deletes every cell of an existing table, keeping its definition.
  // Unimplemented by default.
  virtual absl::Status TruncateTable(std::string_view table);

  virtual absl::StatusOr<RowResult> Get(std::string_view table, const storage::Get& get) = 0;
  virtual absl::StatusOr<std::vector<RowResult>> MultiGet(std::string_view table,
                                                          std::span<const storage::Get> gets) = 0;
  // A Put is atomic for its row: readers see all of its cells or none.
  virtual absl::Status Put(std::string_view table, const storage::Put& put) = 0;
  // Each Put is atomic for its row; the batch as a whole is not.
  virtual absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) = 0;
  virtual absl::Status Delete(std::string_view table, const storage::Delete& del) = 0;
  virtual absl::Status DeleteBatch(std::string_view table,
                                   std::span<const storage::Delete> deletes) = 0;
  // Returns the new values of the incremented columns.
  virtual absl::StatusOr<RowResult> Increment(std::string_view table,
                                              const storage::Increment& increment) = 0;
  // True when the check passed and the mutations were applied.
  virtual absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                              const storage::CheckAndMutate& cam) = 0;
  // Collects at most min(scan.limit, kMaxScanRows) rows.
  virtual absl::StatusOr<std::vector<RowResult>> Scan(std::string_view table,
                                                      const storage::Scan& scan) = 0;
  virtual absl::StatusOr<std::unique_ptr<Scanner>> OpenScanner(std::string_view table,
                                                               const storage::Scan& scan) = 0;

  // Asynchronous reads. The callback runs exactly once, on `executor`: with
  // the answer, or with DeadlineExceeded as soon as `deadline` passes (a late
  // answer is then dropped). No thread of `executor` waits for the answer. The
  // executor's context must outlive the store's pending reads.
  virtual void AsyncGet(std::string_view table, storage::Get get, Deadline deadline,
                        boost::asio::any_io_executor executor, GetCallback done) = 0;
  virtual void AsyncScan(std::string_view table, storage::Scan scan, Deadline deadline,
                         boost::asio::any_io_executor executor, ScanCallback done) = 0;
  // The row at once, for a caller that would otherwise wait for AsyncGet's
  // callback (a turn of its I/O loop): answered when the store has the row
  // without I/O or waiting on another thread (the embedded store: row cache,
  // memtables, block cache), nullopt when it does not, and the caller then
  // reads with AsyncGet. Never blocks. Default nullopt: a remote store always
  // has to wait.
  virtual std::optional<RowResult> GetWithoutWaiting(std::string_view table,
                                                     const storage::Get& get) {
    (void)table;
    (void)get;
    return std::nullopt;
  }
  // True when this store keeps the deadline of its asynchronous reads itself
  // (DeadlineExceeded on `executor` once it passes, never later), so a
  // caller needs no timer of its own for it. Default false: a caller that
  // must answer by the deadline guards the read with its own timer.
  virtual bool KeepsAsyncDeadlines() const { return false; }

  // Flushes memory to files, and rewrites every file of a table dropping
  // expired cells, delete markers and what they mask (HBase major compaction).
  // Remote backends may not support these and return Unimplemented.
  virtual absl::Status Flush(std::string_view table) = 0;
  virtual absl::Status MajorCompact(std::string_view table) = 0;

  // OK when the backend answers.
  virtual absl::Status CheckHealth() = 0;

  // Memory this store holds in the calling process, bytes per part (the
  // embedded engine: see storage/embedded_store.h); empty for a backend
  // that holds its data elsewhere. Cheap enough for every metrics scrape.
  struct MemoryPart {
    const char* part = "";  // a name with static storage
    int64_t bytes = 0;
  };
  virtual std::vector<MemoryPart> MemoryUsage() { return {}; }

  // Reads of whole families the store's row cache answered (hits) and sent
  // on to its engine (misses), since it opened; zero for a store without
  // one. What an operator sizes the cache by.
  struct RowCacheReads {
    int64_t hits = 0;
    int64_t misses = 0;
  };
  virtual RowCacheReads RowCacheReadCounts() { return {}; }

  // The engine's data on disk and its background work, summed over every
  // table, for whoever operates a shared store (storage-server's /metrics);
  // nullopt for a backend whose engine runs elsewhere. The embedded engine
  // reads them from RocksDB's properties: cheap enough for every scrape.
  struct EngineStats {
    int64_t live_data_bytes = 0;           // estimated live data, what a full compaction keeps
    int64_t sst_files_bytes = 0;           // table files on disk, obsolete ones still read included
    int64_t pending_compaction_bytes = 0;  // estimated bytes compaction has to rewrite
    int64_t running_compactions = 0;
    int64_t running_flushes = 0;
    // Bytes per second writes are slowed to while compaction or flushes lag
    // behind; 0 when they are not.
    int64_t delayed_write_rate = 0;
    // True while writes wait until compaction or a flush catches up.
    bool writes_stopped = false;
    // Flushes and compactions that failed; after one the engine refuses writes.
    int64_t background_errors = 0;
  };
  virtual std::optional<EngineStats> ReadEngineStats() { return std::nullopt; }
};

// Creates every table in `schemas` that is missing; fails when one exists
// with a different definition.
absl::Status ApplySchemas(Store& store, std::span<const TableSchema> schemas);

}  // namespace rtb::storage

#endif  // RTB_STORAGE_STORE_H_
