#include "metrics/sharded.h"

#include <memory>
#include <stdexcept>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace rtb::metrics {
namespace internal {
namespace {

// Where a metric's slots go when flushed: a counter has one slot; a
// histogram one per bucket and one for the sum.
struct Target {
  prometheus::Counter* counter = nullptr;
  prometheus::Histogram* histogram = nullptr;
  uint32_t slots = 0;
};

double Unflushed(Chunk& chunk, size_t offset) {
  const double value = chunk.values[offset].load(std::memory_order_relaxed);
  const double delta = value - chunk.flushed[offset];
  chunk.flushed[offset] = value;
  return delta;
}

// Every thread's shard and every metric's slots. Never destroyed: a thread
// may end, and pass on its values, after static destruction began.
class Registry {
 public:
  static Registry& Get() {
    static Registry* const registry = new Registry();
    return *registry;
  }

  uint32_t Allocate(const Target& target) {
    absl::MutexLock lock(&mu_);
    uint32_t first;
    if (auto free = free_.find(target.slots); free != free_.end() && !free->second.empty()) {
      first = free->second.back();
      free->second.pop_back();
    } else {
      if (next_slot_ + target.slots > kChunkSlots * kMaxChunks) {
        throw std::length_error("rtb::metrics: out of slots for sharded metrics");
      }
      first = next_slot_;
      next_slot_ += target.slots;
    }
    targets_.emplace(first, target);
    return first;
  }

  // Passes on what the threads hold of the metric, then frees its slots
  // (zeroed in every shard, so the next metric given them starts at 0).
  void Release(uint32_t first) {
    absl::MutexLock lock(&mu_);
    auto it = targets_.find(first);
    if (it == targets_.end()) return;
    const Target target = it->second;
    for (Shard* shard : shards_) FlushTarget(*shard, first, target);
    for (Shard* shard : shards_) {
      for (uint32_t slot = first; slot < first + target.slots; ++slot) {
        if (Chunk* chunk = shard->chunks[slot / kChunkSlots].load(std::memory_order_acquire)) {
          chunk->values[slot % kChunkSlots].store(0, std::memory_order_relaxed);
          chunk->flushed[slot % kChunkSlots] = 0;
        }
      }
    }
    targets_.erase(it);
    free_[target.slots].push_back(first);
  }

  void FlushAll() {
    absl::MutexLock lock(&mu_);
    for (Shard* shard : shards_) FlushShard(*shard);
  }

  void AddShard(Shard* shard) {
    absl::MutexLock lock(&mu_);
    shards_.push_back(shard);
  }

  // A thread ends: its values are passed on and its shard goes.
  void RemoveShard(Shard* shard) {
    absl::MutexLock lock(&mu_);
    FlushShard(*shard);
    std::erase(shards_, shard);
    for (std::atomic<Chunk*>& chunk : shard->chunks) {
      delete chunk.load(std::memory_order_relaxed);
    }
  }

 private:
  void FlushShard(Shard& shard) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [first, target] : targets_) FlushTarget(shard, first, target);
  }

  void FlushTarget(Shard& shard, uint32_t first, const Target& target)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // A metric's slots may straddle two chunks.
    const auto unflushed = [&](uint32_t slot) {
      Chunk* chunk = shard.chunks[slot / kChunkSlots].load(std::memory_order_acquire);
      return chunk == nullptr ? 0.0 : Unflushed(*chunk, slot % kChunkSlots);
    };
    if (target.counter != nullptr) {
      if (const double delta = unflushed(first); delta > 0) target.counter->Increment(delta);
      return;
    }
    std::vector<double>& buckets = bucket_deltas_;
    buckets.assign(target.slots - 1, 0.0);
    bool any = false;
    for (uint32_t i = 0; i + 1 < target.slots; ++i) {
      buckets[i] = unflushed(first + i);
      any = any || buckets[i] > 0;
    }
    const double sum = unflushed(first + target.slots - 1);
    if (any) target.histogram->ObserveMultiple(buckets, sum);
  }

  absl::Mutex mu_;
  std::vector<Shard*> shards_ ABSL_GUARDED_BY(mu_);
  // By first slot.
  absl::flat_hash_map<uint32_t, Target> targets_ ABSL_GUARDED_BY(mu_);
  // Released ranges by size, for metrics made and destroyed again and again
  // (a campaign's series, tests).
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> free_ ABSL_GUARDED_BY(mu_);
  uint32_t next_slot_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<double> bucket_deltas_ ABSL_GUARDED_BY(mu_);
};

// Registers the thread's shard and removes it when the thread ends.
class ThreadShard {
 public:
  ThreadShard() { Registry::Get().AddShard(shard_.get()); }
  ~ThreadShard() {
    Registry::Get().RemoveShard(shard_.get());
    this_thread_shard = nullptr;
    ended = true;
  }
  Shard& shard() { return *shard_; }

  // Set once the thread's shard is gone.
  static thread_local bool ended;

 private:
  // On the heap: a shard is 16 KiB, which every thread's static TLS block
  // would otherwise carry.
  std::unique_ptr<Shard> shard_ = std::make_unique<Shard>();
};

thread_local bool ThreadShard::ended = false;

// For updates a thread makes while it ends, after its own shard is gone
// (another thread_local's destructor): shared by such threads, so two of
// them at once may lose an update, never corrupt one.
Shard& EndedThreadsShard() {
  static Shard* const shard = [] {
    auto* added = new Shard();
    Registry::Get().AddShard(added);
    return added;
  }();
  return *shard;
}

}  // namespace

Shard& RegisterThisThread() {
  if (ThreadShard::ended) return EndedThreadsShard();
  thread_local ThreadShard thread_shard;
  this_thread_shard = &thread_shard.shard();
  return thread_shard.shard();
}

Chunk& AddChunk(Shard& shard, size_t chunk) {
  auto* added = new Chunk();
  // Release: Flush, on another thread, reads the zeroed values through it.
  // Two ended threads may race here on their shared shard: one chunk wins.
  Chunk* expected = nullptr;
  if (!shard.chunks[chunk].compare_exchange_strong(expected, added, std::memory_order_acq_rel)) {
    delete added;
    return *expected;
  }
  return *added;
}

}  // namespace internal

using internal::Registry;
using internal::Target;

ShardedCounter::ShardedCounter(prometheus::Family<prometheus::Counter>& family,
                               const Labels& labels)
    : target_(family.Add(labels)),
      slot_(Registry::Get().Allocate(Target{.counter = &target_, .slots = 1})) {}

ShardedCounter::~ShardedCounter() { Registry::Get().Release(slot_); }

double ShardedCounter::Value() const {
  Flush();
  return target_.Value();
}

ShardedHistogram::ShardedHistogram(prometheus::Family<prometheus::Histogram>& family,
                                   const Labels& labels,
                                   const prometheus::Histogram::BucketBoundaries& boundaries)
    : target_(family.Add(labels, boundaries)),
      boundaries_(boundaries),
      first_slot_(Registry::Get().Allocate(
          Target{.histogram = &target_, .slots = static_cast<uint32_t>(boundaries.size()) + 2})) {}

ShardedHistogram::~ShardedHistogram() { Registry::Get().Release(first_slot_); }

prometheus::ClientMetric ShardedHistogram::Collect() const {
  Flush();
  return target_.Collect();
}

void Flush() { Registry::Get().FlushAll(); }

std::vector<prometheus::MetricFamily> Collect(const prometheus::Registry& registry) {
  Flush();
  return registry.Collect();
}

}  // namespace rtb::metrics
