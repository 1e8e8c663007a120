// Profile Get latency at a fixed arrival rate (open loop): through the
// Thrift2 client (the hbase backend) against a storage-server process and
// against real HBase (RTB_HBASE_THRIFT=host:port), with the embedded engine
// in process beside them. Gets are issued at their intended times whatever
// earlier ones do, and latency counts from the intended time, so a stall
// shows up in the percentiles instead of slowing the load (no coordinated
// omission). The row is the bid path's: a 1.5 KB profile of 80 segments and
// 24 frequency-cap counters, read with one TIMELINE Get of both families.
//
//   storage_thrift_get_benchmark [--benchmark_filter=...]
//
// Counters: p50_us, p90_us, p99_us, p999_us, max_us, errors, and the rate
// achieved. HBase runs are skipped (with an error line) without
// RTB_HBASE_THRIFT.
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "storage/embedded_store.h"
#include "storage/hbase_store.h"
#include "storage/schemas.h"
#include "tests/storage/server/server_process.h"

namespace rtb::storage {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRows = 1000;
constexpr double kSeconds = 5.0;

std::string DeviceKey(int i) {
  std::string key(16, '\0');
  uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  for (int b = 0; b < 16; ++b) key[b] = static_cast<char>((x >> ((b % 8) * 8)) ^ (b * 31));
  return key;
}

Put ProfileRow(const std::string& row) {
  Put p;
  p.row = row;
  for (int i = 0; i < 80; ++i) {
    char q[9];
    std::snprintf(q, sizeof(q), "s%07d", i * 37);
    p.values.push_back(PutValue{"seg", q, std::string("\x00\x00\x00\x5a", 4), std::nullopt});
  }
  for (int i = 0; i < 24; ++i) {
    p.values.push_back(PutValue{"fc", "c" + std::to_string(1000 + i) + "|20261004",
                                EncodeCounter(i), std::nullopt});
  }
  return p;
}

TableSchema BenchTable() {
  for (TableSchema t : BidderTables()) {
    if (t.name != kProfilesTable) continue;
    t.name = "rtb_bench_profiles_" + std::to_string(getpid());
    t.split_keys.clear();
    return t;
  }
  std::abort();
}

struct Backend;
// The backends created in this run, closed at exit.
std::vector<Backend*>& Created() {
  static auto* created = new std::vector<Backend*>;
  return *created;
}

struct Backend {
  Backend() { Created().push_back(this); }
  std::unique_ptr<testing::StorageServerProcess> server;
  std::unique_ptr<Store> store;
  std::string table;
  std::string error;
  bool drop_table = false;
  std::filesystem::path dir;
};

bool Load(Backend& b) {
  const TableSchema schema = BenchTable();
  b.table = schema.name;
  if (absl::Status s = b.store->CreateTable(schema); !s.ok()) {
    b.error = std::string(s.message());
    return false;
  }
  std::vector<Put> batch;
  for (int i = 0; i < kRows; ++i) {
    batch.push_back(ProfileRow(DeviceKey(i)));
    if (batch.size() == 50 || i == kRows - 1) {
      if (absl::Status s = b.store->PutBatch(b.table, batch); !s.ok()) {
        b.error = std::string(s.message());
        return false;
      }
      batch.clear();
    }
  }
  return true;
}

// Reads every row twice (closed loop) so caches and the JVM's JIT are warm.
void Warm(Backend& b);

std::filesystem::path ScratchDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("rtb-thrift-bench-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::unique_ptr<Store> Client(const std::string& endpoint) {
  HBaseStoreOptions o;
  o.endpoints = {endpoint};
  const char* t = std::getenv("RTB_HBASE_THRIFT_TRANSPORT");
  if (t != nullptr && std::string(t) == "framed") o.transport = ThriftTransport::kFramed;
  o.call_timeout_ms = 30000;
  absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
  return store.ok() ? *std::move(store) : nullptr;
}

Backend* Embedded() {
  static Backend* b = [] {
    auto* b = new Backend;
    b->dir = ScratchDir("embedded");
    EmbeddedStoreOptions o;
    o.path = b->dir.string();
    absl::StatusOr<std::unique_ptr<Store>> store = OpenEmbeddedStore(o);
    if (!store.ok()) {
      b->error = std::string(store.status().message());
      return b;
    }
    b->store = *std::move(store);
    if (Load(*b)) {
      (void)b->store->Flush(b->table);
      Warm(*b);
    }
    return b;
  }();
  return b;
}

Backend* Server() {
  static Backend* b = [] {
    auto* b = new Backend;
    b->dir = ScratchDir("server");
    b->server = std::make_unique<testing::StorageServerProcess>(b->dir);
    if (!b->server->Start({"--threads", "16"})) {
      b->error = "storage-server did not start: " + b->server->Stderr();
      return b;
    }
    b->store = Client(b->server->endpoint());
    if (b->store == nullptr) {
      b->error = "cannot open the hbase backend";
      return b;
    }
    if (Load(*b)) Warm(*b);
    return b;
  }();
  return b;
}

Backend* HBase() {
  static Backend* b = [] {
    auto* b = new Backend;
    const char* endpoint = std::getenv("RTB_HBASE_THRIFT");
    if (endpoint == nullptr) {
      b->error = "RTB_HBASE_THRIFT not set";
      return b;
    }
    b->store = Client(endpoint);
    if (b->store == nullptr) {
      b->error = "cannot open the hbase backend";
      return b;
    }
    b->drop_table = Load(*b);
    if (b->drop_table) Warm(*b);
    return b;
  }();
  return b;
}

void Report(benchmark::State& state, std::vector<int64_t>& nanos, int errors, double seconds) {
  if (nanos.empty()) return;
  std::sort(nanos.begin(), nanos.end());
  auto at = [&](double q) {
    size_t i =
        std::min(nanos.size() - 1, static_cast<size_t>(q * static_cast<double>(nanos.size())));
    return static_cast<double>(nanos[i]) / 1000.0;
  };
  state.counters["p50_us"] = at(0.50);
  state.counters["p90_us"] = at(0.90);
  state.counters["p99_us"] = at(0.99);
  state.counters["p999_us"] = at(0.999);
  state.counters["max_us"] = static_cast<double>(nanos.back()) / 1000.0;
  state.counters["errors"] = errors;
  state.counters["rate"] = static_cast<double>(nanos.size() + errors) / seconds;
}

Get ProfileGet(int i) {
  Get g;
  g.row = DeviceKey(i);
  g.columns = {{"seg", std::nullopt}, {"fc", std::nullopt}};
  g.consistency = Consistency::kTimeline;
  return g;
}

void Warm(Backend& b) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kRows; ++i) (void)b.store->Get(b.table, ProfileGet(i));
  }
}

