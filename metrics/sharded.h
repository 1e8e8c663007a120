// Counters and histograms for code that runs on every request. An update is
// a plain add to the calling thread's own copy: no lock, no atomic
// read-modify-write, no cache line written by two threads. The
// prometheus-cpp metric behind each one receives what the threads counted
// when metrics are read: Flush() passes it on, and Collect() flushes before
// it collects a registry. Whatever reads such a metric (the /metrics
// exposition, self-telemetry, the admin API, tests) goes through Collect(),
// Flush() or Value().
//
// A prometheus-cpp Histogram::Observe takes a mutex and makes two atomic
// compare-and-swap loops, a Counter::Increment one loop: tens of
// nanoseconds each uncontended, and a cache line bouncing between cores when
// two I/O threads count the same series. The bid path makes about fifteen
// such updates a request.
//
//   hot path ── Increment/Observe ──► this thread's slots (relaxed load+store)
//   Flush ── per metric, per thread: value - value already passed on ──►
//            Counter::Increment / Histogram::ObserveMultiple
//
// Thread-safety: Increment and Observe from any thread; Flush, Collect and
// Value from any thread (serialised inside). A metric must outlive its
// updates; its destructor passes on what the threads still hold, and a
// thread that ends passes on its own.
#ifndef RTB_METRICS_SHARDED_H_
#define RTB_METRICS_SHARDED_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"

namespace rtb::metrics {

using Labels = std::map<std::string, std::string>;

namespace internal {

// A thread's values, in chunks of slots allocated on first use; a metric
// owns a range of slot numbers, the same in every thread.
inline constexpr size_t kChunkSlots = 512;
inline constexpr size_t kMaxChunks = 2048;

struct Chunk {
  std::atomic<double> values[kChunkSlots] = {};
  // What Flush has passed on of each value (under the registry's lock).
  double flushed[kChunkSlots] = {};
};

struct Shard {
  std::atomic<Chunk*> chunks[kMaxChunks] = {};
};

// The calling thread's shard, registered on first use.
Shard& RegisterThisThread();
// A chunk of the calling thread's shard that it has not used yet.
Chunk& AddChunk(Shard& shard, size_t chunk);

inline thread_local Shard* this_thread_shard = nullptr;

inline void Add(uint32_t slot, double amount) {
  Shard* shard = this_thread_shard;
  if (shard == nullptr) [[unlikely]]
    shard = &RegisterThisThread();
  const size_t chunk_index = slot / kChunkSlots;
  // Only this thread stores its chunk pointers.
  Chunk* chunk = shard->chunks[chunk_index].load(std::memory_order_relaxed);
  if (chunk == nullptr) [[unlikely]]
    chunk = &AddChunk(*shard, chunk_index);
  std::atomic<double>& value = chunk->values[slot % kChunkSlots];
  // One writer: a load and a store, which Flush may read at any time.
  value.store(value.load(std::memory_order_relaxed) + amount, std::memory_order_relaxed);
}

}  // namespace internal

class ShardedCounter {
 public:
  // Adds the series `labels` to `family` (or takes the one there), which
  // must outlive this.
  ShardedCounter(prometheus::Family<prometheus::Counter>& family, const Labels& labels);
  ~ShardedCounter();
  ShardedCounter(const ShardedCounter&) = delete;
  ShardedCounter& operator=(const ShardedCounter&) = delete;

  // As prometheus::Counter: a negative amount is ignored.
  void Increment(double amount = 1.0) {
    if (amount >= 0) internal::Add(slot_, amount);
  }
  // Flushes, then reads the series.
  double Value() const;

 private:
  prometheus::Counter& target_;
  uint32_t slot_;
};

class ShardedHistogram {
 public:
  // Adds the series `labels` with `boundaries` to `family` (or takes the one
  // there, which must have the same boundaries); `family` must outlive this.
  ShardedHistogram(prometheus::Family<prometheus::Histogram>& family, const Labels& labels,
                   const prometheus::Histogram::BucketBoundaries& boundaries);
  ~ShardedHistogram();
  ShardedHistogram(const ShardedHistogram&) = delete;
  ShardedHistogram& operator=(const ShardedHistogram&) = delete;

  void Observe(double value) {
    // The bucket prometheus::Histogram::Observe picks: the first boundary at
    // or above the value, else the +Inf bucket.
    const size_t bucket = static_cast<size_t>(
        std::lower_bound(boundaries_.begin(), boundaries_.end(), value) - boundaries_.begin());
    internal::Add(first_slot_ + static_cast<uint32_t>(bucket), 1);
    internal::Add(first_slot_ + static_cast<uint32_t>(boundaries_.size()) + 1, value);
  }
  // Flushes, then collects the series.
  prometheus::ClientMetric Collect() const;

 private:
  prometheus::Histogram& target_;
  std::vector<double> boundaries_;
  // Buckets (boundaries and +Inf), then the sum.
  uint32_t first_slot_;
};

// Passes on what every thread has counted since the last flush.
void Flush();

// Flush(), then registry.Collect().
std::vector<prometheus::MetricFamily> Collect(const prometheus::Registry& registry);

}  // namespace rtb::metrics

#endif  // RTB_METRICS_SHARDED_H_
