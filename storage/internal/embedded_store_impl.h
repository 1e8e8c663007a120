// The embedded backend's Store (storage/embedded_store.h), shared by the
// files that implement it, one concern each:
//   storage/embedded_store.cc         opening, closing, the schema file, WAL
//                                     flushing, RocksDB options and statuses
//   storage/embedded_store_reads.cc   Get, MultiGet, the row cache, async reads
//   storage/embedded_store_scans.cc   Scan and scanners over row intervals
//   storage/embedded_store_writes.cc  Put, Delete, Increment, CheckAndMutate,
//                                     row locks, durability, nonces
//   storage/embedded_store_admin.cc   tables, flush, major compaction
//
// Thread-safety: as Store. Tables are shared_ptrs, so a reader keeps the
// column family handles it uses alive through a concurrent DeleteTable.
#ifndef RTB_STORAGE_INTERNAL_EMBEDDED_STORE_IMPL_H_
#define RTB_STORAGE_INTERNAL_EMBEDDED_STORE_IMPL_H_

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "boost/asio/thread_pool.hpp"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/write_batch.h"
#include "rocksdb/write_buffer_manager.h"
#include "storage/embedded_store.h"
#include "storage/internal/compaction.h"
#include "storage/internal/row_cache.h"
#include "storage/internal/visibility.h"
#include "storage/store.h"

