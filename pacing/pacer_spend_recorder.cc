#include <cstdint>
#include <new>

#include "pacing/pacer.h"

namespace rtb::pacing {
namespace {

constexpr size_t kCacheLine = 64;
constexpr size_t kCountersPerLine = kCacheLine / sizeof(std::atomic<int64_t>);

}  // namespace

SpendRecorder::SpendRecorder(size_t campaigns)
    : campaigns_(campaigns),
      stride_((campaigns + kCountersPerLine - 1) / kCountersPerLine * kCountersPerLine) {
  // One spare line so the first stripe can start on a line boundary.
  storage_ = std::make_unique<std::atomic<int64_t>[]>(kStripes * stride_ + kCountersPerLine);
  const uintptr_t address = reinterpret_cast<uintptr_t>(storage_.get());
  const uintptr_t aligned = (address + kCacheLine - 1) & ~uintptr_t{kCacheLine - 1};
  counters_ = storage_.get() + (aligned - address) / sizeof(std::atomic<int64_t>);
}

size_t SpendRecorder::NextStripe() {
  static std::atomic<size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) % kStripes;
}

int64_t SpendRecorder::Take(size_t campaign_index) {
  if (campaign_index >= campaigns_) return 0;
  int64_t total = 0;
  for (size_t stripe = 0; stripe < kStripes; ++stripe) {
    total += counters_[stripe * stride_ + campaign_index].exchange(0, std::memory_order_relaxed);
  }
  return total;
}

int64_t SpendRecorder::Pending(size_t campaign_index) const {
  if (campaign_index >= campaigns_) return 0;
  int64_t total = 0;
  for (size_t stripe = 0; stripe < kStripes; ++stripe) {
    total += counters_[stripe * stride_ + campaign_index].load(std::memory_order_relaxed);
  }
  return total;
}

}  // namespace rtb::pacing
