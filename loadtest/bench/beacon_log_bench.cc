// What the beacon log adds to a beacon: the CPU of one append to the
// embedded log (framing on the caller's thread, the writer thread's write()
// and fdatasync(), the callback), measured as the whole process's CPU time
// per record (MeasureProcessCPUTime), two ways:
//   - BM_EmbeddedLogAppend: 1, 8 and 64 callers each waiting for its answer
//     as an HTTP connection does (closed loop);
//   - BM_EmbeddedLogAtRate: beacons arriving at a fixed rate, as they reach
//     a bidder (open loop), with and without group_wait_us; it also reports
//     the answers' median and p99 latency. Less BM_PacedArrivalsOnly at the
//     same rate (the pacing's own timer wake-ups), it is the log's cost.
// The record is a billing notice's (about 430 bytes of query). Run on a
// local disk:
//   build/loadtest/bench/beacon_log_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
// The target (issue "Every acknowledged beacon survives a store outage"):
// at most 20 us of CPU per beacon at the median with the embedded log.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "beaconlog/embedded_log.h"
#include "benchmark/benchmark.h"

namespace rtb::beaconlog {
namespace {

// A billing notice's query as the bidder signs it (ids, prices, the
// device key, the signature): the size matters, not the content.
std::string NoticeQuery() {
  return "x=rtb1&ex=sample-exchange&rq=4f1c2a9e-77b4-4c1d-9e0f-5a6b7c8d9e01&im=1&bi=b-1-1"
         "&c=northwind-travel-display&cr=northwind-mrec-a&bp=2150000&bc=USD&t=1765112400123"
         "&dk=2f1c9a0b3e4d5f60718293a4b5c6d7e8&pf=7&pr=1.72&cu=USD&fk=&lr=&mw="
         "&sig=Yk3nQ0b2xJcP5y0rT8mQv2n1s7aW9eZlKxH4fG6dS3uV8pR1tN0oM2iL5kJ7hE4g"
         "&pad=" +
         std::string(160, 'a');
}

// This run's logs, one directory per sync policy below it.
std::filesystem::path BenchDirectory() {
  return std::filesystem::temp_directory_path() / absl::StrCat("rtb-beacon-log-bench-", ::getpid());
}

// One log per sync policy and group wait, opened by the first thread that
// asks; the run's directory is removed at exit. Nothing reads it; it is
// sized not to fill during a run.
LogWriter& Writer(SyncPolicy sync, int group_wait_us = 0) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<LogWriter>> writers;
  const std::pair<int, int> index(sync == SyncPolicy::kEveryBatch ? 0 : 1, group_wait_us);
  std::lock_guard<std::mutex> guard(mutex);
  std::unique_ptr<LogWriter>& writer = writers[index];
  if (writer == nullptr) {
    static const int removed_at_exit =
        std::atexit([] { std::filesystem::remove_all(BenchDirectory()); });
    (void)removed_at_exit;
    const std::filesystem::path dir =
        BenchDirectory() / absl::StrCat(index.first, "-", index.second);
    std::filesystem::remove_all(dir);
    EmbeddedLogOptions options;
    options.path = dir.string();
    options.max_bytes = int64_t{8} << 30;
    options.sync = sync;
    options.group_wait_us = group_wait_us;
    writer = *OpenEmbeddedLogWriter(options);
  }
  return *writer;
}

std::string NoticePayload() { return "b1" + std::string(9, '\0') + NoticeQuery(); }

void BM_EmbeddedLogAppend(benchmark::State& state) {
  const SyncPolicy sync = state.range(0) == 0 ? SyncPolicy::kEveryBatch : SyncPolicy::kNone;
  LogWriter& writer = Writer(sync);
  const std::string key(16, 'k');
  const std::string payload = NoticePayload();
  for (auto _ : state) {
    std::promise<void> durable;
    writer.Append(key, payload, [&](absl::Status s) {
      if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
      durable.set_value();
    });
    durable.get_future().wait();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(payload.size() + key.size()));
}
BENCHMARK(BM_EmbeddedLogAppend)
    ->ArgName("sync_none")
    ->Arg(0)
    ->Arg(1)
    ->Threads(1)
    ->Threads(8)
    ->Threads(64)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

// Beacons arriving at state.range(0) a second from one thread that never
// waits for answers (the I/O threads do not), every_batch with a group wait
// of state.range(1) us. Each iteration is one arrival; the real time is
// therefore 1/rate, and the CPU time what a beacon costs at that rate.
void BM_EmbeddedLogAtRate(benchmark::State& state) {
  const int64_t rate = state.range(0);
  const int group_wait_us = static_cast<int>(state.range(1));
  LogWriter& writer = Writer(SyncPolicy::kEveryBatch, group_wait_us);
  const std::string key(16, 'k');
  const std::string payload = NoticePayload();
  const auto interval = std::chrono::nanoseconds(1'000'000'000 / rate);
  std::mutex mutex;
  std::vector<int64_t> latencies_us;
  std::atomic<int64_t> failed = 0;
  auto next = std::chrono::steady_clock::now();
  for (auto _ : state) {
    std::this_thread::sleep_until(next);
    next += interval;
    const auto sent = std::chrono::steady_clock::now();
    writer.Append(key, payload, [&, sent](absl::Status s) {
      if (!s.ok()) ++failed;
      const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now() - sent)
                             .count();
      std::lock_guard<std::mutex> guard(mutex);
      latencies_us.push_back(us);
    });
  }
  if (!writer.Flush(absl::Seconds(30)).ok() || failed.load() > 0) {
    state.SkipWithError("appends failed or never answered");
    return;
  }
  std::sort(latencies_us.begin(), latencies_us.end());
  const auto at = [&](double q) {
    return static_cast<double>(latencies_us[static_cast<size_t>(q * (latencies_us.size() - 1))]);
  };
  state.counters["answer_p50_us"] = at(0.5);
  state.counters["answer_p99_us"] = at(0.99);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EmbeddedLogAtRate)
    ->ArgNames({"per_s", "group_wait_us"})
    ->ArgsProduct({{600, 3000, 12000}, {0, 2000, 5000, 10000}})
    ->MeasureProcessCPUTime()
    ->UseRealTime();

// The pacing of BM_EmbeddedLogAtRate alone (a timer wake-up per arrival, no
// append): its CPU per iteration is to be taken from BM_EmbeddedLogAtRate's
// to get what the log costs a beacon (a bidder's I/O thread is woken by the
// request anyway).
void BM_PacedArrivalsOnly(benchmark::State& state) {
  const auto interval = std::chrono::nanoseconds(1'000'000'000 / state.range(0));
  auto next = std::chrono::steady_clock::now();
  for (auto _ : state) {
    std::this_thread::sleep_until(next);
    next += interval;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PacedArrivalsOnly)
    ->ArgName("per_s")
    ->Arg(600)
    ->Arg(3000)
    ->Arg(12000)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace rtb::beaconlog

BENCHMARK_MAIN();
