// Embedded store operations next to raw RocksDB on the same machine, in the
// same run: point Get of a 1.5 KB two-family profile row from a warm cache,
// the row cache's own lookup in a full cache, Increment, CheckAndMutate and a
// 100-row prefix scan.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "storage/embedded_store.h"
#include "storage/internal/row_cache.h"
#include "storage/schemas.h"

namespace rtb::storage {
namespace {

std::string BenchDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("rtb-bench-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

const std::string kDevice =
    std::string("\x9f\x12\x00\x7a\x33\xc4\x51\x08\xe2\x19\x4b\x6d\x80\x01\xfe\x2c", 16);

// A realistic profile: 80 segments (8-byte id -> 4-byte score) and 24
// frequency-cap counters (campaignId|yyyymmdd -> 8 bytes): about 1.5 KB.
Put ProfileRow(const std::string& row) {
  Put p;
  p.row = row;
  for (int i = 0; i < 80; ++i) {
    char q[9];
    std::snprintf(q, sizeof(q), "s%07d", i * 37);
    p.values.push_back(PutValue{std::string(kProfileSegmentFamily), q,
                                std::string("\x00\x00\x00\x5a", 4), std::nullopt});
  }
  for (int i = 0; i < 24; ++i) {
    p.values.push_back(PutValue{std::string(kProfileFrequencyCapFamily),
                                "c" + std::to_string(1000 + i) + "|20261004", EncodeCounter(i),
                                std::nullopt});
  }
  return p;
}

size_t PayloadBytes(const Put& p) {
  size_t n = 0;
  for (const PutValue& v : p.values) n += v.qualifier.size() + v.value.size();
  return n;
}

struct EmbeddedFixture {
  std::string path;
  std::unique_ptr<Store> store;

  explicit EmbeddedFixture(size_t row_cache_bytes)
      : path(BenchDir("embedded-" + std::to_string(row_cache_bytes))) {
    EmbeddedStoreOptions options;
    options.path = path;
    options.row_cache_bytes = row_cache_bytes;
    store = *OpenEmbeddedStore(options);
    if (!ApplySchemas(*store, BidderTables()).ok()) std::abort();
    if (!store->Put(kProfilesTable, ProfileRow(kDevice)).ok()) std::abort();
    for (int i = 0; i < 1000; ++i) {
      if (!store->Put(kProfilesTable, ProfileRow("other-device-" + std::to_string(i))).ok()) {
        std::abort();
      }
    }
    for (int i = 0; i < 300; ++i) {
      char row[32];
      std::snprintf(row, sizeof(row), "%s%04d", i < 100 ? "user-a|" : "user-b|", i);
      Put p;
      p.row = row;
      p.values.push_back(PutValue{"d", "body", std::string(200, 'e'), std::nullopt});
      if (!store->Put(kEventsTable, p).ok()) std::abort();
    }
    if (!store->Flush(kProfilesTable).ok() || !store->Flush(kEventsTable).ok()) std::abort();
  }
  ~EmbeddedFixture() {
    store.reset();
    std::filesystem::remove_all(path);
  }
};

EmbeddedFixture& Embedded() {
  static EmbeddedFixture* f = new EmbeddedFixture(EmbeddedStoreOptions().row_cache_bytes);
  return *f;
}

// The same store with the row cache off: every Get reads RocksDB's blocks.
EmbeddedFixture& EmbeddedWithoutRowCache() {
  static EmbeddedFixture* f = new EmbeddedFixture(0);
  return *f;
}

struct RawFixture {
  std::string path;
  rocksdb::DB* db = nullptr;
  std::string value;

  RawFixture() : path(BenchDir("raw")) {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::BlockBasedTableOptions table;
    table.block_cache = rocksdb::NewLRUCache(256 << 20);
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    if (!rocksdb::DB::Open(options, path, &db).ok()) std::abort();
    Put profile = ProfileRow(kDevice);
    value.assign(PayloadBytes(profile), 'p');
    db->Put(rocksdb::WriteOptions(), kDevice, value);
    for (int i = 0; i < 1000; ++i) {
      db->Put(rocksdb::WriteOptions(), "other-device-" + std::to_string(i), value);
    }
    db->Flush(rocksdb::FlushOptions());
  }
};

RawFixture& Raw() {
  static RawFixture* f = new RawFixture();
  return *f;
}

void BM_RawRocksDbGet(benchmark::State& state) {
  RawFixture& raw = Raw();
  rocksdb::PinnableSlice value;
  for (auto _ : state) {
    value.Reset();
    rocksdb::Status s =
        raw.db->Get(rocksdb::ReadOptions(), raw.db->DefaultColumnFamily(), kDevice, &value);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(value.data());
  }
  state.counters["bytes"] = static_cast<double>(raw.value.size());
}
BENCHMARK(BM_RawRocksDbGet);

void BM_RawRocksDbGetCopied(benchmark::State& state) {
  RawFixture& raw = Raw();
  std::string value;
  for (auto _ : state) {
    rocksdb::Status s = raw.db->Get(rocksdb::ReadOptions(), kDevice, &value);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(value.data());
  }
}
BENCHMARK(BM_RawRocksDbGetCopied);

// Reads the whole profile the way the bid path does: every cell is looked at.
void ProfileGet(benchmark::State& state, EmbeddedFixture& f) {
  Get get;
  get.row = kDevice;
  get.columns = {Column{std::string(kProfileSegmentFamily), std::nullopt},
                 Column{std::string(kProfileFrequencyCapFamily), std::nullopt}};
  get.consistency = Consistency::kTimeline;
  size_t cells = 0;
  for (auto _ : state) {
    absl::StatusOr<RowResult> r = f.store->Get(kProfilesTable, get);
    size_t value_bytes = 0;
    for (const Cell& c : r->cells) value_bytes += c.value.size();
    cells = r->cells.size();
    benchmark::DoNotOptimize(value_bytes);
    benchmark::DoNotOptimize(r);
  }
  if (cells != 104) state.SkipWithError("the profile row lost cells");
  state.counters["cells"] = static_cast<double>(cells);
  state.counters["bytes"] = static_cast<double>(PayloadBytes(ProfileRow(kDevice)));
}

void BM_EmbeddedProfileGet(benchmark::State& state) { ProfileGet(state, Embedded()); }
BENCHMARK(BM_EmbeddedProfileGet);

void BM_EmbeddedProfileGetNoRowCache(benchmark::State& state) {
  ProfileGet(state, EmbeddedWithoutRowCache());
}
BENCHMARK(BM_EmbeddedProfileGetNoRowCache);

void BM_EmbeddedProfileGetMiss(benchmark::State& state) {
  EmbeddedFixture& f = Embedded();
  Get get;
  get.row = std::string(16, '\x42');
  for (auto _ : state) {
    absl::StatusOr<RowResult> r = f.store->Get(kProfilesTable, get);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_EmbeddedProfileGetMiss);

// The row cache alone, full: 50,000 rows of 16-byte device keys in 64 MiB,
// read in a fixed pseudo-random order (every read a hit). What a bid's
// profile lookup costs before any cell is read.
void BM_RowCacheHitInAFullCache(benchmark::State& state) {
  constexpr int kRows = 50000;
  internal::RowCache cache(size_t{64} << 20);
  const auto row = std::make_shared<internal::CachedRow>();
  PackedCells::Builder packer;
  packer.Add(CellView{"s", "s0000001", 1, "Z"});
  row->latest = *std::move(packer).Build();
  std::vector<std::string> keys;
  keys.reserve(kRows);
  std::mt19937_64 random(20261206);
  for (int i = 0; i < kRows; ++i) {
    std::string key(16, '\0');
    for (char& c : key) c = static_cast<char>(random());
    cache.Insert(1, key, cache.Generation(1, key), row);
    keys.push_back(std::move(key));
  }
  size_t next = 0;
  for (auto _ : state) {
    std::shared_ptr<const internal::CachedRow> found = cache.Lookup(1, keys[next]);
    benchmark::DoNotOptimize(found);
    next = (next + 7919) % kRows;
  }
  if (cache.Lookup(1, keys[0]) == nullptr) state.SkipWithError("a row was evicted");
}
BENCHMARK(BM_RowCacheHitInAFullCache);

void BM_EmbeddedIncrement(benchmark::State& state) {
  EmbeddedFixture& f = Embedded();
  Increment inc{kDevice, {{std::string(kProfileFrequencyCapFamily), "c1000|20261004", 1}}};
  inc.ttl_ms = int64_t{2} * 24 * 3600 * 1000;
  inc.durability = Durability::kAsyncWal;
  for (auto _ : state) {
    absl::StatusOr<RowResult> r = f.store->Increment(kProfilesTable, inc);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_EmbeddedIncrement);

void BM_EmbeddedCheckAndMutate(benchmark::State& state) {
  EmbeddedFixture& f = Embedded();
  const std::string row(32, '\x07');
  Put first;
  first.row = row;
  first.values.push_back(PutValue{"s", "ver", EncodeCounter(0), std::nullopt});
  if (!f.store->Put(kSessionsTable, first).ok()) std::abort();
  int64_t ver = 0;
  for (auto _ : state) {
    CheckAndMutate cam;
    cam.row = row;
    cam.family = "s";
    cam.qualifier = "ver";
    cam.value = EncodeCounter(ver);
    Put next;
    next.row = row;
    next.durability = Durability::kAsyncWal;
    next.values.push_back(PutValue{"s", "ver", EncodeCounter(ver + 1), std::nullopt});
    next.values.push_back(PutValue{"s", "state", std::string(300, 's'), std::nullopt});
    cam.puts.push_back(std::move(next));
    absl::StatusOr<bool> ok = f.store->CheckAndMutate(kSessionsTable, cam);
    if (!ok.ok() || !*ok) {
      state.SkipWithError("CheckAndMutate failed");
      break;
    }
    ++ver;
  }
}
BENCHMARK(BM_EmbeddedCheckAndMutate);

void BM_EmbeddedPrefixScan100Rows(benchmark::State& state) {
  EmbeddedFixture& f = Embedded();
  Scan scan;
  scan.prefix = "user-a|";
  scan.limit = 100;
  size_t rows = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<RowResult>> r = f.store->Scan(kEventsTable, scan);
    rows = r->size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_EmbeddedPrefixScan100Rows);

}  // namespace

// Removes the benchmark databases once every benchmark has run.
void RemoveFixtures() {
  std::filesystem::remove_all(BenchDir("embedded"));
  std::filesystem::remove_all(BenchDir("raw"));
}

}  // namespace rtb::storage

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  rtb::storage::RemoveFixtures();
  return 0;
}
