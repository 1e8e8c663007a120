// What a metric update costs the request path: a prometheus-cpp Counter and
// Histogram against the per-thread ShardedCounter and ShardedHistogram that
// replace them there (metrics/sharded.h), on one thread and on two updating
// the same series (the two-I/O-thread bidder).
//
//   build/loadtest/bench/metrics_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// BM_Flush is what a scrape or a self-telemetry sample adds: passing on every
// thread's counts of the bidder's per-request series (about 1,000 of them).
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "metrics/sharded.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace {

// The bid latency's boundaries (bidder/bid/bid_metrics.cc).
const prometheus::Histogram::BucketBoundaries kLatencyBuckets = {
    0.00005, 0.0001, 0.0002, 0.0003, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005,
    0.0075,  0.01,   0.015,  0.02,   0.03,   0.05,    0.075, 0.1,    0.15,  0.25};

prometheus::Registry& TheRegistry() {
  static prometheus::Registry* const registry = new prometheus::Registry();
  return *registry;
}

prometheus::Family<prometheus::Counter>& Counters() {
  static auto& family =
      prometheus::BuildCounter().Name("bench_total").Help("bench").Register(TheRegistry());
  return family;
}

prometheus::Family<prometheus::Histogram>& Histograms() {
  static auto& family =
      prometheus::BuildHistogram().Name("bench_seconds").Help("bench").Register(TheRegistry());
  return family;
}

void BM_PrometheusCounterIncrement(benchmark::State& state) {
  prometheus::Counter& counter = Counters().Add({{"kind", "prometheus"}});
  for (auto _ : state) counter.Increment();
}
BENCHMARK(BM_PrometheusCounterIncrement)->Threads(1)->Threads(2);

void BM_ShardedCounterIncrement(benchmark::State& state) {
  static rtb::metrics::ShardedCounter counter(Counters(), {{"kind", "sharded"}});
  for (auto _ : state) counter.Increment();
}
BENCHMARK(BM_ShardedCounterIncrement)->Threads(1)->Threads(2);

// Latencies from 0.4 ms to 10 ms, so the bucket search takes its usual path.
template <typename Histogram>
void ObserveLatencies(Histogram& histogram, benchmark::State& state) {
  double value = 0.0004;
  for (auto _ : state) {
    histogram.Observe(value);
    value = value < 0.01 ? value * 1.5 : 0.0004;
  }
}

void BM_PrometheusHistogramObserve(benchmark::State& state) {
  ObserveLatencies(Histograms().Add({{"kind", "prometheus"}}, kLatencyBuckets), state);
}
BENCHMARK(BM_PrometheusHistogramObserve)->Threads(1)->Threads(2);

void BM_ShardedHistogramObserve(benchmark::State& state) {
  static rtb::metrics::ShardedHistogram histogram(Histograms(), {{"kind", "sharded"}},
                                                  kLatencyBuckets);
  ObserveLatencies(histogram, state);
}
BENCHMARK(BM_ShardedHistogramObserve)->Threads(1)->Threads(2);

void BM_Flush(benchmark::State& state) {
  std::vector<std::unique_ptr<rtb::metrics::ShardedCounter>> counters;
  for (int i = 0; i < 1000; ++i) {
    counters.push_back(std::make_unique<rtb::metrics::ShardedCounter>(
        Counters(), rtb::metrics::Labels{{"n", std::to_string(i)}}));
  }
  for (auto _ : state) {
    for (auto& counter : counters) counter->Increment();
    rtb::metrics::Flush();
  }
}
BENCHMARK(BM_Flush);

}  // namespace

BENCHMARK_MAIN();
