// The embedded backend (storage/embedded_store.h): opening and closing the
// database, the schema file, the write-ahead log flusher and RocksDB's options
// per family. Reads, scans, writes and admin calls live in the
// embedded_store_*.cc files beside this one (storage/internal/embedded_store_impl.h).
#include "storage/embedded_store.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/system_clock.h"
#include "rocksdb/table.h"
#include "storage/internal/compaction.h"
#include "storage/internal/embedded_store_impl.h"
#include "storage/internal/nonce_record.h"
#include "storage/internal/schema_codec.h"

namespace rtb::storage {
namespace internal {
namespace {

constexpr char kSchemaFile[] = "SCHEMAS";

// The block cache's share for families that are not IN_MEMORY, bytes.
int64_t SharedBlockCacheBytes(const EmbeddedStoreOptions& options) {
  return static_cast<int64_t>(options.block_cache_bytes * (1.0 - options.in_memory_cache_fraction));
}

// Makes RocksDB's wall-clock reads (file creation times, FIFO TTL) follow the
// store's Clock, so expiry can be tested without sleeping. Only the seconds
// clock is replaced; RocksDB's internal timers keep real time.
class StoreSystemClock : public rocksdb::SystemClockWrapper {
 public:
  explicit StoreSystemClock(std::shared_ptr<Clock> clock)
      : rocksdb::SystemClockWrapper(rocksdb::SystemClock::Default()), clock_(std::move(clock)) {}
  const char* Name() const override { return "rtb.StoreSystemClock"; }
  rocksdb::Status GetCurrentTime(int64_t* unix_time) override {
    *unix_time = clock_->NowMillis() / 1000;
    return rocksdb::Status::OK();
  }

 private:
  std::shared_ptr<Clock> clock_;
};

class StoreEnv : public rocksdb::EnvWrapper {
 public:
  explicit StoreEnv(std::shared_ptr<Clock> clock)
      : rocksdb::EnvWrapper(rocksdb::Env::Default()), clock_(std::move(clock)) {
    system_clock_ = std::make_shared<StoreSystemClock>(clock_);
  }
  const char* Name() const override { return "rtb.StoreEnv"; }
  rocksdb::Status GetCurrentTime(int64_t* unix_time) override {
    *unix_time = clock_->NowMillis() / 1000;
    return rocksdb::Status::OK();
  }

