// Latency of one Get through the hbase backend against the gateway named by
// RTB_HBASE_THRIFT (e.g. 127.0.0.1:9090), blocking and asynchronous, with
// p50/p99 reported as counters (microseconds).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "storage/hbase_store.h"

namespace rtb::storage {
namespace {

using Clock = std::chrono::steady_clock;

struct Fixture {
  std::unique_ptr<Store> store;
  std::string table;
};

Fixture* Shared() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    const char* endpoint = std::getenv("RTB_HBASE_THRIFT");
    if (endpoint == nullptr) return f;
    HBaseStoreOptions o;
    o.endpoints = {endpoint};
    if (const char* t = std::getenv("RTB_HBASE_THRIFT_TRANSPORT");
        t && std::string(t) == "framed") {
      o.transport = ThriftTransport::kFramed;
    }
    absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
    if (!store.ok()) return f;
    f->store = *std::move(store);
    f->table = "rtb_bench_get_" + std::to_string(getpid());
    TableSchema s;
    s.name = f->table;
    FamilyOptions seg;
    seg.name = "seg";
    s.families = {seg};
    if (!f->store->CreateTable(s).ok()) {
      f->store.reset();
      return f;
    }
    Put p;
    p.row = std::string(16, '\x5a');
    p.values = {{"seg", "segments", std::string(200, 's'), std::nullopt}};
    if (!f->store->Put(f->table, p).ok()) f->store.reset();
    return f;
  }();
  return fixture;
}

void Report(benchmark::State& state, std::vector<double>& micros) {
  if (micros.empty()) return;
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[std::min(micros.size() - 1, micros.size() * 99 / 100)];
}

void BM_HBaseGet(benchmark::State& state) {
  Fixture* f = Shared();
  if (f->store == nullptr) {
    state.SkipWithError("RTB_HBASE_THRIFT not set or HBase not reachable");
    return;
  }
  Get g;
  g.row = std::string(16, '\x5a');
  g.columns = {{"seg", std::nullopt}};
  std::vector<double> micros;
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    absl::StatusOr<RowResult> r = f->store->Get(f->table, g);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!r.ok() || r->empty()) {
      state.SkipWithError("Get failed");
      return;
    }
  }
  Report(state, micros);
}
BENCHMARK(BM_HBaseGet)->Iterations(5000)->Unit(benchmark::kMicrosecond);

void BM_HBaseAsyncGet(benchmark::State& state) {
  Fixture* f = Shared();
  if (f->store == nullptr) {
    state.SkipWithError("RTB_HBASE_THRIFT not set or HBase not reachable");
    return;
  }
  boost::asio::io_context executor;
  auto work = boost::asio::make_work_guard(executor);
  std::thread runner([&] { executor.run(); });
  Get g;
  g.row = std::string(16, '\x5a');
  std::vector<double> micros;
  for (auto _ : state) {
    std::promise<bool> done;
    Clock::time_point start = Clock::now();
    f->store->AsyncGet(f->table, g, start + std::chrono::seconds(1), executor.get_executor(),
                       [&](absl::StatusOr<RowResult> r) { done.set_value(r.ok() && !r->empty()); });
    bool ok = done.get_future().get();
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!ok) {
      state.SkipWithError("AsyncGet failed");
      break;
    }
  }
  work.reset();
  runner.join();
  Report(state, micros);
}
BENCHMARK(BM_HBaseAsyncGet)->Iterations(5000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rtb::storage

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  rtb::storage::Fixture* f = rtb::storage::Shared();
  if (f->store != nullptr) (void)f->store->DeleteTable(f->table);
  benchmark::Shutdown();
  return 0;
}
