// A log-linear latency histogram (HdrHistogram-style): 1 µs resolution up to
// 1 ms, then 64 sub-buckets per power of two, so every recorded value is
// within 1.6 % of its bucket's lower edge. Fixed memory, O(1) record.
//
// Thread-safety: none; merge per-thread histograms with Merge().
#ifndef RTB_LOADTEST_LATENCY_HISTOGRAM_H_
#define RTB_LOADTEST_LATENCY_HISTOGRAM_H_

#include <array>
#include <cstdint>

namespace rtb::loadtest {

class LatencyHistogram {
 public:
  void Record(int64_t micros);
  void Merge(const LatencyHistogram& other);
  int64_t count() const { return count_; }
  int64_t max() const { return max_; }
  // The smallest bucket edge at or above the q-quantile (q in [0, 1]), in µs.
  int64_t Quantile(double q) const;

 private:
  static constexpr int kLinear = 1024;    // 0 .. 1023 µs, one bucket each
  static constexpr int kSubBuckets = 64;  // per power of two above
  static constexpr int kOctaves = 30;     // up to ~2^40 µs
  static constexpr int kBuckets = kLinear + kOctaves * kSubBuckets;

  static int BucketOf(int64_t micros);
  static int64_t LowerEdge(int bucket);

  std::array<int64_t, kBuckets> counts_{};
  int64_t count_ = 0;
  int64_t max_ = 0;
};

}  // namespace rtb::loadtest

#endif  // RTB_LOADTEST_LATENCY_HISTOGRAM_H_
