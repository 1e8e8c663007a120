// One life of the crash loop (embedded_crash_loop_test.cc): opens the store,
// runs a mixed SYNC_WAL load (whole-row Puts, CheckAndMutates, Increments with
// nonces) on writer threads while reader threads check that no row is ever
// seen torn, and reports every operation on stdout (crash_loop.h) until the
// test kills it with SIGKILL.
//   storage_crash_loop_test_writer <path> <cycle> <seed>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/embedded_store.h"
#include "tests/storage/crash_loop.h"

namespace rtb::storage::testing::crash_loop {
namespace {

constexpr int kReaders = 2;

void Emit(const std::string& line) {
  // One write per line: lines of concurrent threads never interleave.
  const std::string out = line + "\n";
  if (::write(STDOUT_FILENO, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
    std::_Exit(10);
  }
}

// Rows written once, shared with the readers so they check fresh rows too.
class RecentRows {
 public:
  void Add(std::string row) {
    std::lock_guard<std::mutex> lock(mutex_);
    rows_[next_++ % rows_.size()] = std::move(row);
  }
  std::string Pick(uint64_t r) {
    std::lock_guard<std::mutex> lock(mutex_);
    return rows_[r % rows_.size()];
  }

 private:
  std::mutex mutex_;
  std::array<std::string, 64> rows_;
  size_t next_ = 0;
};

class Writer {
 public:
  Writer(Store& store, int cycle, int thread, uint64_t seed, RecentRows& recent)
      : store_(store), cycle_(cycle), thread_(thread), rng_(seed), recent_(recent) {}

  // Reads the current token of the thread's overwritten rows.
  bool Load() {
    for (int k = 0; k < kOverwrittenRowsPerThread; ++k) {
      Get get;
      get.row = OverwrittenRow(thread_, k);
      absl::StatusOr<RowResult> row = store_.Get(kAcidTable, get);
      if (!row.ok()) return false;
      std::optional<std::string> token = WholeRowToken(*row);
      if (!token) return false;
      current_[k] = *token;
    }
    return true;
  }

  void Run() {
    for (uint64_t seq = 1;; ++seq) {
      const std::string op = std::to_string(thread_) + "." + std::to_string(seq);
      const std::string token =
          "c" + std::to_string(cycle_) + "t" + std::to_string(thread_) + "s" + std::to_string(seq);
      const uint32_t kind = rng_() % 10;
      absl::Status status;
      if (kind < 3) {
        const std::string row =
            LogRowPrefix(cycle_) + std::to_string(thread_) + "-" + std::to_string(seq);
        Emit("B " + op + " P " + row + " " + token);
        status = store_.Put(kAcidTable, WholeRow(row, token));
        if (status.ok()) recent_.Add(row);
      } else if (kind < 5) {
        const int k = static_cast<int>(rng_() % kOverwrittenRowsPerThread);
        Emit("B " + op + " P " + OverwrittenRow(thread_, k) + " " + token);
        status = store_.Put(kAcidTable, WholeRow(OverwrittenRow(thread_, k), token));
        if (status.ok()) current_[k] = token;
      } else if (kind < 7) {
        const int k = static_cast<int>(rng_() % kOverwrittenRowsPerThread);
        CheckAndMutate cam;
        cam.row = OverwrittenRow(thread_, k);
        cam.family = kFamilies[0];
        cam.qualifier = kColumns[0];
        cam.op = CompareOp::kEqual;
        cam.value = current_[k];  // empty: the row is absent
        cam.puts.push_back(WholeRow(cam.row, token));
        Emit("B " + op + " C " + cam.row + " " + token + " " +
             (current_[k].empty() ? "-" : current_[k]));
        absl::StatusOr<bool> applied = store_.CheckAndMutate(kAcidTable, cam);
        if (!applied.ok()) {
          status = applied.status();
        } else if (!*applied) {
          status = absl::FailedPreconditionError("check failed on the writer's own row");
        } else {
          current_[k] = token;
        }
      } else {
        const std::string row = CounterRow(static_cast<int>(rng_() % kCounterRows));
        const int64_t amount = 1 + static_cast<int64_t>(rng_() % 100);
        Increment inc;
        inc.row = row;
        for (const char* f : kFamilies) inc.columns.push_back({f, kCounterColumn, amount});
        inc.durability = Durability::kSyncWal;
        // Unique per (cycle, thread, seq), never 0.
        inc.nonce = (static_cast<uint64_t>(cycle_ + 1) << 40) |
                    (static_cast<uint64_t>(thread_) << 32) | seq;
        Emit("B " + op + " I " + row + " " + std::to_string(inc.nonce) + " " +
             std::to_string(amount));
        status = store_.Increment(kCountersTable, inc).status();
      }
      if (status.ok()) {
        Emit("A " + op);
      } else {
        Emit("E " + op + " " + std::string(status.message()));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }

 private:
  Store& store_;
  const int cycle_;
  const int thread_;
  std::mt19937_64 rng_;
  RecentRows& recent_;
  std::array<std::string, kOverwrittenRowsPerThread> current_;
};

std::atomic<uint64_t> reads{0};
std::atomic<uint64_t> torn{0};

void ReadForever(Store& store, uint64_t seed, RecentRows& recent) {
  std::mt19937_64 rng(seed);
  for (;;) {
    Get get;
    if (rng() % 2 == 0) {
      get.row = OverwrittenRow(static_cast<int>(rng() % kWriterThreads),
                               static_cast<int>(rng() % kOverwrittenRowsPerThread));
    } else {
      get.row = recent.Pick(rng());
      if (get.row.empty()) continue;
    }
    absl::StatusOr<RowResult> row = store.Get(kAcidTable, get);
    if (!row.ok()) continue;
    reads.fetch_add(1, std::memory_order_relaxed);
    if (!WholeRowToken(*row)) torn.fetch_add(1, std::memory_order_relaxed);
  }
}

int Main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <path> <cycle> <seed>\n", argv[0]);
    return 2;
  }
  const int cycle = std::atoi(argv[2]);
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  EmbeddedStoreOptions options;
  options.path = argv[1];
  options.block_cache_bytes = 8 << 20;
  options.write_buffer_bytes = 1 << 20;  // small: flushes happen within a life
  options.memtable_budget_bytes = 2 << 20;
  absl::StatusOr<std::unique_ptr<Store>> store = OpenEmbeddedStore(options);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", std::string(store.status().message()).c_str());
    return 3;
  }
  if (!(*store)->CreateTable(AcidSchema()).ok() || !(*store)->CreateTable(CountersSchema()).ok()) {
    return 4;
  }
  RecentRows recent;
  std::vector<std::unique_ptr<Writer>> writers;
  for (int t = 0; t < kWriterThreads; ++t) {
    writers.push_back(std::make_unique<Writer>(**store, cycle, t, seed * 31 + t, recent));
    if (!writers.back()->Load()) return 5;
  }
  Emit("ready");
  std::vector<std::thread> threads;
  for (auto& w : writers) threads.emplace_back([&w] { w->Run(); });
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] { ReadForever(**store, seed * 131 + r, recent); });
  }
  // Runs until killed; the totals are reported often enough that the last
  // report before the kill misses only a few milliseconds of reads.
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Emit("R " + std::to_string(reads.load()) + " " + std::to_string(torn.load()));
  }
}

}  // namespace
}  // namespace rtb::storage::testing::crash_loop

int main(int argc, char** argv) { return rtb::storage::testing::crash_loop::Main(argc, argv); }
