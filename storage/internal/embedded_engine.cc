// The embedded backend (storage/embedded_store.h): HBase semantics on RocksDB.
#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/thread_pool.hpp"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/system_clock.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"
#include "storage/embedded_store.h"
#include "storage/internal/cell_key.h"
#include "storage/internal/compaction.h"
#include "storage/internal/row_cache.h"
#include "storage/internal/schema_codec.h"
#include "storage/internal/validation.h"
#include "storage/internal/visibility.h"

namespace rtb::storage {
namespace {

using internal::CellType;
using internal::DecodedKey;
using internal::DecodedValue;

constexpr char kSchemaFile[] = "SCHEMAS";
constexpr size_t kRowLockStripes = 4096;

// The one place RocksDB statuses become absl statuses.
absl::Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(message);
  if (s.IsCorruption()) return absl::DataLossError(message);
  if (s.IsInvalidArgument()) return absl::InvalidArgumentError(message);
  if (s.IsBusy() || s.IsTryAgain() || s.IsTimedOut()) return absl::UnavailableError(message);
  return absl::InternalError(message);
}

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
std::string_view ToView(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

std::string ColumnFamilyName(std::string_view table, std::string_view family) {
  return absl::StrCat(std::string(table), ":", std::string(family));
}

// The upper bound of a row's keys: its prefix with the 00 01 terminator
// raised to 00 02. No key of another row falls in between.
std::string RowUpperBound(std::string_view row) {
  std::string bound = internal::RowPrefix(row);
  bound.back() = '\x02';
  return bound;
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

struct Family {
  FamilyOptions options;
  rocksdb::ColumnFamilyHandle* handle = nullptr;
  uint32_t id = 0;  // unique within the process, names the family in the row cache
};

// A table and its RocksDB column families. Readers hold a shared_ptr, so a
// concurrent DeleteTable never frees a handle under them.
struct Table {
  TableSchema schema;
  std::vector<Family> families;  // sorted by family name, as HBase orders results
  rocksdb::DB* db = nullptr;

  ~Table() {
    for (Family& f : families) {
      if (f.handle != nullptr) db->DestroyColumnFamilyHandle(f.handle);
    }
  }
  const Family* Find(std::string_view name) const {
    for (const Family& f : families) {
      if (f.options.name == name) return &f;
    }
    return nullptr;
  }
};

// Which families, and which qualifiers of each, a read selects.
struct Selection {
  struct Entry {
    const Family* family;
    std::vector<std::string> qualifiers;  // sorted; empty = all
  };
  std::vector<Entry> entries;  // in family order
};

Selection Select(const Table& table, const std::vector<Column>& columns) {
  Selection sel;
  sel.entries.reserve(table.families.size());
  for (const Family& f : table.families) {
    if (columns.empty()) {
      sel.entries.push_back({&f, {}});
      continue;
    }
    bool selected = false, whole = false;
    std::vector<std::string> qualifiers;
    for (const Column& c : columns) {
      if (c.family != f.options.name) continue;
      selected = true;
      if (c.qualifier) {
        qualifiers.push_back(*c.qualifier);
      } else {
        whole = true;
      }
    }
    if (!selected) continue;
    Selection::Entry e{&f, {}};
    if (!whole) {
      e.qualifiers = std::move(qualifiers);
      std::sort(e.qualifiers.begin(), e.qualifiers.end());
      e.qualifiers.erase(std::unique(e.qualifiers.begin(), e.qualifiers.end()), e.qualifiers.end());
    }
    sel.entries.push_back(std::move(e));
  }
  return sel;
}

// Feeds the cells of one row of one family to `filter`, starting with `it`
// at the row's first key, and leaves `it` at the first key after the row.
// Columns the reader did not select, and versions beyond those it asked
// for, are stepped over with seeks instead of being decoded.
void ReadFamilyRow(rocksdb::Iterator* it, std::string_view prefix,
                   internal::VisibleCellFilter& filter, CellList* out) {
  constexpr int kNextsBeforeSeek = 4;
  std::string scratch;
  std::string target;
  int skipped = 0;
  filter.StartRow();
  auto seek_column = [&](std::string_view qualifier, char terminator) {
    target.assign(prefix);
    internal::AppendRowPrefix(qualifier, &target);  // escaped qualifier + 00 01
    target.back() = terminator;
    it->Seek(ToSlice(target));
    skipped = 0;
  };
  while (it->Valid()) {
    std::string_view key = ToView(it->key());
    if (!key.starts_with(prefix)) return;
    internal::CellSuffix cell;
    if (!internal::ParseCellSuffix(key, prefix.size(), &scratch, &cell)) {
      it->Next();
      continue;
    }
    if (!cell.qualifier.empty()) {
      if (!filter.Wanted(cell.qualifier)) {
        std::optional<std::string_view> next = filter.NextWanted(cell.qualifier);
        if (!next) break;
        seek_column(std::string(*next), '\x01');
        continue;
      }
      if (filter.ColumnDone() && filter.InColumn(cell.qualifier)) {
        if (++skipped > kNextsBeforeSeek) {
          seek_column(std::string(cell.qualifier), '\x02');
        } else {
          it->Next();
        }
        continue;
      }
    }
    skipped = 0;
    DecodedValue value;
    if (internal::DecodeValue(ToView(it->value()), &value)) filter.Add(cell, value, out);
    it->Next();
  }
  if (it->Valid() && ToView(it->key()).starts_with(prefix)) {
    target.assign(prefix);
    target.back() = '\x02';
    it->Seek(ToSlice(target));
  }
}

// Every stored cell of one row of one family, markers included, for the
// row cache. Leaves `it` at the first key after the row.
void CollectFamilyRow(rocksdb::Iterator* it, std::string_view prefix, internal::StoredRow* out) {
  std::string scratch;
  for (; it->Valid(); it->Next()) {
    std::string_view key = ToView(it->key());
    if (!key.starts_with(prefix)) return;
    internal::CellSuffix cell;
    DecodedValue value;
    if (!internal::ParseCellSuffix(key, prefix.size(), &scratch, &cell) ||
        !internal::DecodeValue(ToView(it->value()), &value)) {
      continue;
    }
    out->push_back(internal::StoredCell{std::string(cell.qualifier), cell.timestamp, cell.type,
                                        value.ttl_ms, std::string(value.value)});
  }
}

void FilterStoredRow(const internal::StoredRow& row, internal::VisibleCellFilter& filter,
                     CellList* out) {
  filter.StartRow();
  for (const internal::StoredCell& c : row) {
    filter.Add(internal::CellSuffix{c.qualifier, c.timestamp, c.type},
               DecodedValue{c.ttl_ms, c.value}, out);
  }
}

// Builds the cache entry for a family row read at `now`: the latest version
// of every column, valid until the first cell's TTL runs out (from then on
// another version may be the visible one).
std::shared_ptr<const internal::CachedRow> MakeCachedRow(const FamilyOptions& family,
                                                         internal::StoredRow stored, int64_t now) {
  auto row = std::make_shared<internal::CachedRow>();
  row->stored = std::move(stored);
  internal::VisibleCellFilter latest(family, nullptr, TimeRange{}, 1, now);
  FilterStoredRow(row->stored, latest, &row->latest);
  int64_t valid_until = kLatestTimestamp;
  for (const internal::StoredCell& c : row->stored) {
    if (c.type != CellType::kPut) continue;
    int64_t ttl = internal::EffectiveTtlMs(family, c.ttl_ms);
    if (ttl > 0) valid_until = std::min(valid_until, c.timestamp + ttl + 1);
  }
  row->latest_valid_until_ms = valid_until;
  return row;
}

bool IsLatestOfEverything(const storage::Get& get) {
  return get.max_versions == 1 && get.time_range.min == 0 && get.time_range.max == kLatestTimestamp;
}

// One family's iterator walking whole rows forward or backward.
class FamilyCursor {
 public:
  FamilyCursor(rocksdb::DB* db, const Selection::Entry& entry, const rocksdb::Snapshot* snapshot,
               TimeRange time_range, int max_versions, int64_t now_ms)
      : filter_(entry.family->options, &entry.qualifiers, time_range, max_versions, now_ms) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    ro.total_order_seek = true;
    it_.reset(db->NewIterator(ro, entry.family->handle));
  }

  // Positions at the first row at or after `row`.
  void SeekForward(std::string_view row) {
    it_->Seek(ToSlice(internal::RowPrefix(row)));
    LoadRow();
  }
  // Positions at the last row before `row` (or at it, when inclusive); an
  // empty `row` with inclusive means the last row of the table.
  void SeekBackward(std::string_view row, bool inclusive, bool unbounded) {
    if (unbounded) {
      it_->SeekToLast();
    } else {
      it_->SeekForPrev(ToSlice(inclusive ? RowUpperBound(row) : internal::RowPrefix(row)));
    }
    LoadRow();
  }

  bool valid() const { return valid_; }
  const std::string& row() const { return row_; }
  absl::Status status() const { return FromRocks(it_->status(), "scan"); }

  // Reads every cell of the current row into `out` (visible ones only) and
  // moves to the next row in the direction of travel.
  void ConsumeRow(bool reversed, CellList* out) {
    const std::string prefix = internal::RowPrefix(row_);
    if (reversed) it_->Seek(ToSlice(prefix));
    ReadFamilyRow(it_.get(), prefix, filter_, out);
    if (reversed) {
      it_->SeekForPrev(ToSlice(prefix));
    }
    LoadRow();
  }

 private:
  void LoadRow() {
    valid_ = false;
    while (it_->Valid()) {
      if (internal::DecodeKey(ToView(it_->key()), &key_)) {
        row_ = key_.row;
        valid_ = true;
        return;
      }
      it_->Next();
    }
  }

  internal::VisibleCellFilter filter_;
  std::unique_ptr<rocksdb::Iterator> it_;
  DecodedKey key_;
  std::string row_;
  bool valid_ = false;
};

// Half-open or closed row intervals, normalised from a Scan.
struct Interval {
  std::string lower;  // empty + inclusive: from the first row
  bool lower_inclusive = true;
  std::optional<std::string> upper;  // unset: to the last row
  bool upper_inclusive = false;

  bool AboveLower(std::string_view row) const {
    return lower_inclusive ? row >= lower : row > lower;
  }
  bool BelowUpper(std::string_view row) const {
    if (!upper) return true;
    return upper_inclusive ? row <= *upper : row < *upper;
  }
};

// Sorted intervals with the overlapping and touching ones joined, so every
// row is read once (HBase's MultiRowRangeFilter merges its ranges too).
std::vector<Interval> MergeOverlapping(std::vector<Interval> sorted) {
  std::vector<Interval> out;
  for (Interval& next : sorted) {
    if (!out.empty()) {
      Interval& last = out.back();
      const bool joins =
          !last.upper || next.lower < *last.upper ||
          (next.lower == *last.upper && (last.upper_inclusive || next.lower_inclusive));
      if (joins) {
        if (next.lower == last.lower) last.lower_inclusive |= next.lower_inclusive;
        if (last.upper && (!next.upper || *next.upper > *last.upper)) {
          last.upper = next.upper;
          last.upper_inclusive = next.upper_inclusive;
        } else if (last.upper && next.upper && *next.upper == *last.upper) {
          last.upper_inclusive |= next.upper_inclusive;
        }
        continue;
      }
    }
    out.push_back(std::move(next));
  }
  return out;
}

std::vector<Interval> Intervals(const Scan& scan) {
  std::vector<Interval> out;
  if (scan.prefix) {
    Interval i{*scan.prefix, true, std::nullopt, false};
    std::string succ = PrefixSuccessor(*scan.prefix);
    if (!succ.empty()) i.upper = succ;
    out.push_back(std::move(i));
    return out;
  }
  if (!scan.ranges.empty()) {
    for (const RowRange& r : scan.ranges) {
      Interval i{r.start, r.start_inclusive, std::nullopt, r.stop_inclusive};
      if (!r.stop.empty()) i.upper = r.stop;
      out.push_back(std::move(i));
    }
    std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) {
      return a.lower != b.lower ? a.lower < b.lower : a.lower_inclusive > b.lower_inclusive;
    });
    return MergeOverlapping(std::move(out));
  }
  if (scan.reversed) {
    // HBase reversed scans start at start_row (inclusive) and walk down to
    // stop_row (exclusive).
    Interval i{scan.stop_row, false, std::nullopt, true};
    if (scan.stop_row.empty()) i.lower_inclusive = true;
    if (!scan.start_row.empty()) i.upper = scan.start_row;
    out.push_back(std::move(i));
    return out;
  }
  Interval i{scan.start_row, true, std::nullopt, false};
  if (!scan.stop_row.empty()) i.upper = scan.stop_row;
  out.push_back(std::move(i));
  return out;
}

