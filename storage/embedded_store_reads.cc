// The embedded backend's reads: Get and MultiGet (through the row cache where
// they can be), and the asynchronous Get and Scan that answer on the caller's
// executor with a deadline.
#include <algorithm>
#include <atomic>

#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "storage/internal/cell_key.h"
#include "storage/internal/embedded_store_impl.h"
#include "storage/internal/validation.h"

namespace rtb::storage::internal {
namespace {

// Every stored cell of one row of one family, markers included, for the
// row cache. Leaves `it` at the first key after the row.
void CollectFamilyRow(rocksdb::Iterator* it, std::string_view prefix, StoredRow* out) {
  std::string scratch;
  for (; it->Valid(); it->Next()) {
    std::string_view key = ToView(it->key());
    if (!key.starts_with(prefix)) return;
    CellSuffix cell;
    DecodedValue value;
    if (!ParseCellSuffix(key, prefix.size(), &scratch, &cell) ||
        !DecodeValue(ToView(it->value()), &value)) {
      continue;
    }
    out->push_back(StoredCell{std::string(cell.qualifier), cell.timestamp, cell.type, value.ttl_ms,
                              std::string(value.value)});
  }
}

void FilterStoredRow(const StoredRow& row, VisibleCellFilter& filter, CellList* out) {
  filter.StartRow();
  for (const StoredCell& c : row) {
    filter.Add(CellSuffix{c.qualifier, c.timestamp, c.type}, DecodedValue{c.ttl_ms, c.value}, out);
  }
}

// The stored cells of a cached row through `filter`, from `latest` when it
// stands for them (puts without a cell TTL).
void FilterCachedRow(const CachedRow& row, VisibleCellFilter& filter, CellList* out) {
  if (!row.stored_is_latest()) return FilterStoredRow(row.stored, filter, out);
  filter.StartRow();
  for (size_t i = 0; i < row.latest.size(); ++i) {
    const CellView c = row.latest[i];
    filter.Add(CellSuffix{c.qualifier, c.timestamp, CellType::kPut},
               DecodedValue{std::nullopt, c.value}, out);
  }
}

// Builds the cache entry for a family row read at `now`: the latest version
// of every column, valid until the first cell's TTL runs out (from then on
// another version may be the visible one). `*latest` receives those cells
// unpacked, for the read that fetched them.
std::shared_ptr<const CachedRow> MakeCachedRow(const FamilyOptions& family, StoredRow stored,
                                               int64_t now, CellList* latest) {
  auto row = std::make_shared<CachedRow>();
  VisibleCellFilter filter(family, nullptr, TimeRange{}, 1, now);
  if (!stored.empty()) latest->reserve(stored.size());
  FilterStoredRow(stored, filter, latest);
  int64_t valid_until = kLatestTimestamp;
  bool any_cell_ttl = false;
  for (const StoredCell& c : stored) {
    if (c.type != CellType::kPut) continue;
    any_cell_ttl |= c.ttl_ms.has_value();
    int64_t ttl = EffectiveTtlMs(family, c.ttl_ms);
    if (ttl > 0) valid_until = std::min(valid_until, c.timestamp + ttl + 1);
  }
  std::optional<PackedCells> packed = PackedCells::Of(*latest);
  if (packed.has_value()) {
    row->latest = *std::move(packed);
    row->latest_valid_until_ms = valid_until;
  } else {
    row->latest_valid_until_ms = 0;  // too large to pack: read from `stored`
  }
  // `latest` stands for the stored cells when every one of them is in it
  // (a marker never is; so one version per column, none expired) and none
  // has a cell TTL, which `latest` does not carry.
  if (any_cell_ttl || row->latest.size() != stored.size()) row->stored = std::move(stored);
  return row;
}

bool IsLatestOfEverything(const storage::Get& get) {
  return get.max_versions == 1 && get.time_range.min == 0 && get.time_range.max == kLatestTimestamp;
}

}  // namespace

std::string RowUpperBound(std::string_view row) {
  std::string bound = RowPrefix(row);
  bound.back() = '\x02';
  return bound;
}

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

// Columns the reader did not select, and versions beyond those it asked
// for, are stepped over with seeks instead of being decoded.
void ReadFamilyRow(rocksdb::Iterator* it, std::string_view prefix, VisibleCellFilter& filter,
                   CellList* out) {
  constexpr int kNextsBeforeSeek = 4;
  std::string scratch;
  std::string target;
  int skipped = 0;
  filter.StartRow();
  auto seek_column = [&](std::string_view qualifier, char terminator) {
    target.assign(prefix);
    AppendRowPrefix(qualifier, &target);  // escaped qualifier + 00 01
    target.back() = terminator;
    it->Seek(ToSlice(target));
    skipped = 0;
  };
  while (it->Valid()) {
    std::string_view key = ToView(it->key());
    if (!key.starts_with(prefix)) return;
    CellSuffix cell;
    if (!ParseCellSuffix(key, prefix.size(), &scratch, &cell)) {
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
    if (DecodeValue(ToView(it->value()), &value)) filter.Add(cell, value, out);
    it->Next();
  }
  if (it->Valid() && ToView(it->key()).starts_with(prefix)) {
    target.assign(prefix);
    target.back() = '\x02';
    it->Seek(ToSlice(target));
  }
}

absl::StatusOr<RowResult> EmbeddedStoreImpl::Get(std::string_view table_name,
                                                 const storage::Get& get) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  if (absl::Status s = ValidateGet((*table)->schema, get); !s.ok()) return s;
  std::string_view row = get.row;
  RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1), RowLocks::Mode::kShared);
  return ReadRow(**table, get, nullptr);
}