// Sleeps to just before `t` and spins the rest: a plain sleep wakes tens of
// microseconds late (timer slack, set to 1 ns in main), which would count as
// store latency.
void WaitUntil(Clock::time_point t) {
  std::this_thread::sleep_until(t - std::chrono::microseconds(30));
  while (Clock::now() < t) {
  }
}

// AsyncGets sent at `rate` per second for kSeconds; answers land on one
// executor thread, as on a bidder I/O thread.
void FixedRateAsyncGets(benchmark::State& state, Backend* b) {
  if (b->store == nullptr || !b->error.empty()) {
    state.SkipWithError(b->error.c_str());
    return;
  }
  const double rate = static_cast<double>(state.range(0));
  const int total = static_cast<int>(rate * kSeconds);
  boost::asio::io_context executor;
  auto work = boost::asio::make_work_guard(executor);
  std::thread runner([&] { executor.run(); });
  std::vector<int64_t> nanos;
  nanos.reserve(static_cast<size_t>(total));
  std::atomic<int> errors{0};
  std::atomic<int> answered{0};
  std::mt19937 random(7);
  for (auto _ : state) {
    const Clock::time_point start = Clock::now() + std::chrono::milliseconds(10);
    for (int i = 0; i < total; ++i) {
      const Clock::time_point intended =
          start + std::chrono::nanoseconds(static_cast<int64_t>(1e9 * i / rate));
      WaitUntil(intended);
      b->store->AsyncGet(b->table, ProfileGet(static_cast<int>(random() % kRows)),
                         intended + std::chrono::seconds(1), executor.get_executor(),
                         [&, intended](absl::StatusOr<RowResult> r) {
                           if (r.ok() && r->cells.size() == 104) {
                             nanos.push_back((Clock::now() - intended).count());
                           } else {
                             ++errors;
                           }
                           ++answered;
                         });
    }
    for (int i = 0; i < 3000 && answered.load() < total; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  work.reset();
  runner.join();
  Report(state, nanos, errors.load(), kSeconds);
}

// Blocking Gets on the pacing thread itself: the in-process figure.
void FixedRateBlockingGets(benchmark::State& state, Backend* b) {
  if (b->store == nullptr || !b->error.empty()) {
    state.SkipWithError(b->error.c_str());
    return;
  }
  const double rate = static_cast<double>(state.range(0));
  const int total = static_cast<int>(rate * kSeconds);
  std::vector<int64_t> nanos;
  nanos.reserve(static_cast<size_t>(total));
  int errors = 0;
  std::mt19937 random(7);
  for (auto _ : state) {
    const Clock::time_point start = Clock::now() + std::chrono::milliseconds(10);
    for (int i = 0; i < total; ++i) {
      const Clock::time_point intended =
          start + std::chrono::nanoseconds(static_cast<int64_t>(1e9 * i / rate));
      WaitUntil(intended);
      absl::StatusOr<RowResult> r =
          b->store->Get(b->table, ProfileGet(static_cast<int>(random() % kRows)));
      if (r.ok() && r->cells.size() == 104) {
        nanos.push_back((Clock::now() - intended).count());
      } else {
        ++errors;
      }
    }
  }
  Report(state, nanos, errors, kSeconds);
}

void BM_EmbeddedGet(benchmark::State& state) { FixedRateBlockingGets(state, Embedded()); }
void BM_EmbeddedAsyncGet(benchmark::State& state) { FixedRateAsyncGets(state, Embedded()); }
void BM_StorageServerGet(benchmark::State& state) { FixedRateAsyncGets(state, Server()); }
void BM_HBaseGet(benchmark::State& state) { FixedRateAsyncGets(state, HBase()); }

// Rates in Gets per second. HBase's gateway saturates below 5000 on this
// machine (answers pile up past the 1 s deadline), so it runs the lower two.
#define RTB_FIXED_RATE(bm) \
  BENCHMARK(bm)->Arg(200)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime()
RTB_FIXED_RATE(BM_EmbeddedGet)->Arg(5000);
RTB_FIXED_RATE(BM_EmbeddedAsyncGet)->Arg(5000);
RTB_FIXED_RATE(BM_StorageServerGet)->Arg(5000);
RTB_FIXED_RATE(BM_HBaseGet);

void Close(Backend* b) {
  if (b->store != nullptr && b->drop_table) (void)b->store->DeleteTable(b->table);
  b->store.reset();
  if (b->server) b->server->Stop();
  if (!b->dir.empty()) std::filesystem::remove_all(b->dir);
}

}  // namespace
}  // namespace rtb::storage

int main(int argc, char** argv) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (rtb::storage::Backend* b : rtb::storage::Created()) rtb::storage::Close(b);
  return 0;
}