class EmbeddedScanner : public Scanner {
 public:
  EmbeddedScanner(std::shared_ptr<const Table> table, storage::Scan scan, int64_t now_ms)
      : table_(std::move(table)), scan_(std::move(scan)), intervals_(Intervals(scan_)) {
    snapshot_ = table_->db->GetSnapshot();
    selection_ = Select(*table_, scan_.columns);
    for (const Selection::Entry& e : selection_.entries) {
      cursors_.push_back(std::make_unique<FamilyCursor>(table_->db, e, snapshot_, scan_.time_range,
                                                        scan_.max_versions, now_ms));
    }
    remaining_ = scan_.limit > 0 ? scan_.limit : -1;
    if (scan_.reversed) std::reverse(intervals_.begin(), intervals_.end());
  }
  ~EmbeddedScanner() override {
    cursors_.clear();
    table_->db->ReleaseSnapshot(snapshot_);
  }

  absl::StatusOr<std::vector<RowResult>> Next(int max_rows) override {
    std::vector<RowResult> out;
    while (static_cast<int>(out.size()) < max_rows && remaining_ != 0 &&
           interval_index_ < intervals_.size()) {
      const Interval& interval = intervals_[interval_index_];
      if (!positioned_) {
        for (auto& c : cursors_) {
          if (scan_.reversed) {
            c->SeekBackward(interval.upper.value_or(""), interval.upper_inclusive,
                            !interval.upper.has_value());
          } else {
            c->SeekForward(interval.lower);
          }
        }
        positioned_ = true;
      }
      const std::string* next = nullptr;
      for (auto& c : cursors_) {
        if (!c->valid()) continue;
        if (next == nullptr || (scan_.reversed ? c->row() > *next : c->row() < *next)) {
          next = &c->row();
        }
      }
      bool inside = next != nullptr &&
                    (scan_.reversed ? interval.AboveLower(*next) : interval.BelowUpper(*next));
      if (!inside) {
        ++interval_index_;
        positioned_ = false;
        continue;
      }
      RowResult row;
      row.row = *next;
      for (auto& c : cursors_) {
        if (c->valid() && c->row() == row.row) c->ConsumeRow(scan_.reversed, &row.cells);
      }
      bool wanted = scan_.reversed ? interval.BelowUpper(row.row) : interval.AboveLower(row.row);
      if (wanted && !row.cells.empty()) {
        out.push_back(std::move(row));
        if (remaining_ > 0) --remaining_;
      }
    }
    for (auto& c : cursors_) {
      if (absl::Status s = c->status(); !s.ok()) return s;
    }
    return out;
  }

