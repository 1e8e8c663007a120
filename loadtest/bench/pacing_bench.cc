// The beacon path's spend recording and the bid path's pacing read, the two
// calls pacing puts on request threads (pacing/pacer.h).
//
//   build/loadtest/bench/pacing_bench --benchmark_repetitions=9
//       --benchmark_report_aggregates_only=true
//
// BM_RecordSpend is SpendRecorder::Record for one won impression: budget
// target < 100 ns median, no allocation (the allocs_per_record counter counts
// operator new calls inside the timed loop). The threaded runs show the
// stripes keep threads off each other's cache lines. BM_MayBid is what the
// auction asks per candidate campaign: the validity check (a clock read) and
// the throttle.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "benchmark/benchmark.h"
#include "pacing/pacer.h"
#include "storage/clock.h"

// Counting replacements of the global operator new/delete. GCC cannot see
// that the replaced pair matches and warns at every inlined use.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {

// Per thread, so one benchmark thread counts only its own allocations.
thread_local uint64_t allocations = 0;

}  // namespace

void* operator new(size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace rtb::pacing {
namespace {

constexpr size_t kCampaigns = 200;

void BM_RecordSpend(benchmark::State& state) {
  static SpendRecorder* recorder = nullptr;
  if (state.thread_index() == 0) recorder = new SpendRecorder(kCampaigns);
  size_t campaign = static_cast<size_t>(state.thread_index()) * 7;
  int64_t price = 1700;
  uint64_t before = 0;
  bool first = true;
  for (auto _ : state) {
    if (first) {
      before = allocations;
      first = false;
    }
    benchmark::DoNotOptimize(recorder->Record(campaign, price));
    campaign = campaign + 1 == kCampaigns ? 0 : campaign + 1;
    price = price == 2300 ? 1700 : price + 1;
  }
  const uint64_t allocated = allocations - before;
  state.counters["allocs_per_record"] =
      benchmark::Counter(static_cast<double>(allocated), benchmark::Counter::kAvgIterations);
  if (state.thread_index() == 0) {
    benchmark::DoNotOptimize(recorder->Take(0));
    delete recorder;
    recorder = nullptr;
  }
}
BENCHMARK(BM_RecordSpend)->ThreadRange(1, 4)->UseRealTime();

// Every thread on one campaign: the worst case for one hot campaign.
void BM_RecordSpendOneCampaign(benchmark::State& state) {
  static SpendRecorder* recorder = nullptr;
  if (state.thread_index() == 0) recorder = new SpendRecorder(kCampaigns);
  for (auto _ : state) benchmark::DoNotOptimize(recorder->Record(3, 2000));
  if (state.thread_index() == 0) {
    delete recorder;
    recorder = nullptr;
  }
}
BENCHMARK(BM_RecordSpendOneCampaign)->ThreadRange(1, 4)->UseRealTime();

void BM_MayBid(benchmark::State& state) {
  Decisions decisions(kCampaigns, storage::SystemClock());
  const int64_t valid_until = storage::SystemClock()->NowMillis() + 3600 * 1000;
  for (size_t i = 0; i < kCampaigns; ++i) decisions.Publish(i, 0.5, valid_until);
  size_t campaign = 0;
  double uniform = 0.1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(decisions.MayBid(campaign, uniform));
    campaign = campaign + 1 == kCampaigns ? 0 : campaign + 1;
    uniform = uniform > 0.9 ? 0.05 : uniform + 0.1;
  }
}
BENCHMARK(BM_MayBid);

}  // namespace
}  // namespace rtb::pacing

BENCHMARK_MAIN();
