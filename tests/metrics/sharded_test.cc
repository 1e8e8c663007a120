#include "metrics/sharded.h"

#include <barrier>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"

namespace rtb::metrics {
namespace {

prometheus::Family<prometheus::Counter>& Counters(prometheus::Registry& registry) {
  return prometheus::BuildCounter().Name("test_total").Help("test").Register(registry);
}

prometheus::Family<prometheus::Histogram>& Histograms(prometheus::Registry& registry) {
  return prometheus::BuildHistogram().Name("test_seconds").Help("test").Register(registry);
}

TEST(ShardedCounterTest, WhatLiveThreadsCountedIsReadAndSoIsWhatEndedThreadsDid) {
  prometheus::Registry registry;
  ShardedCounter counter(Counters(registry), {{"kind", "a"}});
  constexpr int kThreads = 4;
  constexpr int kIncrements = 10000;
  std::barrier counted(kThreads + 1);
  std::barrier read(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) counter.Increment();
      counted.arrive_and_wait();
      read.arrive_and_wait();
      counter.Increment(0.5);
    });
  }
  counted.arrive_and_wait();
  EXPECT_EQ(counter.Value(), kThreads * kIncrements) << "threads alive, counts flushed";
  EXPECT_EQ(counter.Value(), kThreads * kIncrements) << "a second flush adds nothing";
  read.arrive_and_wait();
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.Value(), kThreads * kIncrements + kThreads * 0.5)
      << "an ended thread passed on its last increment";
  counter.Increment(-3);
  EXPECT_EQ(counter.Value(), kThreads * kIncrements + kThreads * 0.5) << "negative ignored";
}

TEST(ShardedCounterTest, CollectFlushesBeforeItCollects) {
  prometheus::Registry registry;
  ShardedCounter counter(Counters(registry), {{"kind", "b"}});
  counter.Increment(7);
  const std::string text = prometheus::TextSerializer().Serialize(Collect(registry));
  EXPECT_NE(text.find("test_total{kind=\"b\"} 7"), std::string::npos) << text;
}

TEST(ShardedCounterTest, ADestroyedCountersSlotStartsAtZeroForTheNextOne) {
  prometheus::Registry registry;
  auto& family = Counters(registry);
  auto first = std::make_unique<ShardedCounter>(family, Labels{{"kind", "first"}});
  first->Increment(5);
  first.reset();
  // The series stays in the family with what was counted.
  EXPECT_EQ(family.Add({{"kind", "first"}}).Value(), 5);
  ShardedCounter second(family, {{"kind", "second"}});
  EXPECT_EQ(second.Value(), 0);
  second.Increment(2);
  EXPECT_EQ(second.Value(), 2);
  EXPECT_EQ(family.Add({{"kind", "first"}}).Value(), 5);
}

TEST(ShardedCounterTest, TwoShardedCountersOfOneSeriesAddUp) {
  prometheus::Registry registry;
  auto& family = Counters(registry);
  ShardedCounter a(family, {{"kind", "same"}});
  ShardedCounter b(family, {{"kind", "same"}});
  a.Increment(1);
  b.Increment(2);
  EXPECT_EQ(a.Value(), 3);
}

TEST(ShardedHistogramTest, BucketsAndSumAreThoseOfAPrometheusHistogram) {
  prometheus::Registry registry;
  const prometheus::Histogram::BucketBoundaries boundaries = {0.001, 0.01, 0.1, 1};
  ShardedHistogram sharded(Histograms(registry), {{"kind", "sharded"}}, boundaries);
  prometheus::Histogram& plain = Histograms(registry).Add({{"kind", "plain"}}, boundaries);
  const double values[] = {0, 0.0005, 0.001, 0.002, 0.01, 0.05, 0.1, 0.5, 1, 2, 100, -1};
  std::thread other([&] {
    for (double v : values) sharded.Observe(v);
  });
  for (double v : values) {
    sharded.Observe(v);
    plain.Observe(v);
    plain.Observe(v);
  }
  other.join();
  const prometheus::ClientMetric got = sharded.Collect();
  const prometheus::ClientMetric want = plain.Collect();
  EXPECT_EQ(got.histogram.sample_count, want.histogram.sample_count);
  EXPECT_DOUBLE_EQ(got.histogram.sample_sum, want.histogram.sample_sum);
  ASSERT_EQ(got.histogram.bucket.size(), want.histogram.bucket.size());
  for (size_t i = 0; i < want.histogram.bucket.size(); ++i) {
    EXPECT_EQ(got.histogram.bucket[i].cumulative_count, want.histogram.bucket[i].cumulative_count)
        << "bucket " << i;
  }
}

TEST(ShardedHistogramTest, HistogramsOnBothSidesOfAChunkBoundaryKeepTheirOwnCounts) {
  prometheus::Registry registry;
  const prometheus::Histogram::BucketBoundaries boundaries = {1, 2, 3};
  // Enough histograms (5 slots each) that some straddle two chunks.
  std::vector<std::unique_ptr<ShardedHistogram>> histograms;
  for (int i = 0; i < 250; ++i) {
    histograms.push_back(std::make_unique<ShardedHistogram>(
        Histograms(registry), Labels{{"n", std::to_string(i)}}, boundaries));
  }
  for (int i = 0; i < 250; ++i) {
    for (int k = 0; k <= i % 4; ++k) histograms[i]->Observe(i % 4 + 0.5);
  }
  for (int i = 0; i < 250; ++i) {
    const prometheus::ClientMetric m = histograms[i]->Collect();
    EXPECT_EQ(m.histogram.sample_count, static_cast<uint64_t>(i % 4 + 1)) << i;
    EXPECT_DOUBLE_EQ(m.histogram.sample_sum, (i % 4 + 1) * (i % 4 + 0.5)) << i;
    EXPECT_EQ(m.histogram.bucket[i % 4].cumulative_count, static_cast<uint64_t>(i % 4 + 1)) << i;
    if (i % 4 > 0) {
      EXPECT_EQ(m.histogram.bucket[i % 4 - 1].cumulative_count, 0u) << i;
    }
  }
}

}  // namespace
}  // namespace rtb::metrics