 private:
  std::shared_ptr<const Table> table_;
  storage::Scan scan_;
  std::vector<Interval> intervals_;
  const rocksdb::Snapshot* snapshot_ = nullptr;
  Selection selection_;
  std::vector<std::unique_ptr<FamilyCursor>> cursors_;
  size_t interval_index_ = 0;
  bool positioned_ = false;
  int remaining_ = -1;
};

class EmbeddedStore final : public Store {
 public:
  EmbeddedStore(EmbeddedStoreOptions options, std::unique_ptr<StoreEnv> env)
      : options_(std::move(options)),
        env_(std::move(env)),
        row_cache_(static_cast<size_t>(options_.row_cache_bytes)),
        async_pool_(static_cast<size_t>(std::max(options_.async_threads, 1))) {}

  ~EmbeddedStore() override {
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
    if (default_cf_ != nullptr) db_->DestroyColumnFamilyHandle(default_cf_);
    delete db_;
  }

  absl::Status Open() {
    std::error_code ec;
    std::filesystem::create_directories(options_.path, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("embedded store path '", options_.path, "': ", ec.message()));
    }
    absl::StatusOr<std::vector<TableSchema>> schemas = ReadSchemaFile();
    if (!schemas.ok()) return schemas.status();

    block_cache_ = rocksdb::NewLRUCache(static_cast<size_t>(
        options_.block_cache_bytes * (1.0 - options_.in_memory_cache_fraction)));
    in_memory_cache_ = rocksdb::NewLRUCache(
        static_cast<size_t>(options_.block_cache_bytes * options_.in_memory_cache_fraction));

    rocksdb::DBOptions db_options;
    db_options.create_if_missing = true;
    db_options.create_missing_column_families = true;
    db_options.manual_wal_flush = true;
    db_options.env = env_.get();
    db_options.max_background_jobs = 2;

    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
    std::vector<std::pair<size_t, size_t>> positions;  // (table, family) per descriptor
    for (size_t t = 0; t < schemas->size(); ++t) {
      for (size_t f = 0; f < (*schemas)[t].families.size(); ++f) {
        descriptors.emplace_back(
            ColumnFamilyName((*schemas)[t].name, (*schemas)[t].families[f].name),
            FamilyColumnOptions((*schemas)[t].families[f]));
        positions.emplace_back(t, f);
      }
    }
    // A crash inside CreateTable or DeleteTable can leave column families
    // that no schema names; open them so RocksDB accepts the database, then drop them.
    std::vector<std::string> existing;
    rocksdb::Status list = rocksdb::DB::ListColumnFamilies(db_options, options_.path, &existing);
    std::vector<std::string> orphans;
    if (list.ok()) {
      for (const std::string& name : existing) {
        bool known = std::any_of(descriptors.begin(), descriptors.end(),
                                 [&](const auto& d) { return d.name == name; });
        if (!known) {
          orphans.push_back(name);
          descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
        }
      }
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::Status s = rocksdb::DB::Open(db_options, options_.path, descriptors, &handles, &db_);
    if (!s.ok()) return FromRocks(s, absl::StrCat("opening embedded store '", options_.path, "'"));
    default_cf_ = handles[0];

    std::vector<std::shared_ptr<Table>> tables;
    for (const TableSchema& schema : *schemas) {
      auto table = std::make_shared<Table>();
      table->schema = schema;
      table->db = db_;
      tables.push_back(table);
    }
    for (size_t i = 0; i < positions.size(); ++i) {
      auto [t, f] = positions[i];
      tables[t]->families.push_back(
          Family{(*schemas)[t].families[f], handles[i + 1], next_family_id_++});
    }
    for (size_t i = positions.size() + 1; i < handles.size(); ++i) {
      db_->DropColumnFamily(handles[i]);
      db_->DestroyColumnFamilyHandle(handles[i]);
    }
    {
      absl::MutexLock lock(&tables_mutex_);
      for (auto& table : tables) {
        SortFamilies(*table);
        tables_[table->schema.name] = table;
      }
    }
    wal_flusher_ = std::thread([this] { FlushWalPeriodically(); });
    return absl::OkStatus();
  }

