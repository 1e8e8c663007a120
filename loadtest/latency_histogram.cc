#include "loadtest/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rtb::loadtest {

int LatencyHistogram::BucketOf(int64_t micros) {
  if (micros < 0) micros = 0;
  if (micros < kLinear) return static_cast<int>(micros);
  // Octave k covers [1024 * 2^k, 1024 * 2^(k+1)).
  const int octave = std::bit_width(static_cast<uint64_t>(micros)) - 11;
  if (octave >= kOctaves) return kBuckets - 1;
  const int64_t base = int64_t{kLinear} << octave;
  const int sub = static_cast<int>((micros - base) * kSubBuckets / base);
  return kLinear + octave * kSubBuckets + sub;
}

int64_t LatencyHistogram::LowerEdge(int bucket) {
  if (bucket < kLinear) return bucket;
  const int octave = (bucket - kLinear) / kSubBuckets;
  const int sub = (bucket - kLinear) % kSubBuckets;
  const int64_t base = int64_t{kLinear} << octave;
  return base + base * sub / kSubBuckets;
}

void LatencyHistogram::Record(int64_t micros) {
  ++counts_[BucketOf(micros)];
  ++count_;
  max_ = std::max(max_, micros);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

int64_t LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q * count_)));
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(LowerEdge(i + 1) - 1, max_);
  }
  return max_;
}

}  // namespace rtb::loadtest