namespace rtb::storage::internal {

// The one place RocksDB statuses become absl statuses.
absl::Status FromRocks(const rocksdb::Status& s, const std::string& what);

inline rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
inline std::string_view ToView(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// The RocksDB column family holding one family of a table.
std::string ColumnFamilyName(std::string_view table, std::string_view family);

// The upper bound of a row's keys: its prefix with the 00 01 terminator
// raised to 00 02. No key of another row falls in between.
std::string RowUpperBound(std::string_view row);

struct Family {
  FamilyOptions options;
  rocksdb::ColumnFamilyHandle* handle = nullptr;
  uint32_t id = 0;  // unique within the process, names the family in the row cache
  // What the family's compactions follow; AlterTable changes it in place.
  std::shared_ptr<CompactionSettings> compaction;
};

// A table and its RocksDB column families. Readers hold a shared_ptr, so a
// concurrent DeleteTable never frees a handle under them.
struct Table {
  TableSchema schema;
  std::vector<Family> families;  // sorted by family name, as HBase orders results
  rocksdb::DB* db = nullptr;

  ~Table();
  const Family* Find(std::string_view name) const;
};

// Which families, and which qualifiers of each, a read selects.
struct Selection {
  struct Entry {
    const Family* family;
    std::vector<std::string> qualifiers;  // sorted; empty = all
  };
  // In family order. In place for up to four families (the profile's two):
  // every Get selects.
  absl::InlinedVector<Entry, 4> entries;
};

Selection Select(const Table& table, const std::vector<Column>& columns);

// Feeds the cells of one row of one family to `filter`, starting with `it`
// at the row's first key, and leaves `it` at the first key after the row.
void ReadFamilyRow(rocksdb::Iterator* it, std::string_view prefix, VisibleCellFilter& filter,
                   CellList* out);

class EmbeddedStoreImpl final : public Store {
 public:
  EmbeddedStoreImpl(EmbeddedStoreOptions options, std::unique_ptr<rocksdb::Env> env);
  ~EmbeddedStoreImpl() override;

  // Opens (or creates) the database and its tables; call once, before any other call.
  absl::Status Open();

  // Admin (embedded_store_admin.cc).
  absl::Status CreateTable(const TableSchema& schema) override;
  absl::StatusOr<bool> TableExists(std::string_view table) override;
  absl::StatusOr<std::vector<TableSchema>> ListTables() override;
  absl::Status DeleteTable(std::string_view name) override;
  absl::Status AlterTable(const TableSchema& schema) override;
  absl::Status TruncateTable(std::string_view name) override;
  absl::Status Flush(std::string_view table_name) override;
  absl::Status MajorCompact(std::string_view table_name) override;

  // Reads (embedded_store_reads.cc).
  absl::StatusOr<RowResult> Get(std::string_view table_name, const storage::Get& get) override;
  absl::StatusOr<std::vector<RowResult>> MultiGet(std::string_view table_name,
                                                  std::span<const storage::Get> gets) override;
  void AsyncGet(std::string_view table, storage::Get get, Deadline deadline,
                boost::asio::any_io_executor executor, GetCallback done) override;
  void AsyncScan(std::string_view table, storage::Scan scan, Deadline deadline,
                 boost::asio::any_io_executor executor, ScanCallback done) override;
  std::optional<RowResult> GetWithoutWaiting(std::string_view table,
                                             const storage::Get& get) override {
    return TryGetWithoutIo(table, get);
  }
  // A read on the pool has a timer on the caller's executor; one answered on
  // the caller's thread is posted only while its deadline has not passed.
  bool KeepsAsyncDeadlines() const override { return true; }

  // Scans (embedded_store_scans.cc).
  absl::StatusOr<std::vector<RowResult>> Scan(std::string_view table_name,
                                              const storage::Scan& scan) override;
  absl::StatusOr<std::unique_ptr<Scanner>> OpenScanner(std::string_view table_name,
                                                       const storage::Scan& scan) override;

  // Writes (embedded_store_writes.cc).
  absl::Status Put(std::string_view table_name, const storage::Put& put) override;
  absl::Status PutBatch(std::string_view table_name, std::span<const storage::Put> puts) override;
  absl::Status Delete(std::string_view table_name, const storage::Delete& del) override;
  absl::Status DeleteBatch(std::string_view table_name,
                           std::span<const storage::Delete> deletes) override;
  absl::StatusOr<RowResult> Increment(std::string_view table_name,
                                      const storage::Increment& inc) override;
  absl::StatusOr<bool> CheckAndMutate(std::string_view table_name,
                                      const storage::CheckAndMutate& cam) override;

  absl::Status CheckHealth() override;
  std::vector<MemoryPart> MemoryUsage() override;
  RowCacheReads RowCacheReadCounts() override;
  std::optional<EngineStats> ReadEngineStats() override;

 private:
  // Holds the row-lock stripes of a set of rows, taken in ascending stripe
  // order so two writers never deadlock.
  class RowLocks {
   public:
    enum class Mode { kExclusive, kShared };
    RowLocks(EmbeddedStoreImpl* store, std::string_view table, std::span<std::string_view> rows,
             Mode mode = Mode::kExclusive);
    ~RowLocks();

   private:
    EmbeddedStoreImpl* store_;
    bool shared_;
    absl::InlinedVector<size_t, 4> stripes_;
  };

  static constexpr size_t kRowLockStripes = 4096;

  // ---- Opening (embedded_store.cc) ----

  // The column family descriptors of every table, after RocksDB's default
  // one and the nonce family (kFirstTableDescriptor), and which (table,
  // family) each stands for.
  static constexpr size_t kNonceDescriptor = 1;
  static constexpr size_t kFirstTableDescriptor = 2;
  struct FamilyLayout {
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    std::vector<std::pair<size_t, size_t>> positions;  // per descriptor from kFirstTableDescriptor
    std::vector<std::shared_ptr<CompactionSettings>> compaction;  // likewise
  };
  FamilyLayout LayOutFamilies(const std::vector<TableSchema>& schemas) const;
  // Builds the tables of `schemas` on the handles RocksDB opened for
  // `layout`, drops the orphans past them, and publishes the tables.
  void AttachTables(const std::vector<TableSchema>& schemas, const FamilyLayout& layout,
                    const std::vector<rocksdb::ColumnFamilyHandle*>& handles);
  // The RocksDB options of a family; `compaction` receives the settings its
  // compactions follow.
  rocksdb::ColumnFamilyOptions FamilyColumnOptions(
      const FamilyOptions& f, std::shared_ptr<CompactionSettings>* compaction) const;
  // The RocksDB options of the Increment nonce records (storage/internal/nonce_record.h).
  rocksdb::ColumnFamilyOptions NonceColumnOptions() const;
  // Creates the column family of `f` in `table` (which is not yet published).
  absl::Status AddFamily(Table& table, const FamilyOptions& f);
  static void SortFamilies(Table& table);
  std::vector<TableSchema> SchemasLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(tables_mutex_);
  absl::StatusOr<std::vector<TableSchema>> ReadSchemaFile() const;
  // Replaces the schema file atomically: write a temporary, then rename.
  absl::Status WriteSchemaFile(const std::vector<TableSchema>& schemas) const;
  absl::StatusOr<std::shared_ptr<const Table>> FindTable(std::string_view name);
  void FlushWalPeriodically();

  // ---- Admin (embedded_store_admin.cc) ----

  // Flushes schedule compactions (FIFO drops expired files that way); a
  // major compaction returns only once they have run, within a bound.
  void WaitForBackgroundCompactions(rocksdb::ColumnFamilyHandle* handle);

  // ---- Reads (embedded_store_reads.cc) ----

  // The row when it can be read without disk I/O (row cache, memtables,
  // block cache), else nullopt; invalid reads are nullopt too, left to Get.
  std::optional<RowResult> TryGetWithoutIo(std::string_view table_name, const storage::Get& get);
  // The same for a scan of at most kMaxRowsScannedWithoutIo rows (a longer
  // one, or one without a limit, is nullopt: it would hold the caller's
  // thread for too long).
  static constexpr int kMaxRowsScannedWithoutIo = 64;
  std::optional<std::vector<RowResult>> TryScanWithoutIo(std::string_view table_name,
                                                         const storage::Scan& scan);
  // Appends what the cached row of `family` shows `get`; false when the row
  // is not in the cache.
  bool AppendCachedFamily(const Family& family, const storage::Get& get, int64_t now,
                          bool latest_only, VisibleCellFilter& filter, CellList* out);
  // With `tier` kBlockCacheTier, a read that needs a block from disk fails
  // (Incomplete) and caches nothing.
  absl::StatusOr<RowResult> ReadRow(const Table& table, const storage::Get& get,
                                    const rocksdb::Snapshot* snapshot,
                                    rocksdb::ReadTier tier = rocksdb::kReadAllTier);
  // Runs `work` on the async pool and answers on `executor`, or with
  // DeadlineExceeded once `deadline` passes.
  template <typename T, typename Work>
  void RunAsync(std::string table, Deadline deadline, boost::asio::any_io_executor executor,
                std::function<void(absl::StatusOr<T>)> done, Work work);

  // ---- Writes (embedded_store_writes.cc) ----

  Durability Resolve(Durability d) const;
  Durability Stronger(Durability a, Durability b) const;
  // Called with the rows' locks held, after their write.
  void Invalidate(const Table& table, std::span<std::string_view> rows);
  void AppendPut(const Table& table, const storage::Put& put, int64_t now,
                 rocksdb::WriteBatch* batch);
  absl::Status AppendDelete(const Table& table, const storage::Delete& del, int64_t now,
                            rocksdb::WriteBatch* batch);
  // Adds the new counter cells of `inc` (repeated columns summed) to `batch`
  // and returns them. Called with the row's lock held.
  absl::StatusOr<RowResult> AppendIncrement(const Table& table, const storage::Increment& inc,
                                            int64_t now, rocksdb::WriteBatch* batch);
  absl::Status Write(rocksdb::WriteBatch* batch, Durability requested);
  // The answer of an earlier Increment under `key` (a NonceKey) that has not
  // expired at `now`, or nullopt. Called with the row's lock held.
  absl::StatusOr<std::optional<RowResult>> FindNonce(const std::string& key, int64_t now);

  const EmbeddedStoreOptions options_;
  std::unique_ptr<rocksdb::Env> env_;
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* nonce_cf_ = nullptr;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::shared_ptr<rocksdb::Cache> in_memory_cache_;
  // Null without a memtable budget.
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffer_manager_;

  absl::Mutex tables_mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<Table>> tables_ ABSL_GUARDED_BY(tables_mutex_);

  std::array<absl::Mutex, kRowLockStripes> row_locks_;
  RowCache row_cache_;
  std::atomic<uint32_t> next_family_id_{1};

  std::mutex wal_mutex_;
  std::condition_variable wal_cv_;
  bool stopping_ = false;
  std::thread wal_flusher_;

  boost::asio::thread_pool async_pool_;
};

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_EMBEDDED_STORE_IMPL_H_