  // ---- Admin ----

  absl::Status CreateTable(const TableSchema& schema) override {
    if (absl::Status s = internal::ValidateSchema(schema); !s.ok()) return s;
    absl::MutexLock lock(&tables_mutex_);
    if (auto it = tables_.find(schema.name); it != tables_.end()) {
      if (it->second->schema == schema) return absl::OkStatus();
      return absl::AlreadyExistsError(
          absl::StrCat("table '", schema.name, "' exists with a different schema"));
    }
    std::vector<TableSchema> all = SchemasLocked();
    all.push_back(schema);
    if (absl::Status s = WriteSchemaFile(all); !s.ok()) return s;
    auto table = std::make_shared<Table>();
    table->schema = schema;
    table->db = db_;
    for (const FamilyOptions& f : schema.families) {
      rocksdb::ColumnFamilyHandle* handle = nullptr;
      rocksdb::Status s = db_->CreateColumnFamily(FamilyColumnOptions(f),
                                                  ColumnFamilyName(schema.name, f.name), &handle);
      if (!s.ok()) return FromRocks(s, absl::StrCat("creating table '", schema.name, "'"));
      table->families.push_back(Family{f, handle, next_family_id_++});
    }
    SortFamilies(*table);
    tables_[schema.name] = table;
    return absl::OkStatus();
  }

  absl::StatusOr<bool> TableExists(std::string_view table) override {
    absl::ReaderMutexLock lock(&tables_mutex_);
    return tables_.contains(absl::string_view(table.data(), table.size()));
  }

  absl::StatusOr<std::vector<TableSchema>> ListTables() override {
    absl::ReaderMutexLock lock(&tables_mutex_);
    std::vector<TableSchema> out;
    out.reserve(tables_.size());
    for (const auto& [name, table] : tables_) out.push_back(table->schema);
    std::sort(out.begin(), out.end(),
              [](const TableSchema& a, const TableSchema& b) { return a.name < b.name; });
    return out;
  }

  absl::Status DeleteTable(std::string_view name) override {
    absl::MutexLock lock(&tables_mutex_);
    auto it = tables_.find(absl::string_view(name.data(), name.size()));
    if (it == tables_.end()) {
      return absl::NotFoundError(absl::StrCat("table '", std::string(name), "' does not exist"));
    }
    std::shared_ptr<Table> table = it->second;
    tables_.erase(it);
    row_cache_.Clear();
    if (absl::Status s = WriteSchemaFile(SchemasLocked()); !s.ok()) return s;
    for (Family& f : table->families) {
      if (rocksdb::Status s = db_->DropColumnFamily(f.handle); !s.ok()) {
        return FromRocks(s, absl::StrCat("dropping table '", std::string(name), "'"));
      }
    }
    return absl::OkStatus();
  }

  // ---- Reads ----