 private:
  std::shared_ptr<Clock> clock_;
};

}  // namespace

std::string ColumnFamilyName(std::string_view table, std::string_view family) {
  return absl::StrCat(std::string(table), ":", std::string(family));
}

absl::Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(message);
  if (s.IsCorruption()) return absl::DataLossError(message);
  if (s.IsInvalidArgument()) return absl::InvalidArgumentError(message);
  if (s.IsBusy() || s.IsTryAgain() || s.IsTimedOut()) return absl::UnavailableError(message);
  return absl::InternalError(message);
}

Table::~Table() {
  for (Family& f : families) {
    if (f.handle != nullptr) db->DestroyColumnFamilyHandle(f.handle);
  }
}

const Family* Table::Find(std::string_view name) const {
  for (const Family& f : families) {
    if (f.options.name == name) return &f;
  }
  return nullptr;
}

EmbeddedStoreImpl::EmbeddedStoreImpl(EmbeddedStoreOptions options,
                                     std::unique_ptr<rocksdb::Env> env)
    : options_(std::move(options)),
      env_(std::move(env)),
      row_cache_(static_cast<size_t>(options_.row_cache_bytes)),
      async_pool_(static_cast<size_t>(std::max(options_.async_threads, 1))) {}

EmbeddedStoreImpl::~EmbeddedStoreImpl() {
  async_pool_.join();
  {
    std::lock_guard<std::mutex> lock(wal_mutex_);
    stopping_ = true;
  }
  wal_cv_.notify_all();
  if (wal_flusher_.joinable()) wal_flusher_.join();
  if (db_ != nullptr) db_->FlushWAL(true);
  {
    absl::MutexLock lock(&tables_mutex_);
    tables_.clear();
  }
  if (nonce_cf_ != nullptr) db_->DestroyColumnFamilyHandle(nonce_cf_);
  if (default_cf_ != nullptr) db_->DestroyColumnFamilyHandle(default_cf_);
  delete db_;
}

absl::Status EmbeddedStoreImpl::Open() {
  std::error_code ec;
  std::filesystem::create_directories(options_.path, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedded store path '", options_.path, "': ", ec.message()));
  }
  absl::StatusOr<std::vector<TableSchema>> schemas = ReadSchemaFile();
  if (!schemas.ok()) return schemas.status();

  const int64_t shared_cache_bytes = SharedBlockCacheBytes(options_);
  block_cache_ = rocksdb::NewLRUCache(static_cast<size_t>(shared_cache_bytes));
  in_memory_cache_ = rocksdb::NewLRUCache(
      static_cast<size_t>(options_.block_cache_bytes * options_.in_memory_cache_fraction));

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.manual_wal_flush = true;
  db_options.env = env_.get();
  db_options.max_background_jobs = 2;
  // RocksDB's own log (LOG in the database directory): INFO and above, which
  // leaves out the DEBUG line every FlushWAL writes (one per SYNC_WAL write,
  // and ten a second from the WAL flusher), rotated at 16 MiB with 4 old
  // files kept, so it cannot fill the disk of a bidder left running.
  db_options.info_log_level = rocksdb::InfoLogLevel::INFO_LEVEL;
  db_options.max_log_file_size = size_t{16} << 20;
  db_options.keep_log_file_num = 5;
  // Write-ahead logs bounded: past this size the families whose data holds
  // the oldest log are flushed, so that a quiet family cannot keep old logs
  // on disk (without it, four times the memtables of every family).
  db_options.max_total_wal_size =
      static_cast<uint64_t>(std::max<int64_t>(int64_t{64} << 20, 2 * options_.write_buffer_bytes));
  const int64_t memtable_budget =
      options_.memtable_budget_bytes < 0 ? shared_cache_bytes / 3 : options_.memtable_budget_bytes;
  if (memtable_budget > 0) {
    write_buffer_manager_ = std::make_shared<rocksdb::WriteBufferManager>(
        static_cast<size_t>(memtable_budget), block_cache_);
    db_options.write_buffer_manager = write_buffer_manager_;
  }

  FamilyLayout layout = LayOutFamilies(*schemas);
  // A crash inside CreateTable or DeleteTable can leave column families
  // that no schema names; open them so RocksDB accepts the database, then
  // AttachTables drops them.
  std::vector<std::string> existing;
  rocksdb::Status list = rocksdb::DB::ListColumnFamilies(db_options, options_.path, &existing);
  if (list.ok()) {
    for (const std::string& name : existing) {
      bool known = std::any_of(layout.descriptors.begin(), layout.descriptors.end(),
                               [&](const auto& d) { return d.name == name; });
      if (!known) layout.descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, options_.path, layout.descriptors, &handles, &db_);
  if (!s.ok()) return FromRocks(s, absl::StrCat("opening embedded store '", options_.path, "'"));
  default_cf_ = handles[0];
  nonce_cf_ = handles[kNonceDescriptor];
  AttachTables(*schemas, layout, handles);
  wal_flusher_ = std::thread([this] { FlushWalPeriodically(); });
  return absl::OkStatus();
}

EmbeddedStoreImpl::FamilyLayout EmbeddedStoreImpl::LayOutFamilies(
    const std::vector<TableSchema>& schemas) const {
  FamilyLayout layout;
  layout.descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName,
                                  rocksdb::ColumnFamilyOptions());
  layout.descriptors.emplace_back(kNonceColumnFamily, NonceColumnOptions());
  for (size_t t = 0; t < schemas.size(); ++t) {
    for (size_t f = 0; f < schemas[t].families.size(); ++f) {
      std::shared_ptr<CompactionSettings> compaction;
      layout.descriptors.emplace_back(
          ColumnFamilyName(schemas[t].name, schemas[t].families[f].name),
          FamilyColumnOptions(schemas[t].families[f], &compaction));
      layout.positions.emplace_back(t, f);
      layout.compaction.push_back(std::move(compaction));
    }
  }
  return layout;
}

void EmbeddedStoreImpl::AttachTables(const std::vector<TableSchema>& schemas,
                                     const FamilyLayout& layout,
                                     const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  std::vector<std::shared_ptr<Table>> tables;
  for (const TableSchema& schema : schemas) {
    auto table = std::make_shared<Table>();
    table->schema = schema;
    table->db = db_;
    tables.push_back(table);
  }
  for (size_t i = 0; i < layout.positions.size(); ++i) {
    auto [t, f] = layout.positions[i];
    tables[t]->families.push_back(Family{schemas[t].families[f], handles[i + kFirstTableDescriptor],
                                         next_family_id_++, layout.compaction[i]});
  }
  for (size_t i = layout.positions.size() + kFirstTableDescriptor; i < handles.size(); ++i) {
    db_->DropColumnFamily(handles[i]);
    db_->DestroyColumnFamilyHandle(handles[i]);
  }
  absl::MutexLock lock(&tables_mutex_);
  for (auto& table : tables) {
    SortFamilies(*table);
    tables_[table->schema.name] = table;
  }
}

rocksdb::ColumnFamilyOptions EmbeddedStoreImpl::FamilyColumnOptions(
    const FamilyOptions& f, std::shared_ptr<CompactionSettings>* compaction) const {
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = static_cast<size_t>(options_.write_buffer_bytes);
  *compaction = std::make_shared<CompactionSettings>(f);
  cf.compaction_filter_factory = NewHBaseCompactionFilterFactory(*compaction, options_.clock);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = f.in_memory ? in_memory_cache_ : block_cache_;
  if (f.bloom != BloomType::kNone) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    table.whole_key_filtering = false;
    cf.prefix_extractor = NewRowPrefixTransform();
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  switch (f.compression) {
    case Compression::kNone:
      cf.compression = rocksdb::kNoCompression;
      break;
    case Compression::kSnappy:
      cf.compression = rocksdb::kSnappyCompression;
      break;
    case Compression::kLz4:
      cf.compression = rocksdb::kLZ4Compression;
      break;
    case Compression::kZstd:
      cf.compression = rocksdb::kZSTD;
      break;
  }
  if (f.fifo_compaction) {
    cf.compaction_style = rocksdb::kCompactionStyleFIFO;
    cf.compaction_options_fifo.allow_compaction = false;
    // Files leave by age only, never by total size.
    cf.compaction_options_fifo.max_table_files_size = uint64_t{1} << 62;
    cf.ttl = static_cast<uint64_t>(f.ttl_seconds);
  }
  return cf;
}

rocksdb::ColumnFamilyOptions EmbeddedStoreImpl::NonceColumnOptions() const {
  rocksdb::ColumnFamilyOptions cf;
  // Records are small and short-lived: a small memtable keeps their share of
  // memory small, and compactions (with flushes) drop the expired ones.
  cf.write_buffer_size =
      static_cast<size_t>(std::min<int64_t>(options_.write_buffer_bytes, int64_t{4} << 20));
  cf.compaction_filter_factory = NewNonceCompactionFilterFactory(options_.clock);
  // Files older than twice the retention hold only expired records; rewrite
  // them even when no new writes would (ttl for the upper levels, periodic
  // compaction for the last one).
  cf.ttl = static_cast<uint64_t>(2 * kNonceRetentionMs / 1000);
  cf.periodic_compaction_seconds = cf.ttl;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = block_cache_;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.compression = rocksdb::kNoCompression;
  return cf;
}

void EmbeddedStoreImpl::SortFamilies(Table& table) {
  std::sort(table.families.begin(), table.families.end(),
            [](const Family& a, const Family& b) { return a.options.name < b.options.name; });
}

std::vector<TableSchema> EmbeddedStoreImpl::SchemasLocked() const {
  std::vector<TableSchema> out;
  for (const auto& [name, table] : tables_) out.push_back(table->schema);
  std::sort(out.begin(), out.end(),
            [](const TableSchema& a, const TableSchema& b) { return a.name < b.name; });
  return out;
}

absl::StatusOr<std::vector<TableSchema>> EmbeddedStoreImpl::ReadSchemaFile() const {
  std::filesystem::path path = std::filesystem::path(options_.path) / kSchemaFile;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::vector<TableSchema>();
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return DecodeSchemas(bytes);
}

absl::Status EmbeddedStoreImpl::WriteSchemaFile(const std::vector<TableSchema>& schemas) const {
  std::filesystem::path dir(options_.path);
  std::filesystem::path tmp = dir / (std::string(kSchemaFile) + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << EncodeSchemas(schemas);
    out.flush();
    if (!out) return absl::InternalError(absl::StrCat("writing ", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, dir / kSchemaFile, ec);
  if (ec) return absl::InternalError(absl::StrCat("replacing schema file: ", ec.message()));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Table>> EmbeddedStoreImpl::FindTable(std::string_view name) {
  absl::ReaderMutexLock lock(&tables_mutex_);
  auto it = tables_.find(absl::string_view(name.data(), name.size()));
  if (it == tables_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown table '", std::string(name), "'"));
  }
  return std::shared_ptr<const Table>(it->second);
}

void EmbeddedStoreImpl::FlushWalPeriodically() {
  std::unique_lock<std::mutex> lock(wal_mutex_);
  while (!stopping_) {
    wal_cv_.wait_for(lock, std::chrono::milliseconds(options_.async_wal_flush_interval_ms));
    if (stopping_) break;
    db_->FlushWAL(false);
  }
}

std::vector<Store::MemoryPart> EmbeddedStoreImpl::MemoryUsage() {
  const auto aggregated = [this](const char* property) {
    uint64_t value = 0;
    if (!db_->GetAggregatedIntProperty(property, &value)) return int64_t{0};
    return static_cast<int64_t>(value);
  };
  // The memtables' reservations are counted once, as memtables.
  const size_t reserved_for_memtables =
      write_buffer_manager_ == nullptr ? 0 : write_buffer_manager_->dummy_entries_in_cache_usage();
  return {
      {"block_cache", static_cast<int64_t>(block_cache_->GetUsage() + in_memory_cache_->GetUsage() -
                                           reserved_for_memtables)},
      {"block_cache_pinned",
       static_cast<int64_t>(block_cache_->GetPinnedUsage() + in_memory_cache_->GetPinnedUsage())},
      {"memtables", aggregated(rocksdb::DB::Properties::kSizeAllMemTables.c_str())},
      {"table_readers", aggregated(rocksdb::DB::Properties::kEstimateTableReadersMem.c_str())},
      {"row_cache", static_cast<int64_t>(row_cache_.bytes())},
  };
}

Store::RowCacheReads EmbeddedStoreImpl::RowCacheReadCounts() {
  const RowCache::Reads reads = row_cache_.reads();
  return {static_cast<int64_t>(reads.hits), static_cast<int64_t>(reads.misses)};
}

std::optional<Store::EngineStats> EmbeddedStoreImpl::ReadEngineStats() {
  // Per-family properties are summed over the families; the others are the
  // whole database's, asked of the default family, where RocksDB keeps them.
  const auto summed = [this](const std::string& property) {
    uint64_t value = 0;
    return db_->GetAggregatedIntProperty(property, &value) ? static_cast<int64_t>(value) : 0;
  };
  const auto whole = [this](const std::string& property) {
    uint64_t value = 0;
    return db_->GetIntProperty(default_cf_, property, &value) ? static_cast<int64_t>(value) : 0;
  };
  using Properties = rocksdb::DB::Properties;
  EngineStats stats;
  stats.live_data_bytes = summed(Properties::kEstimateLiveDataSize);
  stats.sst_files_bytes = summed(Properties::kTotalSstFilesSize);
  stats.pending_compaction_bytes = summed(Properties::kEstimatePendingCompactionBytes);
  stats.running_compactions = whole(Properties::kNumRunningCompactions);
  stats.running_flushes = whole(Properties::kNumRunningFlushes);
  stats.delayed_write_rate = whole(Properties::kActualDelayedWriteRate);
  stats.writes_stopped = whole(Properties::kIsWriteStopped) != 0;
  stats.background_errors = whole(Properties::kBackgroundErrors);
  return stats;
}

absl::Status EmbeddedStoreImpl::CheckHealth() {
  std::string value;
  if (!db_->GetProperty(default_cf_, "rocksdb.background-errors", &value)) {
    return absl::InternalError("embedded store does not answer");
  }
  if (value != "0") {
    return absl::UnavailableError(absl::StrCat("embedded store has ", value, " background errors"));
  }
  return absl::OkStatus();
}

}  // namespace internal

absl::StatusOr<std::unique_ptr<Store>> OpenEmbeddedStore(const EmbeddedStoreOptions& options) {
  if (options.path.empty()) return absl::InvalidArgumentError("embedded store needs a path");
  if (options.block_cache_bytes <= 0) {
    return absl::InvalidArgumentError("embedded store block_cache_bytes must be > 0");
  }
  if (options.in_memory_cache_fraction < 0 || options.in_memory_cache_fraction >= 1) {
    return absl::InvalidArgumentError("embedded store in_memory_cache_fraction must be in [0, 1)");
  }
  if (options.row_cache_bytes < 0) {
    return absl::InvalidArgumentError("embedded store row_cache_bytes must be >= 0");
  }
  if (const int64_t share = internal::SharedBlockCacheBytes(options);
      options.memtable_budget_bytes > share) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedded store memtable_budget_bytes ", options.memtable_budget_bytes,
                     " is more than the block cache's share for families that are not IN_MEMORY (",
                     share, " bytes)"));
  }
  if (options.write_buffer_bytes < (int64_t{1} << 16)) {
    return absl::InvalidArgumentError("embedded store write_buffer_bytes must be >= 64 KiB");
  }
  if (options.async_wal_flush_interval_ms <= 0) {
    return absl::InvalidArgumentError("embedded store async_wal_flush_interval_ms must be > 0");
  }
  EmbeddedStoreOptions resolved = options;
  if (!resolved.clock) resolved.clock = SystemClock();
  auto env = std::make_unique<internal::StoreEnv>(resolved.clock);
  auto store = std::make_unique<internal::EmbeddedStoreImpl>(std::move(resolved), std::move(env));
  if (absl::Status s = store->Open(); !s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace rtb::storage
