// What the beacon log adds to a beacon: the CPU of one append to the
// embedded log (framing on the caller's thread, the writer thread's write()
// and fdatasync(), the callback), measured as the whole process's CPU time
// per record (MeasureProcessCPUTime), with 1 and 8 callers each waiting for
// its answer as an HTTP connection does. The record is a billing notice's
// (about 430 bytes of query). Run on a local disk:
//   build/loadtest/bench/beacon_log_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
// The target (issue "Every acknowledged beacon survives a store outage"):
// at most 20 us of CPU per beacon at the median with the embedded log.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>

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

// One log per sync policy, opened by the first thread that asks; the run's
// directory is removed at exit. Nothing reads it; it is sized not to fill
// during a run.
LogWriter& Writer(SyncPolicy sync) {
  static std::mutex mutex;
  static std::unique_ptr<LogWriter> writers[2];
  const int index = sync == SyncPolicy::kEveryBatch ? 0 : 1;
  std::lock_guard<std::mutex> guard(mutex);
  if (writers[index] == nullptr) {
    static const int removed_at_exit =
        std::atexit([] { std::filesystem::remove_all(BenchDirectory()); });
    (void)removed_at_exit;
    const std::filesystem::path dir = BenchDirectory() / std::to_string(index);
    std::filesystem::remove_all(dir);
    EmbeddedLogOptions options;
    options.path = dir.string();
    options.max_bytes = int64_t{8} << 30;
    options.sync = sync;
    writers[index] = *OpenEmbeddedLogWriter(options);
  }
  return *writers[index];
}

void BM_EmbeddedLogAppend(benchmark::State& state) {
  const SyncPolicy sync = state.range(0) == 0 ? SyncPolicy::kEveryBatch : SyncPolicy::kNone;
  LogWriter& writer = Writer(sync);
  const std::string key(16, 'k');
  const std::string payload = "b1" + std::string(9, '\0') + NoticeQuery();
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

}  // namespace
}  // namespace rtb::beaconlog

BENCHMARK_MAIN();