  absl::StatusOr<RowResult> Get(std::string_view table_name, const storage::Get& get) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    if (absl::Status s = internal::ValidateGet((*table)->schema, get); !s.ok()) return s;
    std::string_view row = get.row;
    RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1), RowLocks::Mode::kShared);
    return ReadRow(**table, get, nullptr);
  }

  std::optional<RowResult> TryCachedGet(std::string_view table_name, const storage::Get& get) {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok() || !internal::ValidateGet((*table)->schema, get).ok()) return std::nullopt;
    std::string_view row = get.row;
    RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1), RowLocks::Mode::kShared);
    return ReadRowFromCache(**table, get);
  }

  absl::StatusOr<std::vector<RowResult>> MultiGet(std::string_view table_name,
                                                  std::span<const storage::Get> gets) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    for (const storage::Get& g : gets) {
      if (absl::Status s = internal::ValidateGet((*table)->schema, g); !s.ok()) return s;
    }
    const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
    std::vector<RowResult> out;
    out.reserve(gets.size());
    absl::Status status;
    for (const storage::Get& g : gets) {
      std::string_view row = g.row;
      RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1),
                     RowLocks::Mode::kShared);
      absl::StatusOr<RowResult> r = ReadRow(**table, g, snapshot);
      if (!r.ok()) {
        status = r.status();
        break;
      }
      out.push_back(*std::move(r));
    }
    db_->ReleaseSnapshot(snapshot);
    if (!status.ok()) return status;
    return out;
  }

  absl::StatusOr<std::vector<RowResult>> Scan(std::string_view table_name,
                                              const storage::Scan& scan) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    if (absl::Status s = internal::ValidateScan((*table)->schema, scan, true); !s.ok()) return s;
    EmbeddedScanner scanner(*table, scan, options_.clock->NowMillis());
    int max_rows = scan.limit > 0 ? std::min(scan.limit, kMaxScanRows) : kMaxScanRows;
    return scanner.Next(max_rows);
  }

  absl::StatusOr<std::unique_ptr<Scanner>> OpenScanner(std::string_view table_name,
                                                       const storage::Scan& scan) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    if (absl::Status s = internal::ValidateScan((*table)->schema, scan, false); !s.ok()) return s;
    return std::make_unique<EmbeddedScanner>(*table, scan, options_.clock->NowMillis());
  }

  void AsyncGet(std::string_view table, storage::Get get, Deadline deadline,
                boost::asio::any_io_executor executor, GetCallback done) override {
    // A warm row is answered on the caller's thread: a row-cache read takes
    // well under a microsecond, a round trip through the async pool costs two
    // thread switches (tens of microseconds).
    if (std::optional<RowResult> cached = TryCachedGet(table, get);
        cached.has_value() && std::chrono::steady_clock::now() < deadline) {
      boost::asio::post(executor, [done = std::move(done), row = *std::move(cached)]() mutable {
        done(std::move(row));
      });
      return;
    }
    RunAsync<RowResult>(std::string(table), deadline, std::move(executor), std::move(done),
                        [get = std::move(get)](EmbeddedStore* self, const std::string& t) {
                          return self->Get(t, get);
                        });
  }

  void AsyncScan(std::string_view table, storage::Scan scan, Deadline deadline,
                 boost::asio::any_io_executor executor, ScanCallback done) override {
    RunAsync<std::vector<RowResult>>(
        std::string(table), deadline, std::move(executor), std::move(done),
        [scan = std::move(scan)](EmbeddedStore* self, const std::string& t) {
          return self->Scan(t, scan);
        });
  }

  // ---- Writes ----

  absl::Status Put(std::string_view table_name, const storage::Put& put) override {
    return PutBatch(table_name, std::span<const storage::Put>(&put, 1));
  }

  absl::Status PutBatch(std::string_view table_name, std::span<const storage::Put> puts) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    std::vector<std::string_view> rows;
    Durability durability = Durability::kSkipWal;
    for (const storage::Put& p : puts) {
      if (absl::Status s = internal::ValidatePut((*table)->schema, p); !s.ok()) return s;
      rows.push_back(p.row);
      durability = Stronger(durability, p.durability);
    }
    if (puts.empty()) return absl::OkStatus();
    RowLocks locks(this, table_name, rows);
    const int64_t now = options_.clock->NowMillis();
    rocksdb::WriteBatch batch;
    for (const storage::Put& p : puts) AppendPut(**table, p, now, &batch);
    absl::Status written = Write(&batch, durability);
    Invalidate(**table, rows);
    return written;
  }

  absl::Status Delete(std::string_view table_name, const storage::Delete& del) override {
    return DeleteBatch(table_name, std::span<const storage::Delete>(&del, 1));
  }

  absl::Status DeleteBatch(std::string_view table_name,
                           std::span<const storage::Delete> deletes) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    std::vector<std::string_view> rows;
    Durability durability = Durability::kSkipWal;
    for (const storage::Delete& d : deletes) {
      if (absl::Status s = internal::ValidateDelete((*table)->schema, d); !s.ok()) return s;
      rows.push_back(d.row);
      durability = Stronger(durability, d.durability);
    }
    if (deletes.empty()) return absl::OkStatus();
    RowLocks locks(this, table_name, rows);
    const int64_t now = options_.clock->NowMillis();
    rocksdb::WriteBatch batch;
    for (const storage::Delete& d : deletes) {
      if (absl::Status s = AppendDelete(**table, d, now, &batch); !s.ok()) return s;
    }
    absl::Status written = Write(&batch, durability);
    Invalidate(**table, rows);
    return written;
  }

  absl::StatusOr<RowResult> Increment(std::string_view table_name,
                                      const storage::Increment& inc) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    if (absl::Status s = internal::ValidateIncrement((*table)->schema, inc); !s.ok()) return s;
    std::string_view row = inc.row;
    RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1));
    const int64_t now = options_.clock->NowMillis();
    if (inc.nonce != 0) {
      absl::MutexLock lock(&nonce_mutex_);
      auto it = nonces_.find(inc.nonce);
      if (it != nonces_.end() && it->second.expires_ms > now) return it->second.result;
    }
    // Sum repeated columns so one Increment names each column once.
    std::map<std::pair<std::string, std::string>, int64_t> amounts;
    for (const IncrementColumn& c : inc.columns) amounts[{c.family, c.qualifier}] += c.amount;

    storage::Get current;
    current.row = inc.row;
    for (const auto& [column, amount] : amounts) {
      current.columns.push_back(Column{column.first, column.second});
    }
    absl::StatusOr<RowResult> existing = ReadRow(**table, current, nullptr);
    if (!existing.ok()) return existing.status();

    RowResult result;
    result.row = inc.row;
    rocksdb::WriteBatch batch;
    for (const auto& [column, amount] : amounts) {
      const auto& [family, qualifier] = column;
      int64_t base = 0;
      int64_t ts = now;
      for (const Cell& c : existing->cells) {
        if (c.family != family || c.qualifier != qualifier) continue;
        std::optional<int64_t> v = DecodeCounter(c.value);
        if (!v) {
          return absl::InvalidArgumentError(absl::StrCat(
              "column ", std::string(table_name), ":", family, ":", qualifier, " holds a ",
              c.value.size(), "-byte value; Increment needs an 8-byte big-endian counter"));
        }
        base = *v;
        // As HBase: a new version above the current one even when that one
        // carries a timestamp from the future.
        ts = std::max(now, c.timestamp + 1);
        break;
      }
      const int64_t next =
          static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(amount));
      std::string value = EncodeCounter(next);
      const Family* f = (*table)->Find(family);
      batch.Put(f->handle, ToSlice(internal::EncodeKey(inc.row, qualifier, ts, CellType::kPut)),
                ToSlice(internal::EncodeValue(value, inc.ttl_ms)));
      result.cells.push_back(Cell{family, qualifier, ts, std::move(value)});
    }
    absl::Status written = Write(&batch, inc.durability);
    Invalidate(**table, std::span<std::string_view>(&row, 1));
    if (!written.ok()) return written;
    if (inc.nonce != 0) RememberNonce(inc.nonce, now, result);
    return result;
  }

  absl::StatusOr<bool> CheckAndMutate(std::string_view table_name,
                                      const storage::CheckAndMutate& cam) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    if (absl::Status s = internal::ValidateCheckAndMutate((*table)->schema, cam); !s.ok()) {
      return s;
    }
    std::string_view row = cam.row;
    RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1));
    storage::Get check;
    check.row = cam.row;
    check.columns.push_back(Column{cam.family, cam.qualifier});
    absl::StatusOr<RowResult> current = ReadRow(**table, check, nullptr);
    if (!current.ok()) return current.status();
    std::optional<std::string_view> stored = current->Value(cam.family, cam.qualifier);
    if (!Matches(cam.op, cam.value, stored)) return false;

    const int64_t now = options_.clock->NowMillis();
    rocksdb::WriteBatch batch;
    Durability durability = Durability::kSkipWal;
    for (const storage::Put& p : cam.puts) {
      AppendPut(**table, p, now, &batch);
      durability = Stronger(durability, p.durability);
    }
    for (const storage::Delete& d : cam.deletes) {
      if (absl::Status s = AppendDelete(**table, d, now, &batch); !s.ok()) return s;
      durability = Stronger(durability, d.durability);
    }
    absl::Status written = Write(&batch, durability);
    Invalidate(**table, std::span<std::string_view>(&row, 1));
    if (!written.ok()) return written;
    return true;
  }

  // ---- Maintenance ----

  absl::Status Flush(std::string_view table_name) override {
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    for (const Family& f : (*table)->families) {
      if (rocksdb::Status s = db_->Flush(rocksdb::FlushOptions(), f.handle); !s.ok()) {
        return FromRocks(s, absl::StrCat("flushing table '", std::string(table_name), "'"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status MajorCompact(std::string_view table_name) override {
    if (absl::Status s = Flush(table_name); !s.ok()) return s;
    absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
    if (!table.ok()) return table.status();
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    for (const Family& f : (*table)->families) {
      WaitForBackgroundCompactions(f.handle);
      rocksdb::Status s = db_->CompactRange(options, f.handle, nullptr, nullptr);
      if (!s.ok())
        return FromRocks(s, absl::StrCat("compacting table '", std::string(table_name), "'"));
      WaitForBackgroundCompactions(f.handle);
    }
    return absl::OkStatus();
  }

  // Flushes schedule compactions (FIFO drops expired files that way); a
  // major compaction returns only once they have run, within a bound.
  void WaitForBackgroundCompactions(rocksdb::ColumnFamilyHandle* handle) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < give_up) {
      uint64_t pending = 0, running = 0;
      db_->GetIntProperty(handle, "rocksdb.compaction-pending", &pending);
      db_->GetIntProperty("rocksdb.num-running-compactions", &running);
      if (pending == 0 && running == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  absl::Status CheckHealth() override {
    std::string value;
    if (!db_->GetProperty(default_cf_, "rocksdb.background-errors", &value)) {
      return absl::InternalError("embedded store does not answer");
    }
    if (value != "0") {
      return absl::UnavailableError(
          absl::StrCat("embedded store has ", value, " background errors"));
    }
    return absl::OkStatus();
  }

 private:
  struct NonceEntry {
    int64_t expires_ms;
    RowResult result;
  };

  // Holds the row-lock stripes of a set of rows, taken in ascending stripe
  // order so two writers never deadlock.
  class RowLocks {
   public:
    enum class Mode { kExclusive, kShared };
    RowLocks(EmbeddedStore* store, std::string_view table, std::span<std::string_view> rows,
             Mode mode = Mode::kExclusive)
        : store_(store), shared_(mode == Mode::kShared) {
      for (std::string_view row : rows) {
        stripes_.push_back(absl::HashOf(absl::string_view(table.data(), table.size()),
                                        absl::string_view(row.data(), row.size())) %
                           kRowLockStripes);
      }
      std::sort(stripes_.begin(), stripes_.end());
      stripes_.erase(std::unique(stripes_.begin(), stripes_.end()), stripes_.end());
      for (size_t s : stripes_) {
        if (shared_) {
          store_->row_locks_[s].ReaderLock();
        } else {
          store_->row_locks_[s].Lock();
        }
      }
    }
    ~RowLocks() {
      for (auto it = stripes_.rbegin(); it != stripes_.rend(); ++it) {
        if (shared_) {
          store_->row_locks_[*it].ReaderUnlock();
        } else {
          store_->row_locks_[*it].Unlock();
        }
      }
    }

   private:
    EmbeddedStore* store_;
    bool shared_;
    absl::InlinedVector<size_t, 4> stripes_;
  };

  static int Rank(Durability d) {
    switch (d) {
      case Durability::kSkipWal:
        return 0;
      case Durability::kAsyncWal:
        return 1;
      case Durability::kUseDefault:
      case Durability::kSyncWal:
        return 2;
      case Durability::kFsyncWal:
        return 3;
    }
    return 2;
  }

  Durability Resolve(Durability d) const {
    return d == Durability::kUseDefault ? options_.default_durability : d;
  }

  Durability Stronger(Durability a, Durability b) const {
    Durability ra = Resolve(a), rb = Resolve(b);
    return Rank(ra) >= Rank(rb) ? ra : rb;
  }

  static bool Matches(CompareOp op, const std::optional<std::string>& value,
                      std::optional<std::string_view> stored) {
    if (!value || value->empty()) {
      // HBase's null check: an empty value matches a column that is absent
      // or empty, except under NOT_EQUAL, which wants one present and not
      // empty. An unset value is that check with EQUAL, as the hbase
      // backend sends it.
      const bool absent_or_empty = !stored || stored->empty();
      const CompareOp effective = value ? op : CompareOp::kEqual;
      return effective == CompareOp::kNotEqual ? !absent_or_empty : absent_or_empty;
    }
    if (!stored) return false;
    // HBase compares the given value against the stored one.
    int c = std::string_view(*value).compare(*stored);
    switch (op) {
      case CompareOp::kLess:
        return c < 0;
      case CompareOp::kLessOrEqual:
        return c <= 0;
      case CompareOp::kEqual:
        return c == 0;
      case CompareOp::kNotEqual:
        return c != 0;
      case CompareOp::kGreaterOrEqual:
        return c >= 0;
      case CompareOp::kGreater:
        return c > 0;
    }
    return false;
  }

  absl::StatusOr<std::shared_ptr<const Table>> FindTable(std::string_view name) {
    absl::ReaderMutexLock lock(&tables_mutex_);
    auto it = tables_.find(absl::string_view(name.data(), name.size()));
    if (it == tables_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown table '", std::string(name), "'"));
    }
    return std::shared_ptr<const Table>(it->second);
  }

  // Appends what the cached row of `family` shows `get`; false when the row
  // is not in the cache.
  bool AppendCachedFamily(const Family& family, const storage::Get& get, int64_t now,
                          bool latest_only, internal::VisibleCellFilter& filter, CellList* out) {
    std::shared_ptr<const internal::CachedRow> cached = row_cache_.Lookup(family.id, get.row);
    if (cached == nullptr) return false;
    if (latest_only && now < cached->latest_valid_until_ms) {
      out->AppendShared(cached->latest);
    } else {
      FilterStoredRow(cached->stored, filter, out);
    }
    return true;
  }

  // The row from the row cache alone, or nullopt when a selected family is
  // not cached (or names columns, which the cache does not serve). Called
  // with the row's lock held.
  std::optional<RowResult> ReadRowFromCache(const Table& table, const storage::Get& get) {
    if (!row_cache_.enabled()) return std::nullopt;
    Selection sel = Select(table, get.columns);
    const int64_t now = options_.clock->NowMillis();
    const bool latest_only = IsLatestOfEverything(get);
    RowResult result;
    result.row = get.row;
    for (const Selection::Entry& e : sel.entries) {
      if (!e.qualifiers.empty()) return std::nullopt;
      internal::VisibleCellFilter filter(e.family->options, &e.qualifiers, get.time_range,
                                         get.max_versions, now);
      if (!AppendCachedFamily(*e.family, get, now, latest_only, filter, &result.cells)) {
        return std::nullopt;
      }
    }
    return result;
  }

  absl::StatusOr<RowResult> ReadRow(const Table& table, const storage::Get& get,
                                    const rocksdb::Snapshot* snapshot) {
    Selection sel = Select(table, get.columns);
    const int64_t now = options_.clock->NowMillis();
    RowResult result;
    result.row = get.row;
    std::string prefix;  // built on the first cache miss
    std::string upper;
    rocksdb::Slice upper_slice;
    const bool latest_only = IsLatestOfEverything(get);
    for (const Selection::Entry& e : sel.entries) {
      internal::VisibleCellFilter filter(e.family->options, &e.qualifiers, get.time_range,
                                         get.max_versions, now);
      const bool cacheable = row_cache_.enabled() && e.qualifiers.empty() && snapshot == nullptr;
      if (cacheable &&
          AppendCachedFamily(*e.family, get, now, latest_only, filter, &result.cells)) {
        continue;
      }
      const uint64_t generation = cacheable ? row_cache_.Generation(e.family->id, get.row) : 0;
      if (prefix.empty()) {
        prefix = internal::RowPrefix(get.row);
        upper = RowUpperBound(get.row);
        upper_slice = ToSlice(upper);
      }
      rocksdb::ReadOptions ro;
      ro.snapshot = snapshot;
      ro.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, e.family->handle));
      it->Seek(ToSlice(prefix));
      if (cacheable) {
        internal::StoredRow stored;
        CollectFamilyRow(it.get(), prefix, &stored);
        if (!it->status().ok()) return FromRocks(it->status(), "get");
        FilterStoredRow(stored, filter, &result.cells);
        row_cache_.Insert(e.family->id, get.row, generation,
                          MakeCachedRow(e.family->options, std::move(stored), now));
        continue;
      }
      ReadFamilyRow(it.get(), prefix, filter, &result.cells);
      if (!it->status().ok()) return FromRocks(it->status(), "get");
    }
    return result;
  }

  // Called with the rows' locks held, after their write.
  void Invalidate(const Table& table, std::span<std::string_view> rows) {
    if (!row_cache_.enabled()) return;
    for (std::string_view row : rows) {
      for (const Family& f : table.families) row_cache_.Invalidate(f.id, row);
    }
  }

  void AppendPut(const Table& table, const storage::Put& put, int64_t now,
                 rocksdb::WriteBatch* batch) {
    for (const PutValue& v : put.values) {
      const Family* f = table.Find(v.family);
      batch->Put(f->handle,
                 ToSlice(internal::EncodeKey(put.row, v.qualifier, v.timestamp.value_or(now),
                                             CellType::kPut)),
                 ToSlice(internal::EncodeValue(v.value, put.ttl_ms)));
    }
  }

  absl::Status AppendDelete(const Table& table, const storage::Delete& del, int64_t now,
                            rocksdb::WriteBatch* batch) {
    const std::string marker = internal::EncodeValue("", std::nullopt);
    if (del.targets.empty()) {
      const int64_t ts = del.timestamp.value_or(now);
      for (const Family& f : table.families) {
        batch->Put(f.handle, ToSlice(internal::EncodeKey(del.row, "", ts, CellType::kDeleteFamily)),
                   ToSlice(marker));
      }
      return absl::OkStatus();
    }
    for (const DeleteTarget& t : del.targets) {
      const Family* f = table.Find(t.family);
      std::string key;
      switch (t.kind) {
        case DeleteKind::kFamily:
          key =
              internal::EncodeKey(del.row, "", t.timestamp.value_or(now), CellType::kDeleteFamily);
          break;
        case DeleteKind::kFamilyVersion:
          key = internal::EncodeKey(del.row, "", *t.timestamp, CellType::kDeleteFamilyVersion);
          break;
        case DeleteKind::kColumnAll:
          key = internal::EncodeKey(del.row, *t.qualifier, t.timestamp.value_or(now),
                                    CellType::kDeleteColumn);
          break;
        case DeleteKind::kColumnVersion: {
          int64_t ts = now;
          if (t.timestamp) {
            ts = *t.timestamp;
          } else {
            // As HBase: "the latest version" is resolved now, under the row
            // lock; with no version the marker lands at the current time.
            storage::Get latest;
            latest.row = del.row;
            latest.columns.push_back(Column{t.family, *t.qualifier});
            absl::StatusOr<RowResult> r = ReadRow(table, latest, nullptr);
            if (!r.ok()) return r.status();
            if (!r->cells.empty()) ts = r->cells.front().timestamp;
          }
          key = internal::EncodeKey(del.row, *t.qualifier, ts, CellType::kDeleteVersion);
          break;
        }
      }
      batch->Put(f->handle, ToSlice(key), ToSlice(marker));
    }
    return absl::OkStatus();
  }

  absl::Status Write(rocksdb::WriteBatch* batch, Durability requested) {
    Durability d = Resolve(requested);
    rocksdb::WriteOptions wo;
    wo.disableWAL = d == Durability::kSkipWal;
    rocksdb::Status s = db_->Write(wo, batch);
    if (!s.ok()) return FromRocks(s, "write");
    if (d == Durability::kSyncWal || d == Durability::kFsyncWal) {
      s = db_->FlushWAL(d == Durability::kFsyncWal);
      if (!s.ok()) return FromRocks(s, "flushing write-ahead log");
    }
    return absl::OkStatus();
  }

  void FlushWalPeriodically() {
    std::unique_lock<std::mutex> lock(wal_mutex_);
    while (!stopping_) {
      wal_cv_.wait_for(lock, std::chrono::milliseconds(options_.async_wal_flush_interval_ms));
      if (stopping_) break;
      db_->FlushWAL(false);
    }
  }

  void RememberNonce(uint64_t nonce, int64_t now, const RowResult& result) {
    absl::MutexLock lock(&nonce_mutex_);
    nonces_[nonce] = NonceEntry{now + kNonceRetentionMs, result};
    if (++nonce_inserts_ % 1024 == 0) {
      absl::erase_if(nonces_, [now](const auto& kv) { return kv.second.expires_ms <= now; });
    }
  }

  // The deadline timer lives on the caller's executor only: the worker
  // thread holds the shared state (flag and callback) but never the timer,
  // so nothing bound to the caller's io_context is destroyed off it.
  template <typename T, typename Work>
  void RunAsync(std::string table, Deadline deadline, boost::asio::any_io_executor executor,
                std::function<void(absl::StatusOr<T>)> done, Work work) {
    struct State {
      std::atomic<bool> finished{false};
      std::function<void(absl::StatusOr<T>)> done;
      std::weak_ptr<boost::asio::steady_timer> timer;
    };
    auto state = std::make_shared<State>();
    state->done = std::move(done);
    auto timer = std::make_shared<boost::asio::steady_timer>(executor, deadline);
    state->timer = timer;
    timer->async_wait([state, timer](const boost::system::error_code& ec) {
      if (ec) return;
      if (!state->finished.exchange(true)) {
        auto callback = std::move(state->done);
        callback(absl::DeadlineExceededError("storage read missed its deadline"));
      }
    });
    boost::asio::post(async_pool_, [this, state, executor, deadline, table = std::move(table),
                                    work = std::move(work)]() mutable {
      if (state->finished.load() || std::chrono::steady_clock::now() >= deadline) return;
      absl::StatusOr<T> result = work(this, table);
      if (state->finished.load()) return;
      boost::asio::post(executor, [state, result = std::move(result)]() mutable {
        if (state->finished.exchange(true)) return;
        if (auto t = state->timer.lock()) t->cancel();
        auto callback = std::move(state->done);
        callback(std::move(result));
      });
    });
  }

  rocksdb::ColumnFamilyOptions FamilyColumnOptions(const FamilyOptions& f) const {
    rocksdb::ColumnFamilyOptions cf;
    cf.write_buffer_size = static_cast<size_t>(options_.write_buffer_bytes);
    cf.compaction_filter_factory = internal::NewHBaseCompactionFilterFactory(f, options_.clock);
    rocksdb::BlockBasedTableOptions table;
    table.block_cache = f.in_memory ? in_memory_cache_ : block_cache_;
    if (f.bloom != BloomType::kNone) {
      table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
      table.whole_key_filtering = false;
      cf.prefix_extractor = internal::NewRowPrefixTransform();
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

  static void SortFamilies(Table& table) {
    std::sort(table.families.begin(), table.families.end(),
              [](const Family& a, const Family& b) { return a.options.name < b.options.name; });
  }

  std::vector<TableSchema> SchemasLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(tables_mutex_) {
    std::vector<TableSchema> out;
    for (const auto& [name, table] : tables_) out.push_back(table->schema);
    std::sort(out.begin(), out.end(),
              [](const TableSchema& a, const TableSchema& b) { return a.name < b.name; });
    return out;
  }

  absl::StatusOr<std::vector<TableSchema>> ReadSchemaFile() const {
    std::filesystem::path path = std::filesystem::path(options_.path) / kSchemaFile;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::vector<TableSchema>();
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return internal::DecodeSchemas(bytes);
  }

  // Replaces the schema file atomically: write a temporary, then rename.
  absl::Status WriteSchemaFile(const std::vector<TableSchema>& schemas) const {
    std::filesystem::path dir(options_.path);
    std::filesystem::path tmp = dir / (std::string(kSchemaFile) + ".tmp");
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << internal::EncodeSchemas(schemas);
      out.flush();
      if (!out) return absl::InternalError(absl::StrCat("writing ", tmp.string()));
    }
    std::error_code ec;
    std::filesystem::rename(tmp, dir / kSchemaFile, ec);
    if (ec) return absl::InternalError(absl::StrCat("replacing schema file: ", ec.message()));
    return absl::OkStatus();
  }

  const EmbeddedStoreOptions options_;
  std::unique_ptr<StoreEnv> env_;
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_cf_ = nullptr;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::shared_ptr<rocksdb::Cache> in_memory_cache_;

  absl::Mutex tables_mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<Table>> tables_ ABSL_GUARDED_BY(tables_mutex_);

  std::array<absl::Mutex, kRowLockStripes> row_locks_;
  internal::RowCache row_cache_;
  std::atomic<uint32_t> next_family_id_{1};

  absl::Mutex nonce_mutex_;
  absl::flat_hash_map<uint64_t, NonceEntry> nonces_ ABSL_GUARDED_BY(nonce_mutex_);
  uint64_t nonce_inserts_ ABSL_GUARDED_BY(nonce_mutex_) = 0;

  std::mutex wal_mutex_;
  std::condition_variable wal_cv_;
  bool stopping_ = false;
  std::thread wal_flusher_;

  boost::asio::thread_pool async_pool_;
};

}  // namespace

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
  if (options.write_buffer_bytes < (int64_t{1} << 16)) {
    return absl::InvalidArgumentError("embedded store write_buffer_bytes must be >= 64 KiB");
  }
  if (options.async_wal_flush_interval_ms <= 0) {
    return absl::InvalidArgumentError("embedded store async_wal_flush_interval_ms must be > 0");
  }
  EmbeddedStoreOptions resolved = options;
  if (!resolved.clock) resolved.clock = SystemClock();
  auto env = std::make_unique<StoreEnv>(resolved.clock);
  auto store = std::make_unique<EmbeddedStore>(std::move(resolved), std::move(env));
  if (absl::Status s = store->Open(); !s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace rtb::storage