std::optional<RowResult> EmbeddedStoreImpl::TryGetWithoutIo(std::string_view table_name,
                                                            const storage::Get& get) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok() || !ValidateGet((*table)->schema, get).ok()) return std::nullopt;
  std::string_view row = get.row;
  RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1), RowLocks::Mode::kShared);
  absl::StatusOr<RowResult> read = ReadRow(**table, get, nullptr, rocksdb::kBlockCacheTier);
  if (!read.ok()) return std::nullopt;
  return *std::move(read);
}

absl::StatusOr<std::vector<RowResult>> EmbeddedStoreImpl::MultiGet(
    std::string_view table_name, std::span<const storage::Get> gets) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  for (const storage::Get& g : gets) {
    if (absl::Status s = ValidateGet((*table)->schema, g); !s.ok()) return s;
  }
  // Every row is locked before the snapshot is taken, so no write to them
  // is in flight while they are read. With the snapshot taken first, about
  // one read in a thousand under a concurrent writer saw one family at a
  // later write than another (SemanticsTest.MultiColumnPutIsAtomicForReaders).
  std::vector<std::string_view> rows;
  rows.reserve(gets.size());
  for (const storage::Get& g : gets) rows.push_back(g.row);
  RowLocks locks(this, table_name, rows, RowLocks::Mode::kShared);
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  std::vector<RowResult> out;
  out.reserve(gets.size());
  absl::Status status;
  for (const storage::Get& g : gets) {
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

// The deadline timer lives on the caller's executor only: the worker
// thread holds the shared state (flag and callback) but never the timer,
// so nothing bound to the caller's io_context is destroyed off it.
template <typename T, typename Work>
void EmbeddedStoreImpl::RunAsync(std::string table, Deadline deadline,
                                 boost::asio::any_io_executor executor,
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

void EmbeddedStoreImpl::AsyncGet(std::string_view table, storage::Get get, Deadline deadline,
                                 boost::asio::any_io_executor executor, GetCallback done) {
  // A row that can be read without touching the disk is answered on the
  // caller's thread: from the row cache well under a microsecond, from the
  // memtables and block cache in a few (bounded by the row's size, no I/O),
  // where a round trip through the async pool costs two thread switches
  // (tens of microseconds of kernel time). Only a read that needs a block
  // from disk goes to the pool.
  if (std::optional<RowResult> cached = TryGetWithoutIo(table, get);
      cached.has_value() && std::chrono::steady_clock::now() < deadline) {
    boost::asio::post(executor, [done = std::move(done), row = *std::move(cached)]() mutable {
      done(std::move(row));
    });
    return;
  }
  RunAsync<RowResult>(std::string(table), deadline, std::move(executor), std::move(done),
                      [get = std::move(get)](EmbeddedStoreImpl* self, const std::string& t) {
                        return self->Get(t, get);
                      });
}

void EmbeddedStoreImpl::AsyncScan(std::string_view table, storage::Scan scan, Deadline deadline,
                                  boost::asio::any_io_executor executor, ScanCallback done) {
  // As AsyncGet: a short scan whose blocks are all in memory is answered on
  // the caller's thread (the bid path's device history: a few rollup rows).
  if (std::optional<std::vector<RowResult>> rows = TryScanWithoutIo(table, scan);
      rows.has_value() && std::chrono::steady_clock::now() < deadline) {
    boost::asio::post(executor, [done = std::move(done), rows = *std::move(rows)]() mutable {
      done(std::move(rows));
    });
    return;
  }
  RunAsync<std::vector<RowResult>>(
      std::string(table), deadline, std::move(executor), std::move(done),
      [scan = std::move(scan)](EmbeddedStoreImpl* self, const std::string& t) {
        return self->Scan(t, scan);
      });
}

bool EmbeddedStoreImpl::AppendCachedFamily(const Family& family, const storage::Get& get,
                                           int64_t now, bool latest_only, VisibleCellFilter& filter,
                                           CellList* out) {
  std::shared_ptr<const CachedRow> cached = row_cache_.Lookup(family.id, get.row);
  if (cached == nullptr) return false;
  if (latest_only && now < cached->latest_valid_until_ms) {
    // Aliasing: the packed cells keep their cached row alive.
    out->AppendShared(std::shared_ptr<const PackedCells>(cached, &cached->latest));
  } else {
    FilterCachedRow(*cached, filter, out);
  }
  return true;
}

absl::StatusOr<RowResult> EmbeddedStoreImpl::ReadRow(const Table& table, const storage::Get& get,
                                                     const rocksdb::Snapshot* snapshot,
                                                     rocksdb::ReadTier tier) {
  Selection sel = Select(table, get.columns);
  const int64_t now = options_.clock->NowMillis();
  RowResult result;
  result.row = get.row;
  std::string prefix;  // built on the first cache miss
  std::string upper;
  rocksdb::Slice upper_slice;
  const bool latest_only = IsLatestOfEverything(get);
  for (const Selection::Entry& e : sel.entries) {
    VisibleCellFilter filter(e.family->options, &e.qualifiers, get.time_range, get.max_versions,
                             now);
    const bool cacheable = row_cache_.enabled() && e.qualifiers.empty() && snapshot == nullptr;
    if (cacheable && AppendCachedFamily(*e.family, get, now, latest_only, filter, &result.cells)) {
      continue;
    }
    const uint64_t generation = cacheable ? row_cache_.Generation(e.family->id, get.row) : 0;
    if (prefix.empty()) {
      prefix = RowPrefix(get.row);
      upper = RowUpperBound(get.row);
      upper_slice = ToSlice(upper);
    }
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    ro.iterate_upper_bound = &upper_slice;
    ro.read_tier = tier;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, e.family->handle));
    it->Seek(ToSlice(prefix));
    if (cacheable) {
      StoredRow stored;
      CollectFamilyRow(it.get(), prefix, &stored);
      if (!it->status().ok()) return FromRocks(it->status(), "get");
      // The cached row's latest cells are what the commonest read sees: the
      // answer instead of filtering the cells a second time.
      CellList latest;
      std::shared_ptr<const CachedRow> cached =
          MakeCachedRow(e.family->options, std::move(stored), now, &latest);
      if (latest_only && now < cached->latest_valid_until_ms) {
        result.cells.AppendShared(latest);
      } else {
        FilterCachedRow(*cached, filter, &result.cells);
      }
      row_cache_.Insert(e.family->id, get.row, generation, std::move(cached));
      continue;
    }
    ReadFamilyRow(it.get(), prefix, filter, &result.cells);
    if (!it->status().ok()) return FromRocks(it->status(), "get");
  }
  return result;
}

}  // namespace rtb::storage::internal
